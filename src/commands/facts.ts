// The command queue's published facts (SPEC §6.4, topic command.status): a command acknowledged by
// its controller (applied or failed) or expired unsettled, by the transaction that settled it
// (settled_txid, set by acknowledge.ts and retention.ts). Read below the commit horizon (src/db/horizon.ts) by whoever
// composes facts — the push face's lanes and replays; the payload is the exact body they send.
import { sql, type Selectable } from 'kysely';
import { type CommittedFact, type FactPosition, type FactsPast, ownersWithFactsAfter } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { CommandType } from './rules.ts';
import type { CommandsTable } from './tables.ts';

/** Whose facts: an account's, of some of its facilities (null: all), settled since a time (null: any). */
export interface CommandFactScope {
  accountId: EntityId;
  facilityIds: readonly EntityId[] | null;
  since: Date | null;
}

/**
 * A command.status payload, as delivered (its keys in this order; one of acknowledgedAt, failedAt
 * with failureReason, expiredAt).
 */
export interface CommandStatusPayload {
  commandId: string;
  accountId: EntityId;
  facilityId: EntityId;
  sequence: number;
  commandType: CommandType;
  status: 'acknowledged' | 'failed' | 'expired';
  createdAt: string;
  acknowledgedAt?: string;
  failedAt?: string;
  /** The controller's reason (null: none given). */
  failureReason?: string | null;
  expiredAt?: string;
}

export type CommandStatusFact = CommittedFact<CommandStatusPayload>;

type SettledRow = Pick<
  Selectable<CommandsTable>,
  | 'id'
  | 'facility_id'
  | 'sequence'
  | 'type'
  | 'created_at'
  | 'acknowledged_at'
  | 'failed_at'
  | 'failure_reason'
  | 'expires_at'
> & { txid: string | number };

type Settlement = Pick<CommandStatusPayload, 'status' | 'acknowledgedAt' | 'failedAt' | 'failureReason' | 'expiredAt'>;

/** How a settled command reads in its payload: its status and the field(s) that say when (and why), and when. */
function settlementOf(r: SettledRow): { at: Date; settlement: Settlement } {
  if (r.acknowledged_at !== null)
    return {
      at: r.acknowledged_at,
      settlement: { status: 'acknowledged', acknowledgedAt: r.acknowledged_at.toISOString() },
    };
  if (r.failed_at !== null)
    return {
      at: r.failed_at,
      settlement: { status: 'failed', failedAt: r.failed_at.toISOString(), failureReason: r.failure_reason },
    };
  return { at: r.expires_at, settlement: { status: 'expired', expiredAt: r.expires_at.toISOString() } };
}

/**
 * The account's commands settled by transactions after < txid <= upTo, in transaction order (then
 * sequence), at most `limit`.
 */
export async function commandFactsSince(
  db: Db,
  after: number,
  upTo: number,
  scope: CommandFactScope,
  limit: number,
): Promise<CommandStatusFact[]> {
  const facilities = scope.facilityIds;
  const { rows } = await sql<SettledRow>`
    select c.settled_txid as txid, c.id, c.facility_id, c.sequence, c.type, c.created_at, c.acknowledged_at,
           c.failed_at, c.failure_reason, c.expires_at
      from commands c join facilities f on f.id = c.facility_id
     where f.account_id = ${scope.accountId}::int8 and c.settled_txid > ${after}::int8 and c.settled_txid <= ${upTo}::int8
       and (${facilities}::int8[] is null or c.facility_id = any(${facilities}::int8[]))
       and (${scope.since}::timestamptz is null
            or coalesce(c.acknowledged_at, c.failed_at, c.expires_at) >= ${scope.since}::timestamptz)
     order by c.settled_txid, c.sequence
     limit ${limit}`.execute(db);
  return rows.map((r) => {
    const { at, settlement } = settlementOf(r);
    const { status, ...when } = settlement;
    return {
      txid: Number(r.txid),
      at,
      data: {
        commandId: r.id,
        accountId: scope.accountId,
        facilityId: r.facility_id,
        sequence: r.sequence,
        commandType: r.type,
        status,
        createdAt: r.created_at.toISOString(),
        ...when,
      },
    };
  });
}

/** Whether an owner (p.owner) has facts made by a transaction after p.after: asked by others without naming these tables. */
export const commandFactsPast: FactsPast = {
  ownerType: 'int8',
  exists: sql`exists (select 1 from commands c join facilities f on f.id = c.facility_id
               where f.account_id = p.owner and c.settled_txid > p.after)`,
};

/** For each (account, after): whether the account has commands settled by a transaction after it (a sweep's question). */
export function commandFactsAfter(db: Db, positions: readonly FactPosition[]): Promise<boolean[]> {
  return ownersWithFactsAfter(db, positions, commandFactsPast);
}
