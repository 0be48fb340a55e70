// The tail of a cursor walk, pure: the rules by which the live stream (routes/stream.ts) and webhook
// delivery follow the events as they are stored. A tail is the same walk as a page cursor's
// (cursor.ts): phases of transaction ids lo < txid <= hi, each bounded by a horizon and read in
// (occurredAt, seq) order, ascending, so its positions are ordinary cursors of the filter with
// sort=asc. Only where it starts and how it moves from phase to phase differ:
// - it starts at the horizon, with an empty phase (hi, hi]: nothing stored before, everything after;
//   or, given `since`, with the phase (0, hi] positioned just before `since` (every retained event
//   that occurred since, then everything stored later, late events with an old occurredAt included);
// - a phase read to its end becomes the empty phase at its top (hi, hi], which costs no read: the
//   next step asks only whether the horizon has moved.
import type { CursorState } from './cursor.ts';

type Position = Pick<CursorState, 'lo' | 'hi' | 'after'>;

/** Where a tail begins: see the file's comment. `hi` is the horizon when it began. */
export function tailStartState(fingerprint: Buffer, hi: number, since?: number): CursorState {
  // seq is never 0 (a sequence starts at 1): (occurredAt, seq) > (since, 0) ⇔ occurredAt >= since.
  const position: Position =
    since === undefined ? { lo: hi, hi, after: null } : { lo: 0, hi, after: { occurredAt: since, seq: 0 } };
  return { fingerprint, ...position, pageNumber: 1, total: 0 };
}

/** The position right after an event the phase returned. */
export const stateAfter = (state: CursorState, row: { occurred_ms: number; seq: number }): CursorState => ({
  ...state,
  after: { occurredAt: Number(row.occurred_ms), seq: Number(row.seq) },
});

/** A phase read to its end: the empty phase at its top (the same position, and nothing left to read). */
export const exhausted = (state: CursorState): CursorState => ({ ...state, lo: state.hi, after: null });

/** Whether the phase may still hold events (an empty phase (hi, hi] holds none). */
export const hasPhaseLeft = (state: CursorState): boolean => state.lo < state.hi;

/** The phase of what committed since this one's top, when the horizon has passed it; else null. */
export function nextPhase(state: CursorState, horizon: number): CursorState | null {
  if (horizon <= state.hi) return null;
  return { ...state, lo: state.hi, hi: horizon, after: null };
}

/**
 * A caught-up tail's share of the rows its account's caught-up tails read together (store.ts): the
 * account's rows of (lo, horizon] for the smallest lo among them, in (occurredAt, seq) order —
 * `complete`, or cut after the last of `rows`. `state` is the tail's empty phase (hi, hi]: its new
 * phase is (hi, horizon], and its events are the rows above its hi that `matches` keeps, at most
 * `limit`. The state it ends in is
 * - the empty phase at the horizon, when it took every event of a complete read (caught up again);
 * - its phase, positioned after its last event, when it took `limit` (the phase may hold more);
 * - its phase, positioned after the last row read, when the read was cut short: what the read held
 *   of its phase is behind it, the rest is for its own reads.
 * A horizon at or below its hi: nothing new, the state as it was.
 */
export function shareOfPhase<Row extends { occurred_ms: number; seq: number; txid: number }>(
  state: CursorState,
  horizon: number,
  rows: readonly Row[],
  complete: boolean,
  matches: (row: Row) => boolean,
  limit: number,
): { events: { row: Row; state: CursorState }[]; state: CursorState } {
  const events: { row: Row; state: CursorState }[] = [];
  let phase = nextPhase(state, horizon);
  if (!phase) return { events, state };
  for (const row of rows) {
    if (row.txid <= phase.lo || !matches(row)) continue;
    if (events.length === limit) return { events, state: phase };
    phase = stateAfter(phase, row);
    events.push({ row, state: phase });
  }
  if (complete) return { events, state: exhausted(phase) };
  const last = rows[rows.length - 1];
  return { events, state: last ? stateAfter(phase, last) : phase };
}
