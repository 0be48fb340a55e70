// The SQL of the command queue: the commands of each facility's controller and their per-facility
// sequence. What a command says is decided by its writers; when it is written, by queue.ts.
import type { EntityId } from '../ids.ts';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import { COMMAND_LIFETIME_DAYS, type CommandStatus, type CommandType } from './rules.ts';
import { COMMAND_CHANNEL } from './signals.ts';

/**
 * Takes the facility's command sequence row lock (held until commit) without moving the sequence.
 */
export async function lockCommandSequence(trx: Db, facilityId: EntityId): Promise<void> {
  await trx
    .insertInto('command_sequences')
    .values({ facility_id: facilityId, last_sequence: 0 })
    .onConflict((oc) => oc.column('facility_id').doUpdateSet({ last_sequence: sql`command_sequences.last_sequence` }))
    .execute();
}

/** The facility's next command sequence; its row lock is held until commit. */
export async function nextCommandSequence(trx: Db, facilityId: EntityId): Promise<number> {
  const row = await trx
    .insertInto('command_sequences')
    .values({ facility_id: facilityId, last_sequence: 1 })
    .onConflict((oc) =>
      oc.column('facility_id').doUpdateSet({ last_sequence: sql`command_sequences.last_sequence + 1` }),
    )
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  return row.last_sequence;
}

