// LiveStreams (src/events/stream.ts) without a database: a stand-in store that always has more
// events, a response that is only an event emitter. Back-pressure bounds what a stream reads ahead
// of its client; a client whose buffers stay full is dropped; shutdown ends every stream.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { EventFilter, EventRow } from '../../src/events/query.ts';
import { EventSignals } from '../../src/events/signals.ts';
import type { EventStore } from '../../src/events/store.ts';
import { systemClock } from '../../src/clock.ts';
import { type CredentialWatch, LiveStreams, type StreamSlot } from '../../src/events/stream.ts';

const logger = pino({ level: 'silent' });
const filter: EventFilter = {
  scope: { kind: 'account', accountId: 1 },
  facilityIds: null,
  eventTypes: null,
  unitIds: null,
  visitorIds: null,
  start: null,
  end: null,
  sort: 'asc',
};

const row = (n: number) =>
  ({
    seq: n,
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    account_id: 1,
    facility_id: 10,
    facility_name: 'Site',
    time_zone: 'UTC',
    event_type: 18,
    occurred_ms: 1_700_000_000_000 + n,
    received_ms: 1_700_000_000_000 + n,
    device_id: null,
    device_name: null,
    unit_id: null,
    unit_number: null,
    visitor_id: null,
    visitor_name: null,
    code_entered: null,
    details: 'x'.repeat(500),
    data: null,
  }) as unknown as EventRow;

/** A store with an endless backlog: every tail() answers a full batch. */
function endlessStore() {
  let reads = 0;
  let next = 0;
  const store = {
    async tail(_filter: EventFilter, _cursor: string, limit: number) {
      // As a database read does, it answers in a later turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      reads++;
      const events = Array.from({ length: limit }, () => {
        next++;
        return { row: row(next), cursor: `c${next}` };
      });
      return { events, cursor: `c${next}` };
    },
  } as unknown as EventStore;
  return { store, reads: () => reads };
}

