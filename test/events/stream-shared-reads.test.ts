// The live streams of one account share their reads, over real HTTP: streams with different
// filters, opened at different moments (from now, from startDate, from a Last-Event-ID), woken by
// one ingest, cost one read of event rows between them (counted by
// gatehouse_gateway_event_tail_reads_total), and each still gets exactly its own events — the
// events, and the ids, a walk of the list route with its filter gives from its previous id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  provisionReportingAccount,
  type ReportingAccount,
  type StreamingApp,
  startStreamingApp,
} from '../helpers/events.ts';
import { event, getJson, ingestWithoutSignal } from './helpers.ts';
import type { SseStream } from './sse-client.ts';

let t: StreamingApp;
let acme: ReportingAccount;

before(async () => {
  t = await startStreamingApp();
  acme = await provisionReportingAccount(t, { facilities: 2 });
  // No safety poll during these tests: every read is a wake-up's.
  t.services.events.streams.settings.pollMs = 3_600_000;
});
after(() => t.close());

/** The tail reads of event rows so far, by kind. */
async function reads(): Promise<{ shared: number; own: number }> {
  const metric = await t.services.metrics.registry.getSingleMetric('gatehouse_gateway_event_tail_reads_total')!.get();
  const count = (read: string) => metric.values.find((v) => v.labels.read === read)?.value ?? 0;
  return { shared: count('shared'), own: count('own') };
}

interface Follower {
  name: string;
  /** The route's path and query, without the stream suffix's query (the list route's too). */
  path: string;
  query: string;
  stream: SseStream;
}

async function follow(name: string, path: string, query = '', headers: Record<string, string> = {}) {
  const stream = await t.openStream(`${t.base}${path}/stream${query ? `?${query}` : ''}`, acme.token, headers);
  assert.equal(stream.status, 200, stream.body);
  await stream.waitFor(() => stream.comments().includes('stream open'), 5000, `${name} open`);
  return { name, path, query, stream };
}

const details = (s: SseStream) => s.events().map((e) => e.event.details);

/** The events of the list route with the follower's filter, sort=asc, walked from `cursor`. */
async function walkFrom(follower: Follower, cursor: string): Promise<{ details: string; id: string }[]> {
  const items: { details: string; id: string }[] = [];
  const query = follower.query ? `${follower.query}&` : '';
  const page = await getJson(
    t,
    acme.token,
    `${follower.path}?${query}sort=asc&pageSize=100&cursor=${encodeURIComponent(cursor)}`,
  );
  assert.equal(page.status, 200, JSON.stringify(page.body));
  for (const item of page.body.items) items.push({ details: item.details, id: item.id });
  return items;
}

