// LiveStreams (src/events/stream.ts) without a database: a stand-in store that always has more
// events, a response that is only an event emitter. Back-pressure bounds what a stream reads ahead
// of its client; a client whose buffers stay full is dropped; shutdown ends every stream.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { EventFilter } from '../../src/events/query.ts';
import { EventSignals } from '../../src/events/signals.ts';
import type { EventStore } from '../../src/events/store.ts';
import { systemClock } from '../../src/clock.ts';
import { type CredentialWatch, LiveStreams, type StreamSettings, type StreamSlot } from '../../src/events/stream.ts';
import { eventFilter, eventRow } from '../helpers/events.ts';

const logger = pino({ level: 'silent' });
const filter = eventFilter(1);

const row = (n: number) =>
  eventRow({
    seq: n,
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    facility_id: 10,
    facility_name: 'Site',
    occurred_ms: 1_700_000_000_000 + n,
    received_ms: 1_700_000_000_000 + n,
    details: 'x'.repeat(500),
  });

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

/** A stream of the endless store (its first read `firstReads` events) to a response the test drives. */
async function endlessStream(settings: Partial<StreamSettings>, firstReads: number) {
  const { store, reads } = endlessStore();
  const streams = new LiveStreams(store, new EventSignals(logger, null), logger, settings, inForce);
  const response = new FakeResponse();
  const first = await store.tail(filter, 'c0', firstReads);
  const readable = streams.frames(filter, first, response as unknown as ServerResponse, slot());
  return { streams, response, readable, reads };
}

describe('LiveStreams', () => {
  it('reads no further ahead of a client that does not read (back-pressure): memory stays bounded', async () => {
    const { streams, readable, reads } = await endlessStream({ batch: 100 }, 100);
    // Nobody reads: the stream may prepare a frame or two, not the endless backlog. (A wait that
    // proves nothing more happens: there is no signal of a read that did not happen.)
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
    const { streams, response, readable } = await endlessStream({ stallMs: 200 }, 100);
    readable.resume();
    response.writableNeedDrain = true;
    const started = Date.now();
    // Dropped: the response destroyed, which closes it (the deadline only ends a hung test).
    await once(response, 'close', { signal: AbortSignal.timeout(3000) });
    assert.ok(response.destroyed, 'dropped');
    assert.ok(Date.now() - started >= 150, `dropped after ${Date.now() - started} ms`);
    await streams.close();
  });

  it('keeps a client whose buffers drain, however the sweeps fall', async () => {
    const { streams, response, readable } = await endlessStream({ stallMs: 200 }, 1);
    readable.resume();
    // The client's rhythm (full for 60 ms, then drained) is what is tested, over ten steps: the
    // sleeps are its timing, and the drop that does not happen has no signal to wait for.
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
    const opened = once(readable, 'data');
    readable.on('data', (chunk: string) => text.push(chunk));
    await opened;
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
    /** A stream of the holder: when it has sent an event, and its chunks once it has closed. */
    const run = (credential: string, expiresAt: number) => {
      const readable = streams.frames(
        filter,
        { events: [], cursor: 'c' },
        new FakeResponse() as unknown as ServerResponse,
        slot(credential, expiresAt),
      );
      const chunks: string[] = [];
      let sent!: () => void;
      const eventSent = new Promise<void>((resolve) => (sent = resolve));
      readable.on('data', (chunk: string) => {
        chunks.push(chunk);
        if (chunk.startsWith('id: ')) sent();
      });
      const closed = new Promise<string[]>((resolve) => readable.on('close', () => resolve(chunks)));
      return { eventSent, closed };
    };
    // Revoked: the endless store keeps answering events until then; none after the end.
    const revokedRun = run('account:revoked', now + 3_600_000);
    const expiredRun = run('account:expiring', now + 3_600_000);
    await Promise.all([revokedRun.eventSent, expiredRun.eventSent]);
    assert.equal(streams.open, 2);
    revoked = new Set(['account:revoked']);
    const chunks = await revokedRun.closed;
    assert.ok(
      chunks.some((c) => c.startsWith('id: ')),
      'events before',
    );
    assert.match(chunks.at(-1)!, /^event: end\ndata: \{"code":"CREDENTIAL_REVOKED"/);
    assert.equal(streams.open, 1);
    // Expired, by the watch's clock.
    now += 3_600_001;
    const expired = await expiredRun.closed;
    assert.match(expired.at(-1)!, /^event: end\ndata: \{"code":"TOKEN_EXPIRED"/);
    assert.deepEqual(ended, ['CREDENTIAL_REVOKED', 'TOKEN_EXPIRED']);
    assert.equal(streams.open, 0);
    await streams.close();
  });
});
