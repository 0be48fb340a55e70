// The PMS's reads of the command queue (GET /facilities/{facilityId}/commands…): what the
// facility's controller was told, with the status of each, gate codes left out.
import { notFound } from '../errors.ts';
import { type EntityId, isOpaqueId } from '../ids.ts';
import type { CommandsDeps } from './deps.ts';
import * as repo from './repository.ts';
import type { CommandRow } from './repository.ts';
import { type CommandStatus, type CommandType, withoutCodes } from './rules.ts';

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
  /** When the controller acknowledged it as failed, and its reason (null: none given). */
  failedAt: string | null;
  failureReason: string | null;
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
    failedAt: r.failed_at?.toISOString() ?? null,
    failureReason: r.failure_reason,
  };
}

/** A facility's commands for its PMS, in sequence order, gate codes left out. */
export async function listCommands(
  { db }: Pick<CommandsDeps, 'db'>,
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
export async function getCommand(
  { db }: Pick<CommandsDeps, 'db'>,
  facilityId: EntityId,
  commandId: string,
): Promise<CommandView> {
  const row = isOpaqueId(commandId) ? await repo.findCommand(db, facilityId, commandId) : undefined;
  if (!row) throw notFound('The command');
  return commandView(row);
}

/** The facility's commands among the listed ids (others' and unknown ones left out), gate codes left out. */
export async function findCommands(
  { db }: Pick<CommandsDeps, 'db'>,
  facilityId: EntityId,
  commandIds: readonly string[],
): Promise<CommandView[]> {
  const ids = commandIds.filter((id) => isOpaqueId(id));
  if (ids.length === 0) return [];
  return (await repo.selectCommandsByIds(db, facilityId, ids)).map(commandView);
}
