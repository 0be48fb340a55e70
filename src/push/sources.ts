// What a lane reads, composed from the facts their owners publish (each face's `facts` reader,
// handed to createPush by the composition root): the events (src/events/facts.ts: slices of the
// cursor walk), command settlements (src/commands/facts.ts), facility status changes
// (src/facility-status/facts.ts), drifts found and healed (src/drift/facts.ts) and auction status changes (src/auctions/facts.ts). Push queries
// none of their tables: it keeps the lanes, their positions and the deliveries. Every read is
// bounded by the commit horizon (src/db/horizon.ts): a fact read now is never followed by one that
// commits below it. Facts other than events come in the order of the transactions that made them.
import type { AuctionFactScope, AuctionStatusFact, AuctionStatusPayload } from '../auctions/index.ts';
import type { CommandFactScope, CommandStatusFact, CommandStatusPayload } from '../commands/index.ts';
import type { DeliveredEvent, EventFacts, EventPosition, EventSelection } from '../events/index.ts';
import type { DriftFact, DriftFactScope, DriftPayload } from '../drift/index.ts';
import type { FacilityStatusFact, FacilityStatusFactScope, FacilityStatusPayload } from '../facility-status/index.ts';
import { type FactPosition, type FactsPast, horizonWithFactsAfter } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { SubscriptionRow, SweptLane } from './repository.ts';
import { LIMITS, type Topic } from './rules.ts';

/** An owner's reader of its facts: those made by transactions after < txid <= upTo, in that order, at most `limit`. */
interface FactReader<Scope, Fact, Position> {
  factsSince(after: number, upTo: number, scope: Scope, limit: number): Promise<Fact[]>;
  /** For each position: whether facts were made after it (the sweep's question). */
  factsAfter(positions: readonly Position[]): Promise<boolean[]>;
  /** The same question as the owner's SQL, for a statement that asks it with others (a lane's horizon read). */
  past: FactsPast;
}

