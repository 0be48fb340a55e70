// The one table of auction transitions (SPEC.md §3.3). Every change of an auction's status goes
// through `transition()`, and every change writes a history row with time, actor and reason.
import type { AuctionStatus } from './model.ts';

export type Trigger =
  /** A full list creates an auction that can be posted. */
  | 'create'
  /** A full list creates an auction that must wait for support (charity not enrolled, incomplete). */
  | 'hold'
  /** Support changed the type, completed the record, or the facility enrolled in the charity programme. */
  | 'activate'
  /** Support changed a Pending auction that still cannot be posted. */
  | 'amend'
  /** A cancel request (partner) or support's cancel. */
  | 'cancel'
  /** The unit is absent from a full list. */
  | 'withdraw'
  /** The marketplace reported a sale. */
  | 'reportSale'
  /** endsAt passed with no sale reported. */
  | 'endUnsold';

export interface Transition {
  from: AuctionStatus | null;
  trigger: Trigger;
  to: AuctionStatus;
}

export const TRANSITIONS: readonly Transition[] = [
  { from: null, trigger: 'create', to: 'Active' },
  { from: null, trigger: 'hold', to: 'Pending' },
  { from: 'Pending', trigger: 'activate', to: 'Active' },
  { from: 'Pending', trigger: 'amend', to: 'Pending' },
  { from: 'Pending', trigger: 'cancel', to: 'Cancelled' },
  { from: 'Active', trigger: 'cancel', to: 'Cancelled' },
  { from: 'Pending', trigger: 'withdraw', to: 'Cancelled' },
  { from: 'Active', trigger: 'withdraw', to: 'Cancelled' },
  { from: 'Active', trigger: 'reportSale', to: 'ClosedSold' },
  { from: 'Active', trigger: 'endUnsold', to: 'ClosedUnsold' },
];

export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  constructor(
    readonly from: AuctionStatus | null,
    readonly trigger: Trigger,
  ) {
    super(`an auction that is ${from ?? 'new'} cannot ${trigger}`);
  }
}

/** The status after `trigger` from `from`, or null when the table has no such transition. */
export function nextStatus(from: AuctionStatus | null, trigger: Trigger): AuctionStatus | null {
  return TRANSITIONS.find((t) => t.from === from && t.trigger === trigger)?.to ?? null;
}

/** The status after `trigger`; throws when the table has no such transition. */
export function transition(from: AuctionStatus | null, trigger: Trigger): AuctionStatus {
  const to = nextStatus(from, trigger);
  if (to === null) throw new IllegalTransitionError(from, trigger);
  return to;
}

/** The statuses from which `trigger` applies: what a conditional UPDATE may match. */
export function statusesAllowing(trigger: Trigger): AuctionStatus[] {
  return TRANSITIONS.filter((t) => t.trigger === trigger && t.from !== null).map((t) => t.from as AuctionStatus);
}

/** The status `trigger` leads to (every trigger leads to one status). */
export function targetOf(trigger: Trigger): AuctionStatus {
  const t = TRANSITIONS.find((x) => x.trigger === trigger);
  if (!t) throw new Error(`unknown trigger ${trigger}`);
  return t.to;
}

/** True when a history (oldest first) is a path through the table that starts with a new auction. */
export function isValidHistory(
  steps: readonly { from: AuctionStatus | null; to: AuctionStatus; trigger: Trigger }[],
): boolean {
  let current: AuctionStatus | null = null;
  for (const step of steps) {
    if (step.from !== current || nextStatus(current, step.trigger) !== step.to) return false;
    current = step.to;
  }
  return steps.length > 0;
}
