// The simulator's event outbox: batches, retries with the same eventIds while the service is
// down, drops what the service refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError, type GatewayEvent, type IngestAnswer } from '../../src/simulator/client.ts';
import { newOutboxStats, Outbox } from '../../src/simulator/outbox.ts';

const event = (n: number): GatewayEvent => ({ eventId: `e${n}`, eventType: 18, occurredAt: new Date(0).toISOString() });
const settle = () => new Promise((r) => setImmediate(r));

describe('the outbox', () => {
  it('sends a full batch at once, a partial one after flushMs, an urgent one at once', async () => {
    const sent: string[][] = [];
    const ok = async (events: GatewayEvent[]): Promise<IngestAnswer> => {
      sent.push(events.map((e) => e.eventId));
      return { accepted: events.length, duplicates: 0, rejected: [], warnings: [] };
    };
    const stats = newOutboxStats();
    const outbox = new Outbox(ok, { batchSize: 3, flushMs: 1000, maxQueued: 100 }, stats);
    const t0 = Date.now();
    outbox.push(event(1));
    outbox.push(event(2));
    outbox.maybeFlush(t0);
    await settle();
    assert.deepEqual(sent, [], 'not yet: neither full nor due');
    outbox.push(event(3));
    outbox.push(event(4));
    outbox.maybeFlush(t0);
    await settle();
    assert.deepEqual(sent, [['e1', 'e2', 'e3']]);
    outbox.maybeFlush(t0 + 1500);
    await settle();
    assert.deepEqual(sent.at(-1), ['e4']);
    outbox.push(event(5), true);
    outbox.maybeFlush(t0 + 1500);
    await settle();
    assert.deepEqual(sent.at(-1), ['e5']);
    assert.equal(stats.accepted, 5);
    assert.equal(outbox.queued, 0);
  });

  it('while the service is down, retries the same batch with the same eventIds, in order, then goes on', async () => {
    const attempts: string[][] = [];
    let down = true;
    const flaky = async (events: GatewayEvent[]): Promise<IngestAnswer> => {
      attempts.push(events.map((e) => e.eventId));
      if (down) throw new TypeError('fetch failed');
      return { accepted: events.length, duplicates: 0, rejected: [], warnings: [] };
    };
    const stats = newOutboxStats();
    const outbox = new Outbox(flaky, { batchSize: 2, flushMs: 0, maxQueued: 100 }, stats);
    outbox.push(event(1));
    outbox.push(event(2));
    outbox.push(event(3));
    let clock = Date.now();
    outbox.maybeFlush(clock);
    await settle();
    assert.equal(stats.serviceUp, false);
    clock += 60_000;
    outbox.maybeFlush(clock);
    await settle();
    down = false;
    clock += 60_000;
    outbox.maybeFlush(clock);
    await settle();
    clock += 60_000;
    outbox.maybeFlush(clock);
    await settle();
    assert.deepEqual(attempts, [['e1', 'e2'], ['e1', 'e2'], ['e1', 'e2'], ['e3']]);
    assert.equal(stats.retries, 2);
    assert.equal(stats.accepted, 3);
    assert.equal(stats.serviceUp, true);
  });

  it('honours Retry-After; drops a batch refused whole (400) and counts rejected events', async () => {
    const outcomes: (() => IngestAnswer)[] = [
      () => {
        throw new HttpError(429, '', 5000);
      },
      () => {
        throw new HttpError(400, 'not a batch', null);
      },
      () => ({
        accepted: 1,
        duplicates: 1,
        rejected: [{ index: 2, eventId: 'e5', path: 'eventType', reason: 'unknown' }],
        warnings: [],
      }),
    ];
    const calls: string[][] = [];
    const stats = newOutboxStats();
    const outbox = new Outbox(
      async (events) => {
        calls.push(events.map((e) => e.eventId));
        return outcomes.shift()!();
      },
      { batchSize: 10, flushMs: 0, maxQueued: 100 },
      stats,
    );
    outbox.push(event(1));
    const t0 = Date.now();
    outbox.maybeFlush(t0);
    await settle();
    outbox.maybeFlush(t0 + 1000);
    await settle();
    assert.equal(calls.length, 1, 'waits for Retry-After');
    outbox.maybeFlush(t0 + 6000);
    await settle();
    assert.equal(calls.length, 2);
    assert.equal(stats.dropped, 1, 'the refused batch is dropped');
    for (const n of [3, 4, 5]) outbox.push(event(n));
    outbox.maybeFlush(t0 + 7000);
    await settle();
    assert.deepEqual(calls.at(-1), ['e3', 'e4', 'e5']);
    assert.deepEqual([stats.accepted, stats.duplicates, stats.rejected], [1, 1, 1]);
    assert.equal(outbox.queued, 0);
  });

  it('keeps at most maxQueued events, dropping the oldest', () => {
    const stats = newOutboxStats();
    const outbox = new Outbox(
      async () => ({ accepted: 0, duplicates: 0, rejected: [], warnings: [] }),
      { batchSize: 100, flushMs: 1e9, maxQueued: 3 },
      stats,
    );
    for (let n = 1; n <= 5; n++) outbox.push(event(n));
    assert.equal(outbox.queued, 3);
    assert.equal(stats.dropped, 2);
  });
});
