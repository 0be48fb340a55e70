// The pure parts of the live stream, without a database or HTTP: the tail's steps through the
// cursor walk (tail.ts), the SSE framing (sse.ts), which signals concern a stream, and the
// event-stored payload.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeCursor, encodeCursor, queryFingerprint } from '../../src/events/cursor.ts';
import { type EventFilter, type EventRow, rowMatches } from '../../src/events/query.ts';
import { parseStoredPayload, storedPayload } from '../../src/events/signals.ts';
import { sseComment, sseEvent, sseNamedEvent, sseRetry } from '../../src/events/sse.ts';
import { concerns, endEvent } from '../../src/events/stream.ts';
import { exhausted, hasPhaseLeft, nextPhase, shareOfPhase, stateAfter, tailStartState } from '../../src/events/tail.ts';
import { eventFilter, eventRow } from '../helpers/events.ts';
import { parseFrames } from './sse-client.ts';

const fingerprint = queryFingerprint({ scope: 'a:1', sort: 'asc' });

describe('the tail through the cursor walk', () => {
  it('starts from now with an empty phase at the horizon: nothing to read, only later phases', () => {
    const start = tailStartState(fingerprint, 500);
    assert.deepEqual({ lo: start.lo, hi: start.hi, after: start.after }, { lo: 500, hi: 500, after: null });
    assert.equal(hasPhaseLeft(start), false);
    assert.equal(nextPhase(start, 500), null);
    assert.equal(
      nextPhase(start, 499),
      null,
      'a horizon below the phase (another database’s session ending) is nothing new',
    );
    assert.deepEqual(
      { ...nextPhase(start, 510)!, fingerprint: null },
      { ...start, lo: 500, hi: 510, after: null, fingerprint: null },
    );
  });

  it('starts from `since` with every committed event, positioned just before `since`', () => {
    const since = Date.UTC(2026, 10, 1);
    const start = tailStartState(fingerprint, 500, since);
    assert.deepEqual(
      { lo: start.lo, hi: start.hi, after: start.after },
      { lo: 0, hi: 500, after: { occurredAt: since, seq: 0 } },
    );
    assert.equal(hasPhaseLeft(start), true);
  });

  it('moves after each event, and an exhausted phase becomes the empty phase at its top', () => {
    const phase = { ...tailStartState(fingerprint, 500), lo: 500, hi: 520 };
    const moved = stateAfter(phase, { occurred_ms: 1_700_000_000_000, seq: 42 });
    assert.deepEqual(moved.after, { occurredAt: 1_700_000_000_000, seq: 42 });
    assert.deepEqual([moved.lo, moved.hi], [500, 520]);
    const done = exhausted(moved);
    assert.deepEqual({ lo: done.lo, hi: done.hi, after: done.after }, { lo: 520, hi: 520, after: null });
    assert.equal(hasPhaseLeft(done), false);
    assert.equal(nextPhase(done, 530)!.lo, 520);
  });

  it('is a cursor like any other: it round-trips through the codec, and only for its own query', () => {
    const key = randomBytes(32);
    const state = stateAfter(tailStartState(fingerprint, 7, 1_000), { occurred_ms: 2_000, seq: 3 });
    const decoded = decodeCursor(encodeCursor(state, key), key, fingerprint);
    assert.deepEqual(decoded, state);
    assert.throws(() => decodeCursor(encodeCursor(state, key), key, queryFingerprint({ scope: 'a:1', sort: 'desc' })));
  });
});

describe("a caught-up tail's share of its account's shared read", () => {
  // The account's rows of (100, 130] in (occurredAt, seq) order; the tail is caught up at 110.
  const row = (seq: number, txid: number, type = 18) => ({ seq, txid, occurred_ms: 1_000 + seq, event_type: type });
  const rows = [row(1, 105), row(2, 112), row(3, 104, 15), row(4, 120, 15), row(5, 125), row(6, 130, 15)];
  const caughtUp = { ...tailStartState(fingerprint, 110) };
  const all = () => true;
  const seqs = (share: { events: { row: { seq: number } }[] }) => share.events.map((e) => e.row.seq);
  const where = (state: { lo: number; hi: number; after: unknown }) => ({
    lo: state.lo,
    hi: state.hi,
    after: state.after,
  });

  it('keeps the rows above its own hi that its filter keeps; a complete read leaves it caught up at the horizon', () => {
    const share = shareOfPhase(caughtUp, 130, rows, true, (r) => r.event_type === 15, 100);
    assert.deepEqual(seqs(share), [4, 6]);
    assert.deepEqual(where(share.state), { lo: 130, hi: 130, after: null });
    // Each event's state is the phase (110, 130] right after it: its id resumes the same walk.
    assert.deepEqual(where(share.events[0]!.state), { lo: 110, hi: 130, after: { occurredAt: 1_004, seq: 4 } });
  });

  it('stops at its batch, positioned after its last event, with the phase left to read', () => {
    const share = shareOfPhase(caughtUp, 130, rows, true, all, 2);
    assert.deepEqual(seqs(share), [2, 4]);
    assert.deepEqual(where(share.state), { lo: 110, hi: 130, after: { occurredAt: 1_004, seq: 4 } });
    assert.equal(hasPhaseLeft(share.state), true);
    // Exactly a batch and nothing more: caught up.
    assert.deepEqual(where(shareOfPhase(caughtUp, 130, rows, true, all, 4).state), { lo: 130, hi: 130, after: null });
  });

  it('after a read cut short, is positioned after the last row read (even one not its own), phase left', () => {
    const share = shareOfPhase(caughtUp, 130, rows.slice(0, 3), false, (r) => r.event_type === 15, 100);
    assert.deepEqual(seqs(share), []);
    assert.deepEqual(where(share.state), { lo: 110, hi: 130, after: { occurredAt: 1_003, seq: 3 } });
  });

  it('a horizon at or below its hi: nothing new, as it was', () => {
    const share = shareOfPhase(caughtUp, 110, rows, true, all, 100);
    assert.deepEqual(share, { events: [], state: caughtUp });
  });
});

