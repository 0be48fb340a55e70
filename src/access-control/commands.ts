// Commands for a facility's gateway controller: written in the transaction of the change they
// carry, numbered by a per-facility sequence, fetched by the controller (long poll), and
// acknowledged by its type-3 events. Status is computed, never stored: acknowledged ·
// expired (7 days after creation) · delivered · pending.
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { CommandType } from './rules.ts';
import type { AccessCodeVault } from './codes.ts';
import { COMMAND_CHANNEL } from './signals.ts';


export const COMMAND_LIFETIME_DAYS = 7;
/** Commands are deleted this long after they were created (they expired long before). */
export const COMMAND_RETENTION_DAYS = 30;
export const COMMAND_STATUSES = ['pending', 'delivered', 'acknowledged', 'expired'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];


/** The field of a visitor's state in a stored payload that holds its sealed code. */
const SEALED = 'sealedAccessCode';

/**
 * Takes the facility's command sequence lock now (it is held until commit). A refresh does this
 * before it reads the state: any change that commits a command before the refresh's is then in
 * the refresh's snapshot, so the full state never overwrites a newer change on the controller.
 */
export async function lockCommandSequence(trx: Db, facilityId: string): Promise<void> {
  await trx
    .insertInto('command_sequences')
    .values({ facility_id: facilityId, last_sequence: 0 })
    .onConflict((oc) => oc.column('facility_id').doUpdateSet({ last_sequence: sql`command_sequences.last_sequence` }))
    .execute();
}

