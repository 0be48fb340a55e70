// A facility's action groups (SPEC §4.1): what a remote open, hold or close runs on the controller
// (a gate, a set of doors). A PMS lists the manual ones and runs them — each run a command to the
// controller, acknowledged like every other (event 3), and recorded (remote-actions.ts); the operator lists and adds them (the admin
// routes, `gatehouse admin action-group …`).
import type { Db } from '../db/tables.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import { facilityExists } from '../tenancy/index.ts';
import type { FacilityStatusDeps } from './deps.ts';
import { type RemoteActionAnswer, type RemoteActionRequest, recordRemoteAction } from './remote-actions.ts';
import * as repo from './repository.ts';
import type { CommandRef } from './switches.ts';

export interface ActionGroupView {
  id: EntityId;
  name: string;
}

export async function listManualActionGroups(
  { db }: Pick<FacilityStatusDeps, 'db'>,
  facilityId: EntityId,
): Promise<ActionGroupView[]> {
  return (await repo.selectActionGroups(db, facilityId, true)).map((g) => ({ id: g.id, name: g.name }));
}

export const ACTION_GROUP_ACTIONS = ['open', 'hold', 'close'] as const;
export type ActionGroupAction = (typeof ACTION_GROUP_ACTIONS)[number];

/**
 * Asks the controller to run an action group's action, and records the request. Every request is a
 * command: opening a gate twice is two openings (a tenant at the gate twice), not a repeated state.
 */
export async function runActionGroup(
  { commands, clock }: Pick<FacilityStatusDeps, 'commands' | 'clock'>,
  facilityId: EntityId,
  actionGroupId: EntityId,
  action: ActionGroupAction,
  request: RemoteActionRequest,
): Promise<{ command: CommandRef } & RemoteActionAnswer> {
  return commands.inChange(facilityId, false, async (change) => {
    const group = await repo.findActionGroup(change.trx, facilityId, actionGroupId);
    if (!group) throw notFound('The action group');
    const written = await change.command('action-group.run', { actionGroupId: group.id, name: group.name, action });
    if (!written) throw new Error('an action group command was suppressed');
    const recorded = await recordRemoteAction(change.trx, clock.now(), {
      facilityId,
      action: `action-group.${action}`,
      actionGroup: group,
      request,
      command: written,
      wrote: true,
    });
    return { command: { ...written, status: 'pending' as const }, ...recorded };
  });
}

export interface OperatorActionGroupView extends ActionGroupView {
  facilityId: EntityId;
  isManual: boolean;
  createdAt: string;
}

/**
 * An operator's new action group for a facility (manual unless said otherwise): a name of 1–100
 * characters, unique within the facility in any case (409 ACTION_GROUP_NAME_TAKEN); 404 for a
 * facility that does not exist. Takes the database alone: the command line runs it without the face.
 */
export async function createActionGroup(
  db: Db,
  input: { facilityId: EntityId | string; name: string; isManual?: boolean },
): Promise<OperatorActionGroupView> {
  const facilityId = parseEntityId(input.facilityId);
  const name = input.name.trim();
  const faults = [
    ...(facilityId === null ? [{ path: 'facilityId', message: 'must be a facility id (a positive integer)' }] : []),
    ...(name.length < 1 || name.length > 100 ? [{ path: 'name', message: 'must be 1–100 characters' }] : []),
  ];
  if (faults.length > 0 || facilityId === null) throw validationFailed(faults);
  if (!(await facilityExists(db, facilityId))) throw notFound('The facility');
  try {
    const row = await repo.insertActionGroup(db, facilityId, name, input.isManual ?? true);
    return { id: row.id, name: row.name, facilityId, isManual: row.is_manual, createdAt: row.created_at.toISOString() };
  } catch (error) {
    if ((error as { code?: string; constraint?: string }).constraint === 'action_groups_facility_name')
      throw conflict('ACTION_GROUP_NAME_TAKEN', `The facility already has an action group named "${name}".`);
    throw error;
  }
}

/**
 * Every action group of a facility (the operator's view); none for a value that is not a facility
 * id. Takes the database alone, as createActionGroup.
 */
export async function listActionGroups(db: Db, facility: EntityId | string): Promise<OperatorActionGroupView[]> {
  const facilityId = parseEntityId(facility);
  if (facilityId === null) return [];
  return (await repo.selectActionGroups(db, facilityId, false)).map((g) => ({
    id: g.id,
    name: g.name,
    facilityId,
    isManual: g.is_manual,
    createdAt: g.created_at.toISOString(),
  }));
}