/** The owners' readers a lane composes. */
export interface PushFacts {
  commands: FactReader<CommandFactScope, CommandStatusFact, FactPosition>;
  facilityStatus: FactReader<FacilityStatusFactScope, FacilityStatusFact, FactPosition>;
  drift: FactReader<DriftFactScope, DriftFact, FactPosition>;
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
  | { txid: number; type: 'facility.drift'; at: Date; data: DriftPayload }
  | { txid: number; type: 'auction.status'; at: Date; data: AuctionStatusPayload };

/** The topics of facts other than events (read by factsSince, in transaction order). */
type FactTopic = Exclude<Topic, 'gateway.events'>;
const FACT_TOPICS: readonly FactTopic[] = ['command.status', 'facility.status', 'facility.drift', 'auction.status'];

/** Where a lane reads: the horizon, and which of its fact topics may have facts past its position (the others have none up to the horizon). */
export interface LaneHorizon {
  hi: number;
  facts: ReadonlySet<FactTopic>;
}

/**
 * The lanes' horizon reads, shared: a lane asks for the horizon and which of its fact topics have
 * facts past its position; every lane that asks before the read begins (lanes woken by the same
 * gathering tick ask within one turn of the event loop) joins one statement — the horizon and each
 * owner's `exists` for every position asked (db/horizon.ts) — so lanes in step make one read a
 * tick, and a lane whose owners have nothing new reads none of their facts. A read already under
 * way is never joined: it may have begun before the commit the lane was woken for.
 */
export function createLaneReads(db: Db, facts: PushFacts) {
  const pasts: Record<FactTopic, FactsPast> = {
    'command.status': facts.commands.past,
    'facility.status': facts.facilityStatus.past,
    'facility.drift': facts.drift.past,
    'auction.status': facts.auctions.past,
  };
  type Ask = { s: SubscriptionRow; resolve: (h: LaneHorizon) => void; reject: (e: unknown) => void };
  let gathering: Ask[] | null = null;
  let reads = 0;

  const read = async (asks: Ask[]) => {
    reads++;
    // Each topic's positions, and for each ask where its own are.
    const positions = new Map<FactTopic, FactPosition[]>(FACT_TOPICS.map((t) => [t, []]));
    const where = asks.map((ask) => {
      const at = new Map<FactTopic, number>();
      for (const topic of factTopicsOf(ask.s)) {
        const list = positions.get(topic)!;
        at.set(topic, list.length);
        list.push({
          owner: topic === 'auction.status' ? ask.s.application_id! : ask.s.account_id!,
          after: ask.s.facts_txid,
        });
      }
      return at;
    });
    const asked = FACT_TOPICS.filter((t) => positions.get(t)!.length > 0);
    try {
      const { hi, found } = await horizonWithFactsAfter(
        db,
        asked.map((t) => ({ past: pasts[t], positions: positions.get(t)! })),
      );
      asks.forEach((ask, i) => {
        const withFacts = new Set<FactTopic>();
        for (const [topic, index] of where[i]!) if (found[asked.indexOf(topic)]![index]) withFacts.add(topic);
        ask.resolve({ hi, facts: withFacts });
      });
    } catch (error) {
      for (const ask of asks) ask.reject(error);
    }
  };

  // The events' data as JSON, by the events array a shared slice read returned (the same for every lane in step).
  const rendered = new WeakMap<readonly DeliveredEvent[], string>();

  return {
    /** A gateway.events delivery's data, `{"events":[…]}`, rendered once per slice read. */
    eventsData(events: readonly DeliveredEvent[]): string {
      let json = rendered.get(events);
      if (json === undefined) {
        json = JSON.stringify({ events });
        rendered.set(events, json);
      }
      return json;
    },
    horizon(s: SubscriptionRow): Promise<LaneHorizon> {
      return new Promise((resolve, reject) => {
        if (!gathering) {
          const asks: Ask[] = [];
          gathering = asks;
          setImmediate(() => {
            gathering = null;
            void read(asks);
          });
        }
        gathering.push({ s, resolve, reject });
      });
    },
    /** The statements made so far (tests). */
    get reads() {
      return reads;
    },
  };
}

export type LaneReads = ReturnType<typeof createLaneReads>;

/** The fact topics (other than events) a subscription's owner can have facts of. */
function factTopicsOf(s: Pick<SubscriptionRow, 'topics' | 'account_id' | 'application_id'>): FactTopic[] {
  return FACT_TOPICS.filter(
    (t) => s.topics.includes(t) && (t === 'auction.status' ? s.application_id !== null : s.account_id !== null),
  );
}

/**
 * The lane's facts with facts_txid < txid <= horizon (at most about LIMITS.factsPerFill, whole
 * transactions only), in transaction order, and the position after them. Only the topics the
 * horizon read found facts of are read.
 */
export async function nextFacts(
  facts: PushFacts,
  s: SubscriptionRow,
  horizon: LaneHorizon,
): Promise<{ facts: Fact[]; txid: number }> {
  if (horizon.hi <= s.facts_txid) return { facts: [], txid: s.facts_txid };
  if (horizon.facts.size === 0) return { facts: [], txid: horizon.hi };
  const read = (await readFacts(facts, s, s.facts_txid, horizon.hi, LIMITS.factsPerFill + 1, null, horizon.facts)).sort(
    (a, b) => a.txid - b.txid,
  );
  if (read.length <= LIMITS.factsPerFill) return { facts: read, txid: horizon.hi };
  // More than a fill takes: stop before the last transaction read (it may have more facts), unless it is the only one.
  const lastTxid = read[read.length - 1]!.txid;
  const whole = read.filter((f) => f.txid < lastTxid);
  if (whole.length === 0) return { facts: read, txid: lastTxid };
  return { facts: whole, txid: whole[whole.length - 1]!.txid };
}

/** Facts of the subscription's topics (of `only` of them) in (after, upTo] (by transaction), or since a time for a replay. */
export async function readFacts(
  facts: PushFacts,
  s: Pick<SubscriptionRow, 'account_id' | 'application_id' | 'topics' | 'facility_ids'>,
  after: number,
  upTo: number,
  limit: number,
  since: Date | null = null,
  only: ReadonlySet<Topic> | null = null,
): Promise<Fact[]> {
  const read: Fact[] = [];
  const has = (topic: Topic) => s.topics.includes(topic) && (only === null || only.has(topic));
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
  if (s.account_id !== null && has('facility.drift')) {
    const scope = { accountId: s.account_id, facilityIds, since };
    for (const fact of await facts.drift.factsSince(after, upTo, scope, limit))
      read.push({ ...fact, type: 'facility.drift' });
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
  await ask('facility.drift', account, (l) => ({ owner: l.account_id!, after: l.facts_txid }), facts.drift);
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