describe('streams of one account woken by one ingest', () => {
  it('cost one read between them, and each gets exactly its events, with ids that resume its own walk', async () => {
    const account = `/gatewayevents/accounts/${acme.accountId}`;
    const facility0 = `/gatewayevents/facilities/${acme.facilities[0]!.id}`;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    await acme.ingest(0, [event({ details: 'old-1' }, 30), event({ details: 'old-2' }, 20)]);

    // Opened one by one, with events stored in between: each starts at another horizon.
    const all = await follow('all', account);
    await acme.ingest(1, [event({ details: 'between-1' }, 5)]);
    await all.stream.waitForEvents(1);
    const byType = await follow('byType', account, 'eventTypes=15');
    const byFacility = await follow('byFacility', account, `facilityIds=${acme.facilities[1]!.id}`);
    await acme.ingest(0, [event({ details: 'between-2' }, 4)]);
    await all.stream.waitForEvents(2);
    const facility = await follow('facility', facility0);
    const byUnit = await follow('byUnit', account, 'unitIds=424242&eventTypes=18,15');
    const fromDate = await follow('fromDate', account, `startDate=${since}`);
    await fromDate.stream.waitForEvents(4);
    const resumed = await follow('resumed', account, '', { 'last-event-id': all.stream.events()[0]!.id });
    await resumed.stream.waitForEvents(1);
    assert.deepEqual(details(fromDate.stream), ['old-1', 'old-2', 'between-1', 'between-2']);
    assert.deepEqual(details(resumed.stream), ['between-2']);
    const followers = [all, byType, byFacility, facility, byUnit, fromDate, resumed];
    const counts = new Map(followers.map((f) => [f.name, f.stream.events().length]));
    const lastIds = new Map(followers.map((f) => [f.name, f.stream.events().at(-1)?.id]));

    // One batch at facility 0: the streams it concerns wake (byFacility follows facility 1 only).
    const before = await reads();
    await acme.ingest(0, [
      event({ details: 'w-18' }, 3),
      event({ details: 'w-15', eventType: 15 }, 2),
      event({ details: 'w-unit', unitId: 424242 }, 1),
      event({ details: 'w-other-unit', unitId: 99, eventType: 15 }, 1),
    ]);
    const expected: Record<string, string[]> = {
      all: ['w-18', 'w-15', 'w-unit', 'w-other-unit'],
      byType: ['w-15', 'w-other-unit'],
      byFacility: [],
      facility: ['w-18', 'w-15', 'w-unit', 'w-other-unit'],
      byUnit: ['w-unit'],
      fromDate: ['w-18', 'w-15', 'w-unit', 'w-other-unit'],
      resumed: ['w-18', 'w-15', 'w-unit', 'w-other-unit'],
    };
    for (const f of followers) await f.stream.waitForEvents(counts.get(f.name)! + expected[f.name]!.length);
    const after = await reads();
    assert.deepEqual(
      { shared: after.shared - before.shared, own: after.own - before.own },
      { shared: 1, own: 0 },
      'one shared read for the six streams woken',
    );

    for (const f of followers) {
      const got = f.stream.events().slice(counts.get(f.name)!);
      assert.deepEqual(
        got.map((e) => e.event.details),
        expected[f.name],
        f.name,
      );
      // What its own walk from its previous id returns: the same events, the same order.
      const previous = lastIds.get(f.name);
      if (previous) {
        const walked = await walkFrom(f, previous);
        assert.deepEqual(
          walked.map((e) => e.details),
          expected[f.name],
          `${f.name}: its walk`,
        );
        assert.deepEqual(
          walked.map((e) => e.id),
          got.map((e) => e.event.id),
        );
      }
      // Each id resumes that stream exactly after its event.
      if (got.length >= 2) {
        const again = await follow(`${f.name} again`, f.path, f.query, { 'last-event-id': got[0]!.id });
        await again.stream.waitForEvents(got.length - 1);
        assert.deepEqual(details(again.stream), expected[f.name]!.slice(1));
        again.stream.close();
      }
    }

    // The stream the batch did not concern reads at the next batch of its facility, and gets it alone.
    const quietBefore = byFacility.stream.events().length;
    await acme.ingest(1, [event({ details: 'w-fac1' }, 1)]);
    await byFacility.stream.waitForEvents(quietBefore + 1);
    assert.deepEqual(details(byFacility.stream).slice(quietBefore), ['w-fac1']);
  });

  it('a backlog larger than one shared read reaches every stream whole, in order', async () => {
    const account = `/gatewayevents/accounts/${acme.accountId}`;
    const a = await follow('a', account);
    const rare = await follow('rare', account, 'eventTypes=16');
    // 1,100 events stored in two batches without a wake-up, then one wake-up: more than one shared
    // read takes (SHARED_TAIL_ROWS, 1,000). The 50 that occurred last are the only ones of type 16:
    // beyond the shared read, so `rare` gets them by its own reads.
    const now = Date.now();
    const backlog = Array.from({ length: 1_100 }, (_, i) => ({
      eventId: `backlog-${now}-${i}`,
      eventType: i >= 1_050 ? 16 : 18,
      occurredAt: new Date(now - 600_000 + i).toISOString(),
      details: `backlog-${String(i).padStart(4, '0')}`,
    }));
    const gateway = { accountId: acme.accountId, facilityId: acme.facilities[0]!.id };
    for (const half of [backlog.slice(0, 550), backlog.slice(550)])
      assert.equal((await ingestWithoutSignal(t, gateway, half)).accepted, 550);
    const before = await reads();
    t.services.events.signals.stored(acme.accountId, acme.facilities[0]!.id);
    await a.stream.waitForEvents(1_100, 20_000);
    await rare.stream.waitForEvents(50, 20_000);
    assert.deepEqual(
      details(a.stream),
      backlog.map((e) => e.details),
    );
    assert.deepEqual(
      details(rare.stream),
      backlog.slice(1_050).map((e) => e.details),
    );
    const after = await reads();
    assert.equal(after.shared - before.shared, 1);
    assert.ok(after.own > before.own, 'the rest was read by the streams themselves');
  });
});
