// The drift face's published facts (SPEC §6.4, topic facility.drift): a drift found or healed, by the
// transaction that recorded it (found_txid, healed_txid). Read below the commit horizon
// (src/db/horizon.ts) by whoever composes facts — the push face's lanes and replays; the payload is
// the exact body they send.
import { sql } from 'kysely';
import { type CommittedFact, type FactPosition, type FactsPast, ownersWithFactsAfter } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { DriftItem } from './rules.ts';

/** Whose facts: an account's, of some of its facilities (null: all), made since a time (null: any). */
export interface DriftFactScope {
  accountId: EntityId;
  facilityIds: readonly EntityId[] | null;
  since: Date | null;
}

/** A facility.drift payload, as delivered (its keys in this order; healedAt only when healed). */
export interface DriftPayload {
  driftId: string;
  accountId: EntityId;
  facilityId: EntityId;
  status: 'found' | 'healed';
  foundAt: string;
  healedAt?: string;
  corrections: number;
  items: DriftItem[];
}

export type DriftFact = CommittedFact<DriftPayload>;

type Row = {
  txid: string | number;
  status: 'found' | 'healed';
  id: string;
  facility_id: EntityId;
  found_at: Date;
  healed_at: Date | null;
  corrections: number;
  items: DriftItem[];
};

/** The account's drifts found or healed by transactions after < txid <= upTo, in transaction order, at most `limit`. */
export async function driftFactsSince(
  db: Db,
  after: number,
  upTo: number,
  scope: DriftFactScope,
  limit: number,
): Promise<DriftFact[]> {
  const facilities = scope.facilityIds;
  const { rows } = await sql<Row>`
    select x.txid, x.status, d.id, d.facility_id, d.found_at, d.healed_at, d.corrections, d.items
      from drifts d join facilities f on f.id = d.facility_id
     cross join lateral (values (d.found_txid, 'found'), (d.healed_txid, 'healed')) as x (txid, status)
     where f.account_id = ${scope.accountId}::int8 and x.txid > ${after}::int8 and x.txid <= ${upTo}::int8
       and (${facilities}::int8[] is null or d.facility_id = any(${facilities}::int8[]))
       and (${scope.since}::timestamptz is null
            or (case x.status when 'found' then d.found_at else d.healed_at end) >= ${scope.since}::timestamptz)
     order by x.txid, d.found_at
     limit ${limit}`.execute(db);
  return rows.map((r) => {
    const healed = r.status === 'healed';
    const at = healed ? r.healed_at! : r.found_at;
    return {
      txid: Number(r.txid),
      at,
      data: {
        driftId: r.id,
        accountId: scope.accountId,
        facilityId: r.facility_id,
        status: r.status,
        foundAt: r.found_at.toISOString(),
        ...(healed ? { healedAt: r.healed_at!.toISOString() } : {}),
        corrections: r.corrections,
        items: r.items,
      },
    };
  });
}

/** Whether an owner (p.owner) has drift facts made by a transaction after p.after. */
export const driftFactsPast: FactsPast = {
  ownerType: 'int8',
  exists: sql`exists (select 1 from drifts d join facilities f on f.id = d.facility_id
               where f.account_id = p.owner and (d.found_txid > p.after or d.healed_txid > p.after))`,
};

/** For each (account, after): whether the account has drift facts after it (a sweep's question). */
export function driftFactsAfter(db: Db, positions: readonly FactPosition[]): Promise<boolean[]> {
  return ownersWithFactsAfter(db, positions, driftFactsPast);
}
