// Facility status and remote operations (SPEC §4.1): the status list and a facility's status,
// devices and switches as the controller reported them, and the operator's remote actions —
// emergency access, lockdown, and the facility's action groups (open, hold, close) — each a
// command to the controller, acknowledged like every other (event 3). The words and the rule
// for a repeated switch are in status-rules.ts; the SQL in status-repository.ts.
import type { Principal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import { eventTypeInfo } from '../events/catalogue.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import { facilityExists } from '../tenancy/repository.ts';
import { inChange } from './change.ts';
import { findNewestCommandOfType } from './command-repository.ts';
import type { AccessControl } from './index.ts';
import type { CommandStatus, CommandType } from './rules.ts';
import * as repo from './status-repository.ts';
import type { StatusFactsRow } from './status-repository.ts';
import {
  facilityStatuses,
  type FacilityStatuses,
  type FacilitySwitch,
  lastHeard,
  needsSwitchCommand,
  overallStatus,
  type StatusWord,
} from './status-rules.ts';

const isoOf = (date: Date | string | null) => (date === null ? null : new Date(date).toISOString());

export interface StatusListRow {
  facilityId: EntityId;
  facilityName: string;
  facilityPropertyNumber: string | null;
  accountName: string;
  gatewayStatus: StatusWord;
  gatewayStatusMessage: string;
  deviceStatus: StatusWord;
  deviceStatusMessage: string;
  alarmStatus: StatusWord;
  alarmStatusMessage: string;
  pmsInterfaceStatus: StatusWord;
  pmsInterfaceStatusMessage: string;
  edgeRouterStatus: null;
  edgeRouterStatusMessage: null;
  edgeRouterPlatformDeviceStatus: null;
  edgeRouterPlatformDeviceStatusMessage: null;
}

function statusListRow(row: StatusFactsRow, s: FacilityStatuses): StatusListRow {
  return {
    facilityId: row.facility_id,
    facilityName: row.facility_name,
    facilityPropertyNumber: row.property_number,
    accountName: row.account_name,
    gatewayStatus: s.gateway.status,
    gatewayStatusMessage: s.gateway.message,
    deviceStatus: s.device.status,
    deviceStatusMessage: s.device.message,
    alarmStatus: s.alarm.status,
    alarmStatusMessage: s.alarm.message,
    pmsInterfaceStatus: s.pmsInterface.status,
    pmsInterfaceStatusMessage: s.pmsInterface.message,
    edgeRouterStatus: null,
    edgeRouterStatusMessage: null,
    edgeRouterPlatformDeviceStatus: null,
    edgeRouterPlatformDeviceStatusMessage: null,
  };
}

/** One row per facility the token sees (the operator: every facility), by name; one query. */
export async function statusList(db: Db, principal: Principal, now: number): Promise<StatusListRow[]> {
  const scope =
    principal.kind === 'account' ? { accountId: principal.accountId } : principal.kind === 'operator' ? 'all' : null;
  if (scope === null) return [];
  const rows = await repo.selectStatusFacts(db, scope);
  return rows.map((row) => statusListRow(row, facilityStatuses(repo.statusFactsOf(row), now)));
}

export interface SwitchState {
  /** What the controller last reported (null: never). */
  reported: boolean | null;
  /** What was last asked for (null: never). */
  desired: boolean | null;
}

export interface FacilityStatusView {
  gatewayControllerPlatformOverallStatus: StatusWord;
  gatewayControllerPlatformOverallStatusMessage: string;
  edgeRouterPlatformOverallStatus: null;
  edgeRouterPlatformOverallStatusMessage: null;
  lastSeenAt: string | null;
  devices: { total: number; offline: number };
  activeAlarms: {
    eventType: number;
    eventTypeName: string;
    deviceId: string | null;
    deviceName: string | null;
    unitId: EntityId | null;
    unitNumber: string | null;
    since: string;
  }[];
  emergency: SwitchState;
  lockdown: SwitchState;
  commands: { pending: number; oldestPendingAt: string | null };
}

export async function facilityStatus(db: Db, facilityId: EntityId, now: number): Promise<FacilityStatusView> {
  const [row] = await repo.selectStatusFacts(db, { facilityId });
  if (!row) throw notFound('The facility');
  const facts = repo.statusFactsOf(row);
  const overall = overallStatus(facilityStatuses(facts, now));
  const heard = lastHeard(facts);
  return {
    gatewayControllerPlatformOverallStatus: overall.status,
    gatewayControllerPlatformOverallStatusMessage: overall.message,
    edgeRouterPlatformOverallStatus: null,
    edgeRouterPlatformOverallStatusMessage: null,
    lastSeenAt: heard === null ? null : new Date(heard).toISOString(),
    devices: { total: row.device_count, offline: row.offline_devices.length },
    activeAlarms: row.active_alarms.map((a) => ({
      eventType: a.event_type,
      eventTypeName: eventTypeInfo(a.event_type)?.name ?? `Event type ${a.event_type}`,
      deviceId: a.device_id,
      deviceName: a.device_name,
      unitId: a.unit_id,
      unitNumber: a.unit_number,
      since: new Date(a.since).toISOString(),
    })),
    emergency: { reported: row.emergency_reported, desired: row.emergency_desired },
    lockdown: { reported: row.lockdown_reported, desired: row.lockdown_desired },
    commands: { pending: row.pending_commands, oldestPendingAt: isoOf(row.oldest_pending_at) },
  };
}

export interface DeviceView {
  id: string;
  name: string | null;
  isPaired: boolean;
  status: { isOffline: boolean };
  lastEventType: number;
  lastEventAt: string;
}

export async function listDevices(db: Db, facilityId: EntityId): Promise<DeviceView[]> {
  return (await repo.selectDevices(db, facilityId)).map((d) => ({
    id: d.device_id,
    name: d.name,
    isPaired: d.is_paired,
    status: { isOffline: d.is_offline },
    lastEventType: d.last_event_type,
    lastEventAt: d.last_event_at.toISOString(),
  }));
}

/** What the controller last reported for the switch; false when it never did. */
export async function reportedSwitch(db: Db, facilityId: EntityId, which: FacilitySwitch): Promise<boolean> {
  return (await repo.selectSwitch(db, facilityId, which)).reported ?? false;
}

export interface CommandRef {
  id: string;
  sequence: number;
  status: CommandStatus;
}

const SWITCH_COMMANDS: Record<FacilitySwitch, CommandType> = {
  emergency: 'emergency.set',
  lockdown: 'lockdown.set',
};

/**
 * Asks the controller to turn emergency access or lockdown on or off. A repeat of what is already
 * asked for sends no second command (needsSwitchCommand); the answer then names the newest command
 * for the switch (null if it was purged long ago).
 */
export async function setSwitch(
  ac: AccessControl,
  facilityId: EntityId,
  which: FacilitySwitch,
  enabled: boolean,
): Promise<{ command: CommandRef | null } & SwitchState> {
  const type = SWITCH_COMMANDS[which];
  return inChange(ac, facilityId, false, async (change) => {
    const state = await repo.selectSwitch(change.trx, facilityId, which, { lock: true });
    const newest = await findNewestCommandOfType(change.trx, facilityId, type);
    const underway = newest !== undefined && (newest.status === 'pending' || newest.status === 'delivered');
    if (!needsSwitchCommand({ requested: enabled, ...state, underway })) {
      const command = newest ? { id: newest.id, sequence: newest.sequence, status: newest.status } : null;
      return { command, ...state };
    }
    const written = await change.command(type, { enabled });
    await repo.setDesired(change.trx, facilityId, which, enabled);
    return {
      command: written ? { ...written, status: 'pending' as const } : null,
      reported: state.reported,
      desired: enabled,
    };
  });
}

export interface ActionGroupView {
  id: EntityId;
  name: string;
}

export async function listManualActionGroups(db: Db, facilityId: EntityId): Promise<ActionGroupView[]> {
  return (await repo.selectActionGroups(db, facilityId, true)).map((g) => ({ id: g.id, name: g.name }));
}

export const ACTION_GROUP_ACTIONS = ['open', 'hold', 'close'] as const;
export type ActionGroupAction = (typeof ACTION_GROUP_ACTIONS)[number];

/**
 * Asks the controller to run an action group's action. Every request is a command: opening a gate
 * twice is two openings (a tenant at the gate twice), not a repeated state.
 */
export async function runActionGroup(
  ac: AccessControl,
  facilityId: EntityId,
  actionGroupId: EntityId,
  action: ActionGroupAction,
): Promise<{ command: CommandRef }> {
  return inChange(ac, facilityId, false, async (change) => {
    const group = await repo.findActionGroup(change.trx, facilityId, actionGroupId);
    if (!group) throw notFound('The action group');
    const written = await change.command('action-group.run', { actionGroupId: group.id, name: group.name, action });
    if (!written) throw new Error('an action group command was suppressed');
    return { command: { ...written, status: 'pending' as const } };
  });
}

/**
 * An operator's new action group for a facility (manual unless said otherwise): a name of 1–100
 * characters, unique within the facility in any case (409 ACTION_GROUP_NAME_TAKEN); 404 for a
 * facility that does not exist.
 */
export async function createActionGroup(
  db: Db,
  input: { facilityId: EntityId | string; name: string; isManual?: boolean },
): Promise<ActionGroupView & { facilityId: EntityId; isManual: boolean; createdAt: string }> {
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

/** Every action group of a facility (the operator's view); none for a value that is not a facility id. */
export async function listActionGroups(db: Db, facility: EntityId | string) {
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
