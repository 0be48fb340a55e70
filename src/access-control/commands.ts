// Commands for a facility's gateway controller: written in the transaction of the change they
// carry (change.ts), numbered by a per-facility sequence, fetched by the controller (poll.ts) and
// acknowledged by its type-3 events (acknowledge.ts). Status is computed, never stored (rules.ts).
// A stored payload carries each visitor's sealed gate code; the controller receives it in clear,
// the PMS never sees it in any form.
import { type EntityId, isEntityId, isOpaqueId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import { notFound } from '../errors.ts';
import type { AccessCodeVault } from './codes.ts';
import * as repo from './command-repository.ts';
import type { CommandRow } from './command-repository.ts';
import type { CommandStatus, CommandType } from './rules.ts';

/** Commands are deleted this long after they were created (they expired long before). */
export const COMMAND_RETENTION_DAYS = 30;

/**
 * Records one command for the facility's controller, inside the caller's transaction. The
 * facility's sequence row stays locked until commit, so commands commit in sequence order.
 */
export async function addCommand(
  trx: Db,
  facilityId: EntityId,
  type: CommandType,
  payload: object,
  notifyAcrossInstances: boolean,
): Promise<{ id: string; sequence: number }> {
  const sequence = await repo.nextCommandSequence(trx, facilityId);
  const id = await repo.insertCommand(trx, { facilityId, sequence, type, payload });
  if (notifyAcrossInstances) await repo.notifyCommandWritten(trx, facilityId);
  return { id, sequence };
}

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

/** A command as the PMS sees it: gate codes left out. */
function commandView(r: CommandRow): CommandView {
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
export async function listCommands(
  db: Db,
  facilityId: EntityId,
  options: { after?: number; limit?: number; status?: CommandStatus },
): Promise<CommandView[]> {
  const rows = await repo.selectCommands(db, facilityId, {
    after: options.after ?? 0,
    limit: options.limit ?? 100,
    status: options.status,
  });
  return rows.map(commandView);
}

/** One command of the facility, gate codes left out; 404 otherwise. */
export async function getCommand(db: Db, facilityId: EntityId, commandId: string): Promise<CommandView> {
  const row = isOpaqueId(commandId) ? await repo.findCommand(db, facilityId, commandId) : undefined;
  if (!row) throw notFound('The command');
  return commandView(row);
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
export async function deliverCommands(
  db: Db,
  vault: AccessCodeVault,
  facilityId: EntityId,
  after: number,
  limit: number,
): Promise<DeliveredCommand[]> {
  const rows = await repo.selectCommandsToDeliver(db, facilityId, after, limit);
  const first = rows.filter((r) => r.delivered_at === null).map((r) => r.id);
  if (first.length > 0) await repo.markCommandsDelivered(db, first);
  return rows.map((r) => ({
    id: r.id,
    sequence: r.sequence,
    type: r.type,
    payload: revealCodes(r.payload, vault),
    createdAt: r.created_at.toISOString(),
  }));
}

/** Deletes commands created more than COMMAND_RETENTION_DAYS ago, in slices. Returns how many. */
export async function purgeOldCommands(db: Db, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - COMMAND_RETENTION_DAYS * 86_400_000);
  const slice = 5000;
  let total = 0;
  for (;;) {
    const deleted = await repo.deleteCommandsCreatedBefore(db, cutoff, slice);
    total += deleted;
    if (deleted < slice) return total;
  }
}

// ---- gate codes inside payloads ----
// A stored payload carries each visitor's sealed code (base64, bound to the visitor id) under
// `sealedAccessCode`. The controller receives `accessCode` in clear; the PMS sees neither.

/** The field of a visitor's state in a stored payload that holds its sealed code. */
const SEALED = 'sealedAccessCode';

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
    if (typeof sealed !== 'string' || !isEntityId(object.id)) return object;
    const { [SEALED]: _sealed, ...rest } = object;
    return { ...rest, accessCode: vault.unseal(object.id, Buffer.from(sealed, 'base64')) };
  });
}