/** Enough of a ServerResponse for LiveStreams: close events, writableNeedDrain, destroy(). */
class FakeResponse extends EventEmitter {
  writableNeedDrain = false;
  destroyed = false;
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

/** A watch under which nothing is revoked. */
const inForce: CredentialWatch = { clock: systemClock, revokedAmong: async () => new Set() };
/** A slot of a holder whose token lasts an hour. */
const slot = (credential = 'account:k1', expiresAt = Date.now() + 3_600_000): StreamSlot => ({
  holder: { credential, expiresAt },
  release() {},
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LiveStreams', () => {
  it('reads no further ahead of a client that does not read (back-pressure): memory stays bounded', async () => {
    const { store, reads } = endlessStore();
    const streams = new LiveStreams(store, new EventSignals(logger, null), logger, { batch: 100 }, inForce);
    const response = new FakeResponse();
    const first = await store.tail(filter, 'c0', 100);
    const readable = streams.frames(filter, first, response as unknown as ServerResponse, slot());
    // Nobody reads: the stream may prepare a frame or two, not the endless backlog.
    await sleep(300);
    assert.ok(reads() <= 3, `${reads()} reads`);
    assert.ok(readable.readableLength <= 2, `${readable.readableLength} frames buffered`);
    // A reader that takes 5 chunks makes it read about 5 batches more, no more.
    const before = reads();
    let taken = 0;
    for await (const _chunk of readable) if (++taken === 5) break;
    assert.ok(reads() - before <= 7, `${reads() - before} reads for 5 chunks`);
    await streams.close();
  });

  it('drops a client whose buffers stay full for stallMs', async () => {
    const { store } = endlessStore();
    const streams = new LiveStreams(store, new EventSignals(logger, null), logger, { stallMs: 200 }, inForce);
    const response = new FakeResponse();
    const readable = streams.frames(
      filter,
      await store.tail(filter, 'c0', 100),
      response as unknown as ServerResponse,
      slot(),
    );
    readable.resume();
    response.writableNeedDrain = true;
    const started = Date.now();
    while (!response.destroyed && Date.now() - started < 3000) await sleep(20);
    assert.ok(response.destroyed, 'dropped');
    assert.ok(Date.now() - started >= 150, `dropped after ${Date.now() - started} ms`);
    await streams.close();
  });

  it('keeps a client whose buffers drain, however the sweeps fall', async () => {
    const { store } = endlessStore();
    const streams = new LiveStreams(store, new EventSignals(logger, null), logger, { stallMs: 200 }, inForce);
    const response = new FakeResponse();
    const readable = streams.frames(
      filter,
      await store.tail(filter, 'c0', 1),
      response as unknown as ServerResponse,
      slot(),
    );
    readable.resume();
    for (let i = 0; i < 10; i++) {
      response.writableNeedDrain = i % 2 === 0;
      if (!response.writableNeedDrain) response.emit('drain');
      await sleep(60);
    }
    assert.equal(response.destroyed, false);
    await streams.close();
  });

  it('ends every stream when the service begins closing, and ends new ones at once', async () => {
    const quiet = {
      async tail() {
        return { events: [], cursor: 'c' };
      },
    } as unknown as EventStore;
    const streams = new LiveStreams(quiet, new EventSignals(logger, null), logger, {}, inForce);
    const readable = streams.frames(
      filter,
      { events: [], cursor: 'c' },
      new FakeResponse() as unknown as ServerResponse,
      slot(),
    );
    const text: string[] = [];
    const ended = new Promise<void>((resolve) => readable.on('end', resolve));
    readable.on('data', (chunk: string) => text.push(chunk));
    await sleep(50);
    assert.equal(streams.open, 1);
    await streams.beginClosing();
    await ended;
    assert.equal(streams.open, 0);
    assert.match(text.join(''), /: stream open/);
    const late = streams.frames(
      filter,
      { events: [], cursor: 'c' },
      new FakeResponse() as unknown as ServerResponse,
      slot(),
    );
    late.resume();
    await new Promise<void>((resolve) => late.on('end', resolve));
  });

  it('ends a stream whose credential is revoked, or whose token expires, with the end event last', async () => {
    const { store } = endlessStore();
    let revoked = new Set<string>();
    let now = Date.now();
    const ended: string[] = [];
    const streams = new LiveStreams(
      store,
      new EventSignals(logger, null),
      logger,
      { credentialCheckMs: 30, batch: 5, pollMs: 10 },
      { clock: { now: () => now }, revokedAmong: async () => revoked, ended: (reason) => ended.push(reason) },
    );
    const run = async (credential: string, expiresAt: number) => {
      const readable = streams.frames(
        filter,
        { events: [], cursor: 'c' },
        new FakeResponse() as unknown as ServerResponse,
        slot(credential, expiresAt),
      );
      const chunks: string[] = [];
      readable.on('data', (chunk: string) => chunks.push(chunk));
      await new Promise<void>((resolve) => readable.on('close', resolve));
      return chunks;
    };
    // Revoked: the endless store keeps answering events until then; none after the end.
    const revokedRun = run('account:revoked', now + 3_600_000);
    const expiredRun = run('account:expiring', now + 3_600_000);
    await sleep(100);
    assert.equal(streams.open, 2);
    revoked = new Set(['account:revoked']);
    const chunks = await revokedRun;
    assert.ok(
      chunks.some((c) => c.startsWith('id: ')),
      'events before',
    );
    assert.match(chunks.at(-1)!, /^event: end\ndata: \{"code":"CREDENTIAL_REVOKED"/);
    assert.equal(streams.open, 1);
    // Expired, by the watch's clock.
    now += 3_600_001;
    const expired = await expiredRun;
    assert.match(expired.at(-1)!, /^event: end\ndata: \{"code":"TOKEN_EXPIRED"/);
    assert.deepEqual(ended, ['CREDENTIAL_REVOKED', 'TOKEN_EXPIRED']);
    assert.equal(streams.open, 0);
    await streams.close();
  });
});
