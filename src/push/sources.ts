// What a lane reads, composed from the facts their owners publish (each face's `facts` reader,
// handed to createPush by the composition root): the events (src/events/facts.ts: slices of the
// cursor walk), command settlements (src/commands/facts.ts), facility status changes
// (src/facility-status/facts.ts) and auction status changes (src/auctions/facts.ts). Push queries
// none of their tables: it keeps the lanes, their positions and the deliveries. Every read is
// bounded by the commit horizon (src/db/horizon.ts): a fact read now is never followed by one that
// commits below it. Facts other than events come in the order of the transactions that made them.
import type { AuctionFactScope, AuctionStatusFact, AuctionStatusPayload } from '../auctions/index.ts';
import type { CommandFactScope, CommandStatusFact, CommandStatusPayload } from '../commands/index.ts';
import type { EventFacts, EventPosition, EventSelection } from '../events/index.ts';
import type { FacilityStatusFact, FacilityStatusFactScope, FacilityStatusPayload } from '../facility-status/index.ts';
import type { FactPosition } from '../db/horizon.ts';
import type { EntityId } from '../ids.ts';
import type { SubscriptionRow, SweptLane } from './repository.ts';
import { LIMITS, type Topic } from './rules.ts';

/** An owner's reader of its facts: those made by transactions after < txid <= upTo, in that order, at most `limit`. */
interface FactReader<Scope, Fact, Position> {
  factsSince(after: number, upTo: number, scope: Scope, limit: number): Promise<Fact[]>;
  /** For each position: whether facts were made after it (the sweep's question). */
  factsAfter(positions: readonly Position[]): Promise<boolean[]>;
}

/** The owners' readers a lane composes. */
export interface PushFacts {
  commands: FactReader<CommandFactScope, CommandStatusFact, FactPosition>;
  facilityStatus: FactReader<FacilityStatusFactScope, FacilityStatusFact, FactPosition>;
  auctions: FactReader<AuctionFactScope, AuctionStatusFact, FactPosition>;
  events: EventFacts;
}

/** The events a subscription selects: its account's, of its facilities and types. */
export const eventSelection = (
  s: Pick<SubscriptionRow, 'account_id' | 'event_types' | 'facility_ids'>,
): EventSelection => ({
  accountId: s.account_id!,
  facilityIds: s.facility_ids,
  eventTypes: s.event_types,
});

/** Where the lane stands in the walk of its events. */
export const eventPosition = (
  s: Pick<SubscriptionRow, 'events_lo' | 'events_hi' | 'events_after_ms' | 'events_after_seq'>,
): EventPosition => ({
  lo: s.events_lo,
  hi: s.events_hi,
  after: s.events_after_ms === null ? null : { occurredAt: s.events_after_ms, seq: s.events_after_seq! },
});

/** A fact other than an event, ready to deliver: its type, its time, its data (the owner's payload). */
export type Fact =
  | { txid: number; type: 'command.status'; at: Date; data: CommandStatusPayload }
  | { txid: number; type: 'facility.status'; at: Date; data: FacilityStatusPayload }
  | { txid: number; type: 'auction.status'; at: Date; data: AuctionStatusPayload };

/**
 * The lane's facts with facts_txid < txid <= horizon (at most about LIMITS.factsPerFill, whole
 * transactions only), in transaction order, and the position after them.
 */
export async function nextFacts(
  facts: PushFacts,
  s: SubscriptionRow,
  horizon: number,
): Promise<{ facts: Fact[]; txid: number }> {
  if (horizon <= s.facts_txid) return { facts: [], txid: s.facts_txid };
  const read = (await readFacts(facts, s, s.facts_txid, horizon, LIMITS.factsPerFill + 1)).sort(
    (a, b) => a.txid - b.txid,
  );
  if (read.length <= LIMITS.factsPerFill) return { facts: read, txid: horizon };
  // More than a fill takes: stop before the last transaction read (it may have more facts), unless it is the only one.
  const lastTxid = read[read.length - 1]!.txid;
  const whole = read.filter((f) => f.txid < lastTxid);
  if (whole.length === 0) return { facts: read, txid: lastTxid };
  return { facts: whole, txid: whole[whole.length - 1]!.txid };
}

/** Facts of the subscription's topics in (after, upTo] (by transaction), or since a time for a replay. */
export async function readFacts(
  facts: PushFacts,
  s: Pick<SubscriptionRow, 'account_id' | 'application_id' | 'topics' | 'facility_ids'>,
  after: number,
  upTo: number,
  limit: number,
  since: Date | null = null,
): Promise<Fact[]> {
  const read: Fact[] = [];
  const has = (topic: Topic) => s.topics.includes(topic);
  const facilityIds = s.facility_ids;
  if (s.account_id !== null && has('command.status')) {
    const scope = { accountId: s.account_id, facilityIds, since };
    for (const fact of await facts.commands.factsSince(after, upTo, scope, limit))
      read.push({ ...fact, type: 'command.status' });
  }
  if (s.account_id !== null && has('facility.status')) {
    const scope = { accountId: s.account_id, facilityIds, since };
    for (const fact of await facts.facilityStatus.factsSince(after, upTo, scope, limit))
      read.push({ ...fact, type: 'facility.status' });
  }
  if (s.application_id !== null && has('auction.status')) {
    const scope = { applicationId: s.application_id, facilityIds, since };
    for (const fact of await facts.auctions.factsSince(after, upTo, scope, limit))
      read.push({ ...fact, type: 'auction.status' });
  }
  return read;
}

/**
 * The lanes with work, at most `limit`, retries first by when they are due: a retry due (or a lane
 * left part-way), or facts of their topics past their positions — each owner asked once for all the
 * lanes of its topic.
 */
export async function dueLanes(facts: PushFacts, lanes: readonly SweptLane[], limit: number): Promise<EntityId[]> {
  const due = new Set(lanes.filter((l) => l.retry_due).map((l) => l.id));
  const ask = async <P>(
    topic: Topic,
    owner: (l: SweptLane) => boolean,
    position: (l: SweptLane) => P,
    reader: { factsAfter(positions: readonly P[]): Promise<boolean[]> },
  ) => {
    const asked = lanes.filter((l) => !due.has(l.id) && owner(l) && l.topics.includes(topic));
    if (asked.length === 0) return;
    const found = await reader.factsAfter(asked.map(position));
    asked.forEach((l, i) => {
      if (found[i]) due.add(l.id);
    });
  };
  const account = (l: SweptLane) => l.account_id !== null;
  await ask('gateway.events', account, (l) => ({ owner: l.account_id!, after: l.events_hi }), facts.events);
  await ask('command.status', account, (l) => ({ owner: l.account_id!, after: l.facts_txid }), facts.commands);
  await ask('facility.status', account, (l) => ({ owner: l.account_id!, after: l.facts_txid }), facts.facilityStatus);
  await ask(
    'auction.status',
    (l) => l.application_id !== null,
    (l) => ({ owner: l.application_id!, after: l.facts_txid }),
    facts.auctions,
  );
  const at = (l: SweptLane) => l.next_attempt_at?.getTime() ?? Number.POSITIVE_INFINITY;
  return lanes
    .filter((l) => due.has(l.id))
    .sort((a, b) => at(a) - at(b) || a.id - b.id)
    .slice(0, limit)
    .map((l) => l.id);
}