/** Stores one command, expiring COMMAND_LIFETIME_DAYS from now; returns its id. */
export async function insertCommand(
  trx: Db,
  command: { facilityId: EntityId; sequence: number; type: CommandType; payload: object },
): Promise<string> {
  const row = await trx
    .insertInto('commands')
    .values({
      facility_id: command.facilityId,
      sequence: command.sequence,
      type: command.type,
      payload: JSON.stringify(command.payload),
      expires_at: sql<Date>`now() + make_interval(days => ${COMMAND_LIFETIME_DAYS})`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** pg_notify for the facility's waiting polls on every instance (sent when the transaction commits). */
export async function notifyCommandWritten(trx: Db, facilityId: EntityId): Promise<void> {
  await sql`select pg_notify(${COMMAND_CHANNEL}, ${facilityId})`.execute(trx);
}

const commandStatus = sql<CommandStatus>`case
  when acknowledged_at is not null then 'acknowledged'
  when failed_at is not null then 'failed'
  when expires_at <= now() then 'expired'
  when delivered_at is not null then 'delivered'
  else 'pending' end`;

const commandWithStatus = (db: Db, facilityId: EntityId) =>
  db
    .selectFrom('commands')
    .select([
      'id',
      'sequence',
      'type',
      'payload',
      'created_at',
      'expires_at',
      'delivered_at',
      'acknowledged_at',
      'failed_at',
      'failure_reason',
      commandStatus.as('status'),
    ])
    .where('facility_id', '=', facilityId);

export type CommandRow = Awaited<ReturnType<ReturnType<typeof commandWithStatus>['executeTakeFirstOrThrow']>>;

/** The facility's commands after a sequence, in order, with their status (of one status, when given). */
export function selectCommands(
  db: Db,
  facilityId: EntityId,
  options: { after: number; limit: number; status?: CommandStatus },
): Promise<CommandRow[]> {
  let query = commandWithStatus(db, facilityId)
    .where('sequence', '>', options.after)
    .orderBy('sequence')
    .limit(options.limit);
  if (options.status) query = query.where(commandStatus, '=', options.status);
  return query.execute();
}

export function findCommand(db: Db, facilityId: EntityId, commandId: string): Promise<CommandRow | undefined> {
  return commandWithStatus(db, facilityId).where('id', '=', commandId).executeTakeFirst();
}

/** The facility's commands among the listed ids (UUIDs), with their status. */
export function selectCommandsByIds(
  db: Db,
  facilityId: EntityId,
  commandIds: readonly string[],
): Promise<CommandRow[]> {
  return commandWithStatus(db, facilityId).where('id', '=', sql<string>`any(${commandIds}::uuid[])`).execute();
}

/** The facility's newest command of a type, with its status. */
export function findNewestCommandOfType(
  db: Db,
  facilityId: EntityId,
  type: CommandType,
): Promise<CommandRow | undefined> {
  return commandWithStatus(db, facilityId)
    .where('type', '=', type)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The facility's unsettled commands after a sequence (neither acknowledged, failed nor expired), in order. */
const unsettledAfter = (db: Db, facilityId: EntityId, after: number) =>
  db
    .selectFrom('commands')
    .where('facility_id', '=', facilityId)
    .where('sequence', '>', after)
    .where('acknowledged_at', 'is', null)
    .where('failed_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('sequence');

/** What a poll delivers: the unsettled commands after a sequence, at most `limit`. */
export function selectCommandsToDeliver(db: Db, facilityId: EntityId, after: number, limit: number) {
  return unsettledAfter(db, facilityId, after)
    .select(['id', 'sequence', 'type', 'payload', 'created_at', 'delivered_at'])
    .limit(limit)
    .execute();
}

/** What a controller that applied up to a sequence has still to apply: the unsettled commands' type and payload. */
export function selectUnsettledCommandsAfter(db: Db, facilityId: EntityId, after: number) {
  return unsettledAfter(db, facilityId, after).select(['type', 'payload']).execute();
}

/** Marks the commands delivered, those not delivered before. */
export async function markCommandsDelivered(db: Db, commandIds: string[]): Promise<void> {
  await db
    .updateTable('commands')
    .set({ delivered_at: sql`now()` })
    .where('id', 'in', commandIds)
    .where('delivered_at', 'is', null)
    .execute();
}

/**
 * The statement that marks the facility's listed commands acknowledged (once; not one that failed),
 * returning their ids; `settled_txid`: the acknowledgement is a fact the push face delivers
 * (command.status), read past a lane's position by the id of the transaction that made it (migration
 * 0009). A part of a batch's statement (the ingest), or a statement of its own.
 */
export function markCommandsAcknowledged(
  facilityId: EntityId,
  commandIds: readonly string[],
): RawBuilder<{ id: string }> {
  return sql<{ id: string }>`
    update commands set acknowledged_at = now(), delivered_at = coalesce(delivered_at, now()),
                        settled_txid = pg_current_xact_id()::text::int8
     where facility_id = ${facilityId}::int8 and id = any(${commandIds}::uuid[])
       and acknowledged_at is null and failed_at is null
    returning id`;
}

/**
 * The statement that marks the facility's listed commands failed, each with its reason (once; not
 * one already acknowledged), returning their ids: a settlement like an acknowledgement (push:
 * command.status, failed). A part of a batch's statement.
 */
export function markCommandsFailed(
  facilityId: EntityId,
  failures: readonly { commandId: string; reason: string | null }[],
): RawBuilder<{ id: string }> {
  return sql<{ id: string }>`
    update commands c set failed_at = now(), failure_reason = f.reason, delivered_at = coalesce(c.delivered_at, now()),
                          settled_txid = pg_current_xact_id()::text::int8
      from unnest(${failures.map((f) => f.commandId)}::uuid[], ${failures.map((f) => f.reason)}::text[]) as f(id, reason)
     where c.facility_id = ${facilityId}::int8 and c.id = f.id and c.acknowledged_at is null and c.failed_at is null
    returning c.id`;
}

/** The statement that selects which of the listed ids are commands of the facility (whatever their status). */
export function selectCommandsOfFacility(
  facilityId: EntityId,
  commandIds: readonly string[],
): RawBuilder<{ id: string }> {
  return sql<{
    id: string;
  }>`select id from commands where facility_id = ${facilityId}::int8 and id = any(${commandIds}::uuid[])`;
}

/**
 * Records the expiry of the commands that expired unsettled (the push face's command.status
 * fact): their expiry time and the id of this transaction. Returns how many.
 */
export async function recordExpiredCommands(db: Db): Promise<number> {
  const result = await db
    .updateTable('commands')
    .set({ expiry_recorded_at: sql`now()`, settled_txid: sql`pg_current_xact_id()::text::int8` })
    .where('acknowledged_at', 'is', null)
    .where('failed_at', 'is', null)
    .where('expiry_recorded_at', 'is', null)
    .where('expires_at', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes up to `slice` commands created before the cutoff; returns how many. */
export async function deleteCommandsCreatedBefore(db: Db, cutoff: Date, slice: number): Promise<number> {
  const result = await db
    .deleteFrom('commands')
    .where('id', 'in', (qb) => qb.selectFrom('commands').select('id').where('created_at', '<', cutoff).limit(slice))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
