// The auction face's published facts (SPEC §6.4, topic auction.status): a change of an auction's
// status, as its history records it with the transaction that recorded it (auction_history.txid).
// Read below the commit horizon (src/db/horizon.ts) by whoever composes facts — the push face's
// lanes and replays; the payload is the exact body they send. A partner application is told of the
// auctions of the facilities it serves (applications.facility_guids).
import { sql, type Selectable } from 'kysely';
import { type CommittedFact, type FactPosition, type FactsPast, ownersWithFactsAfter } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { AuctionHistoryTable, AuctionsTable } from './tables.ts';

/** Whose facts: a partner application's, of some facilities (null: all it serves), changed since a time (null: any). */
export interface AuctionFactScope {
  applicationId: string;
  facilityIds: readonly EntityId[] | null;
  since: Date | null;
}

type Auction = Selectable<AuctionsTable>;
type HistoryEntry = Selectable<AuctionHistoryTable>;

/** An auction.status payload, as delivered (its keys in this order; `sale` only when sold). */
export interface AuctionStatusPayload {
  auctionId: string;
  facilityId: EntityId;
  guid: string;
  unitId: string;
  unitName: string;
  auctionType: string;
  previousStatus: string | null;
  status: string;
  trigger: string;
  reason: string;
  note: string | null;
  sale: Auction['sale'] | undefined;
  changedAt: string;
}

export type AuctionStatusFact = CommittedFact<AuctionStatusPayload>;

type ChangeRow = Pick<HistoryEntry, 'auction_id' | 'from_status' | 'to_status' | 'trigger' | 'reason' | 'note' | 'at'> &
  Pick<Auction, 'facility_id' | 'unit_id' | 'unit_name' | 'auction_type' | 'sale'> & {
    txid: string | number;
    guid: string;
  };

/**
 * The status changes of the application's auctions recorded by transactions after < txid <= upTo,
 * in transaction order, at most `limit`.
 */
export async function auctionFactsSince(
  db: Db,
  after: number,
  upTo: number,
  scope: AuctionFactScope,
  limit: number,
): Promise<AuctionStatusFact[]> {
  const facilities = scope.facilityIds;
  const { rows } = await sql<ChangeRow>`
    select h.txid, h.auction_id, a.facility_id, f.guid, a.unit_id, a.unit_name, a.auction_type,
           h.from_status, h.to_status, h.trigger, h.reason, h.note, h.at, a.sale
      from auction_history h
      join auctions a on a.id = h.auction_id
      join facilities f on f.id = a.facility_id
      join applications ap on ap.id = ${scope.applicationId}::uuid
     where h.txid > ${after}::int8 and h.txid <= ${upTo}::int8 and f.guid = any(ap.facility_guids)
       and (${facilities}::int8[] is null or a.facility_id = any(${facilities}::int8[]))
       and (${scope.since}::timestamptz is null or h.at >= ${scope.since}::timestamptz)
     order by h.txid, h.id
     limit ${limit}`.execute(db);
  return rows.map((r) => ({
    txid: Number(r.txid),
    at: r.at,
    data: {
      auctionId: r.auction_id,
      facilityId: r.facility_id,
      guid: r.guid,
      unitId: r.unit_id,
      unitName: r.unit_name,
      auctionType: r.auction_type,
      previousStatus: r.from_status,
      status: r.to_status,
      trigger: r.trigger,
      reason: r.reason,
      note: r.note,
      sale: r.to_status === 'ClosedSold' ? r.sale : undefined,
      changedAt: r.at.toISOString(),
    },
  }));
}

/** Whether an owner (p.owner) has facts made by a transaction after p.after: asked by others without naming these tables. */
export const auctionFactsPast: FactsPast = {
  ownerType: 'uuid',
  exists: sql`exists (select 1 from auction_history h join auctions a on a.id = h.auction_id
                join facilities f on f.id = a.facility_id join applications ap on ap.id = p.owner
               where h.txid > p.after and f.guid = any(ap.facility_guids))`,
};

/** For each (application, after): whether its auctions have history recorded by a transaction after it (a sweep's question). */
export function auctionFactsAfter(db: Db, positions: readonly FactPosition[]): Promise<boolean[]> {
  return ownersWithFactsAfter(db, positions, auctionFactsPast);
}
