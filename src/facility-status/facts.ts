// The facility-status face's published facts (SPEC §6.4, topic facility.status): a change of a
// facility's status component, as recorded by status-changes.ts with the transaction that recorded
// it (txid). Read below the commit horizon (src/db/horizon.ts) by whoever composes facts — the push
// face's lanes and replays; the payload is the exact body they send.
import { sql, type Selectable } from 'kysely';
import { type CommittedFact, type FactPosition, type FactsPast, ownersWithFactsAfter } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { FacilityStatusChangesTable } from './tables.ts';

/** Whose facts: an account's, of some of its facilities (null: all), changed since a time (null: any). */
export interface FacilityStatusFactScope {
  accountId: EntityId;
  facilityIds: readonly EntityId[] | null;
  since: Date | null;
}

/** A facility.status payload, as delivered (its keys in this order). */
export interface FacilityStatusPayload {
  accountId: EntityId;
  facilityId: EntityId;
  component: string;
  previousStatus: string | null;
  status: string;
  message: string;
  changedAt: string;
}

export type FacilityStatusFact = CommittedFact<FacilityStatusPayload>;

type ChangeRow = Omit<Selectable<FacilityStatusChangesTable>, 'account_id' | 'txid'> & { txid: string | number };

/** The account's status changes recorded by transactions after < txid <= upTo, in transaction order, at most `limit`. */
export async function facilityStatusFactsSince(
  db: Db,
  after: number,
  upTo: number,
  scope: FacilityStatusFactScope,
  limit: number,
): Promise<FacilityStatusFact[]> {
  const facilities = scope.facilityIds;
  const { rows } = await sql<ChangeRow>`
    select txid, id, facility_id, component, previous_status, status, message, changed_at
      from facility_status_changes
     where account_id = ${scope.accountId}::int8 and txid > ${after}::int8 and txid <= ${upTo}::int8
       and (${facilities}::int8[] is null or facility_id = any(${facilities}::int8[]))
       and (${scope.since}::timestamptz is null or changed_at >= ${scope.since}::timestamptz)
     order by txid, id
     limit ${limit}`.execute(db);
  return rows.map((r) => ({
    txid: Number(r.txid),
    at: r.changed_at,
    data: {
      accountId: scope.accountId,
      facilityId: r.facility_id,
      component: r.component,
      previousStatus: r.previous_status,
      status: r.status,
      message: r.message,
      changedAt: r.changed_at.toISOString(),
    },
  }));
}

/** Whether an owner (p.owner) has facts made by a transaction after p.after: asked by others without naming these tables. */
export const facilityStatusFactsPast: FactsPast = {
  ownerType: 'int8',
  exists: sql`exists (select 1 from facility_status_changes x where x.account_id = p.owner and x.txid > p.after)`,
};

/** For each (account, after): whether the account has status changes recorded by a transaction after it (a sweep's question). */
export function facilityStatusFactsAfter(db: Db, positions: readonly FactPosition[]): Promise<boolean[]> {
  return ownersWithFactsAfter(db, positions, facilityStatusFactsPast);
}
