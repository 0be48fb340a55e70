// EventStore.tailStart and tail on a real database: what the live stream and webhook delivery read.
// From now or from `since`; in order; by `limit`; resumable from any event's cursor; late events
// included; exactly once while batches of the account commit in parallel; refused for another query.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvalidCursorError } from '../../src/events/cursor.ts';
import type { EventFilter } from '../../src/events/query.ts';
import type { EventStore } from '../../src/events/store.ts';
import { eventFilter, provisionReportingAccount, type ReportingAccount } from '../helpers/events.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { event } from './helpers.ts';

let t: TestApp;
let store: EventStore;
let acme: ReportingAccount;

before(async () => {
  t = await startTestApp();
  store = t.services.events.store;
  acme = await provisionReportingAccount(t, { facilities: 2 });
});
after(() => t.close());

const accountFilter = (fields: Partial<EventFilter> = {}) => eventFilter(acme.accountId, fields);

const details = (batch: { events: { row: { details: string | null } }[] }) => batch.events.map((e) => e.row.details);

/** Everything from `cursor` on, by `limit`, until a read brings nothing. */
async function drain(filter: EventFilter, cursor: string, limit: number) {
  const rows: string[] = [];
  for (;;) {
    const batch = await store.tail(filter, cursor, limit);
    rows.push(...details(batch).map(String));
    cursor = batch.cursor;
    if (batch.events.length === 0) return { rows, cursor };
  }
}

describe('EventStore.tail', () => {
  it('from now: nothing stored before; then what is stored, in order, each with a cursor to resume after it', async () => {
    const filter = accountFilter({ eventTypes: [18] });
    await acme.ingest(0, [event({ details: 'old' })]);
    const start = await store.tailStart(filter);
    const empty = await store.tail(filter, start, 10);
    assert.deepEqual(empty.events, []);
    await acme.ingest(0, [event({ details: 'n1' }, 3), event({ details: 'n2' }, 2)]);
    await acme.ingest(1, [event({ details: 'n3' }, 1)]);
    const batch = await store.tail(filter, empty.cursor, 10);
    assert.deepEqual(details(batch), ['n1', 'n2', 'n3']);
    // Nothing new: an empty answer, and a cursor that still continues.
    const none = await store.tail(filter, batch.cursor, 10);
    assert.deepEqual(none.events, []);
    // From the first event's cursor: the two after it.
    assert.deepEqual(details(await store.tail(filter, batch.events[0]!.cursor, 10)), ['n2', 'n3']);
    // A late event (it occurred three days ago) stored now comes next.
    await acme.ingest(1, [event({ details: 'late' }, 3 * 24 * 60)]);
    assert.deepEqual(details(await store.tail(filter, none.cursor, 10)), ['late']);
    assert.deepEqual(details(await store.tail(filter, batch.events[2]!.cursor, 10)), ['late']);
  });

  it('by limit: the same events, in the same order, none repeated', async () => {
    const filter = accountFilter({ eventTypes: [15] });
    const start = await store.tailStart(filter);
    const stored = ['l1', 'l2', 'l3', 'l4', 'l5'];
    await acme.ingest(
      0,
      stored.map((d, i) => event({ details: d, eventType: 15 }, 10 - i)),
    );
    assert.deepEqual((await drain(filter, start, 2)).rows, stored);
    assert.deepEqual((await drain(filter, start, 100)).rows, stored);
  });

  it('from `since`: the retained events that occurred since (stored before or not), then everything stored later', async () => {
    const filter = accountFilter({ eventTypes: [10] });
    await acme.ingest(0, [
      event({ details: 's-before', eventType: 10 }, 60),
      event({ details: 's-after', eventType: 10 }, 20),
    ]);
    const start = await store.tailStart(filter, Date.now() - 30 * 60_000);
    await acme.ingest(1, [event({ details: 's-later-but-old', eventType: 10 }, 120)]);
    assert.deepEqual((await drain(filter, start, 10)).rows, ['s-after', 's-later-but-old']);
  });

  it('returns every event exactly once while batches of the account commit in parallel', async () => {
    const filter = accountFilter({ eventTypes: [20] });
    let cursor = await store.tailStart(filter);
    const expected: string[] = [];
    const seen: string[] = [];
    let storing = true;
    const writers = (async () => {
      const posts: Promise<unknown>[] = [];
      for (let b = 0; b < 24; b++) {
        const batch = Array.from({ length: 5 }, (_, i) => {
          const d = `p-${b}-${i}`;
          expected.push(d);
          // Mixed occurredAt: some late, so phases interleave in time.
          return event({ details: d, eventType: 20 }, (b * 7 + i * 13) % 90);
        });
        posts.push(acme.ingest(b % 2, batch));
        if (posts.length >= 4) await Promise.all(posts.splice(0));
      }
      await Promise.all(posts);
      storing = false;
    })();
    while (storing) {
      const batch = await store.tail(filter, cursor, 7);
      seen.push(...details(batch).map(String));
      cursor = batch.cursor;
    }
    await writers;
    seen.push(...(await drain(filter, cursor, 7)).rows);
    assert.equal(seen.length, expected.length, 'nothing repeated');
    assert.deepEqual([...seen].sort(), [...expected].sort(), 'nothing missed');
  });

  it('is a cursor of the list walk with sort=asc; refuses a cursor of another query', async () => {
    const filter = accountFilter({ eventTypes: [18] });
    const start = await store.tailStart(filter);
    const page = await store.page(filter, { pageSize: 10, pageNumber: 1, cursor: start });
    assert.deepEqual(page.rows, []);
    await assert.rejects(store.tail(accountFilter({ eventTypes: [15] }), start, 10), InvalidCursorError);
    await assert.rejects(store.tail({ ...filter, sort: 'desc' }, start, 10), InvalidCursorError);
    await assert.rejects(store.tail(filter, 'garbage', 10), InvalidCursorError);
  });
});