describe("a row of the account's phase in memory, as the filter's SQL", () => {
  const event = (fields: Partial<EventRow>) => eventRow({ facility_id: 10, occurred_ms: 5_000, ...fields });
  const filter = (fields: Partial<EventFilter>) => eventFilter(1, fields);

  it('applies scope, facilities, types, units, visitors, the start (or the retention cutoff) and the end', () => {
    assert.equal(rowMatches(filter({}), event({}), 0), true);
    assert.equal(rowMatches(filter({}), event({ account_id: 2 }), 0), false);
    const facilityScope = filter({ scope: { kind: 'facility', facilityId: 11, accountId: 1 } });
    assert.equal(rowMatches(facilityScope, event({}), 0), false);
    assert.equal(rowMatches(facilityScope, event({ facility_id: 11 }), 0), true);
    assert.equal(rowMatches(filter({ facilityIds: [11, 12] }), event({}), 0), false);
    assert.equal(rowMatches(filter({ eventTypes: [15] }), event({}), 0), false);
    assert.equal(rowMatches(filter({ eventTypes: [15, 18] }), event({}), 0), true);
    assert.equal(rowMatches(filter({ unitIds: [7] }), event({}), 0), false, 'no unit: not a unit filter’s');
    assert.equal(rowMatches(filter({ unitIds: [7] }), event({ unit_id: 7 }), 0), true);
    assert.equal(rowMatches(filter({ visitorIds: [8] }), event({ visitor_id: 9 }), 0), false);
    assert.equal(rowMatches(filter({ start: 5_000 }), event({}), 0), true, 'start is inclusive');
    assert.equal(rowMatches(filter({ start: 5_001 }), event({}), 0), false);
    assert.equal(rowMatches(filter({ start: 1_000 }), event({}), 6_000), false, 'the cutoff when later than start');
    assert.equal(rowMatches(filter({ end: 5_000 }), event({}), 0), false, 'end is exclusive');
    assert.equal(rowMatches(filter({ end: 5_001 }), event({}), 0), true);
  });
});

describe('server-sent events framing', () => {
  it('writes an event as id and one data line, a comment and a retry; a client parses them back', () => {
    const text =
      sseRetry(1000) + sseComment('stream open') + sseEvent('abc_-1', '{"details":"a\\nb"}') + sseComment('keep-alive');
    assert.equal(text, 'retry: 1000\n\n: stream open\n\nid: abc_-1\ndata: {"details":"a\\nb"}\n\n: keep-alive\n\n');
    assert.deepEqual(parseFrames(text).frames, [
      { retry: 1000 },
      { comment: 'stream open' },
      { id: 'abc_-1', data: '{"details":"a\\nb"}' },
      { comment: 'keep-alive' },
    ]);
  });

  it('refuses a field with a line break (it would end the field early), and flattens a comment', () => {
    assert.throws(() => sseEvent('a\nb', '{}'));
    assert.throws(() => sseEvent('a', '{\r}'));
    assert.equal(sseComment('one\r\ntwo'), ': one two\n\n');
  });
});

describe("a stream's final event", () => {
  it('is a named end event without an id, its data one line of JSON with the code and the detail', () => {
    const text = endEvent('TOKEN_EXPIRED');
    assert.match(text, /^event: end\ndata: \{.*\}\n\n$/);
    const [frame] = parseFrames(text).frames;
    assert.equal(frame!.id, undefined);
    assert.deepEqual(Object.keys(JSON.parse(frame!.data!)), ['code', 'detail']);
    assert.equal(JSON.parse(frame!.data!).code, 'TOKEN_EXPIRED');
    assert.throws(() => sseNamedEvent('end\nid: x', '{}'));
  });
});

describe('which stored batches concern a stream', () => {
  const account = eventFilter(1);
  it("an account stream: its account's batches, narrowed by facilityIds", () => {
    assert.equal(concerns(account, 1, 10), true);
    assert.equal(concerns(account, 2, 10), false);
    assert.equal(concerns({ ...account, facilityIds: [11] }, 1, 10), false);
    assert.equal(concerns({ ...account, facilityIds: [10, 11] }, 1, 10), true);
  });
  it("a facility stream: its facility's batches only", () => {
    const facility: EventFilter = { ...account, scope: { kind: 'facility', facilityId: 10, accountId: 1 } };
    assert.equal(concerns(facility, 1, 10), true);
    assert.equal(concerns(facility, 1, 11), false);
    assert.equal(concerns(facility, 2, 10), false);
  });
});

describe('the event-stored payload', () => {
  it('is <accountId>:<facilityId>, with the sending instance when there is one', () => {
    assert.equal(storedPayload(1, 2), '1:2');
    assert.deepEqual(parseStoredPayload('1:2'), { accountId: 1, facilityId: 2, instance: null });
    assert.deepEqual(parseStoredPayload(storedPayload(3, 4, 'abc')), { accountId: 3, facilityId: 4, instance: 'abc' });
    for (const bad of ['', '1', 'x:2', '1:-2', '1:2:a:b', '0:1']) assert.equal(parseStoredPayload(bad), null, bad);
  });
});