/** Records one command for the facility's controller, inside the caller's transaction. */
export async function addCommand(trx: Db, facilityId: string, type: CommandType, payload: object, notifyAcrossInstances: boolean): Promise<{ id: string; sequence: number }> {
  // Takes the facility's sequence row lock until commit: commands commit in sequence order.
  const { last_sequence: sequence } = await trx
    .insertInto('command_sequences')
    .values({ facility_id: facilityId, last_sequence: 1 })
    .onConflict((oc) => oc.column('facility_id').doUpdateSet({ last_sequence: sql`command_sequences.last_sequence + 1` }))
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  const row = await trx
    .insertInto('commands')
    .values({
      facility_id: facilityId,
      sequence,
      type,
      payload: JSON.stringify(payload),
      expires_at: sql<Date>`now() + make_interval(days => ${COMMAND_LIFETIME_DAYS})`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (notifyAcrossInstances) await sql`select pg_notify(${COMMAND_CHANNEL}, ${facilityId})`.execute(trx);
  return { id: row.id, sequence };
}

const statusSql = sql<CommandStatus>`case
  when acknowledged_at is not null then 'acknowledged'
  when expires_at <= now() then 'expired'
  when delivered_at is not null then 'delivered'
  else 'pending' end`;

export interface CommandView {
  id: string;
  sequence: number;
  type: CommandType;
  payload: unknown;
  createdAt: string;
  expiresAt: string;
  status: CommandStatus;
  deliveredAt: string | null;
  acknowledgedAt: string | null;
}

interface CommandRow {
  id: string;
  sequence: number;
  type: CommandType;
  payload: unknown;
  created_at: Date;
  expires_at: Date;
  status: CommandStatus;
  delivered_at: Date | null;
  acknowledged_at: Date | null;
}

/** A command as the PMS sees it: gate codes left out. */
function toCommandView(r: CommandRow): CommandView {
  return {
    id: r.id,
    sequence: r.sequence,
    type: r.type,
    payload: withoutCodes(r.payload),
    createdAt: r.created_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    status: r.status,
    deliveredAt: r.delivered_at?.toISOString() ?? null,
    acknowledgedAt: r.acknowledged_at?.toISOString() ?? null,
  };
}

/** A facility's commands for its PMS, in sequence order, gate codes left out. */
export async function listCommands(db: Db, facilityId: string, options: { after: number; limit: number; status?: CommandStatus }): Promise<CommandView[]> {
  let query = db
    .selectFrom('commands')
    .select(['id', 'sequence', 'type', 'payload', 'created_at', 'expires_at', 'delivered_at', 'acknowledged_at', statusSql.as('status')])
    .where('facility_id', '=', facilityId)
    .where('sequence', '>', options.after)
    .orderBy('sequence')
    .limit(options.limit);
  if (options.status) query = query.where(statusSql, '=', options.status);
  const rows = await query.execute();
  return rows.map(toCommandView);
}

export async function getCommand(db: Db, facilityId: string, commandId: string): Promise<CommandView | null> {
  const rows = await db
    .selectFrom('commands')
    .select(['id', 'sequence', 'type', 'payload', 'created_at', 'expires_at', 'delivered_at', 'acknowledged_at', statusSql.as('status')])
    .where('facility_id', '=', facilityId)
    .where('id', '=', commandId)
    .execute();
  return rows[0] ? toCommandView(rows[0]) : null;
}

export interface DeliveredCommand {
  id: string;
  sequence: number;
  type: CommandType;
  payload: unknown;
  createdAt: string;
}

/**
 * The facility's unacknowledged, unexpired commands after `after`, in order, for its controller:
 * marked delivered, gate codes unsealed.
 */
export async function deliverCommands(db: Db, vault: AccessCodeVault, facilityId: string, after: number, limit: number): Promise<DeliveredCommand[]> {
  const rows = await db
    .selectFrom('commands')
    .select(['id', 'sequence', 'type', 'payload', 'created_at', 'delivered_at'])
    .where('facility_id', '=', facilityId)
    .where('sequence', '>', after)
    .where('acknowledged_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('sequence')
    .limit(limit)
    .execute();
  const first = rows.filter((r) => r.delivered_at === null).map((r) => r.id);
  if (first.length > 0) {
    await db.updateTable('commands').set({ delivered_at: sql`now()` }).where('id', 'in', first).where('delivered_at', 'is', null).execute();
  }
  return rows.map((r) => ({ id: r.id, sequence: r.sequence, type: r.type, payload: revealCodes(r.payload, vault), createdAt: r.created_at.toISOString() }));
}

/** Deletes commands created more than COMMAND_RETENTION_DAYS ago, in slices. Returns how many. */
export async function purgeOldCommands(db: Db, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - COMMAND_RETENTION_DAYS * 86_400_000);
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('commands')
      .where('id', 'in', (qb) => qb.selectFrom('commands').select('id').where('created_at', '<', cutoff).limit(5000))
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < 5000) return total;
  }
}

// ---- gate codes inside payloads ----
// A stored payload carries each visitor's sealed code (base64, bound to the visitor id) under
// `sealedAccessCode`. The controller receives `accessCode` in clear; the PMS sees neither.

export const sealedField = (sealed: Buffer) => ({ [SEALED]: sealed.toString('base64') });

function mapObjects(value: unknown, visit: (object: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => mapObjects(item, visit));
  if (value === null || typeof value !== 'object') return value;
  const mapped: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) mapped[key] = mapObjects(item, visit);
  return visit(mapped);
}

/** The payload as the PMS sees it: no gate code in any form. */
export function withoutCodes(payload: unknown): unknown {
  return mapObjects(payload, (object) => {
    if (!(SEALED in object)) return object;
    const { [SEALED]: _sealed, ...rest } = object;
    return rest;
  });
}

/** The payload as the controller receives it: each visitor's code unsealed into `accessCode`. */
export function revealCodes(payload: unknown, vault: AccessCodeVault): unknown {
  return mapObjects(payload, (object) => {
    const sealed = object[SEALED];
    if (typeof sealed !== 'string' || typeof object.id !== 'string') return object;
    const { [SEALED]: _sealed, ...rest } = object;
    return { ...rest, accessCode: vault.unseal(object.id, Buffer.from(sealed, 'base64')) };
  });
}
