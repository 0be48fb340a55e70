// Facility status (SPEC §4.1), read: the status list and a facility's status and devices as the
// controller reported them, the words decided at read time from one query (rules.ts) at the face's
// clock. The remote actions are in switches.ts and action-groups.ts; the SQL in repository.ts.
import type { Principal } from '../http/caller.ts';
import { notFound } from '../errors.ts';
import { eventTypeInfo } from '../events/index.ts';
import type { EntityId } from '../ids.ts';
import type { FacilityStatusDeps } from './deps.ts';
import * as repo from './repository.ts';
import type { StatusFactsRow } from './repository.ts';
import {
  effectiveEnd,
  facilityStatuses,
  type FacilityStatuses,
  lastHeard,
  maintenanceAt,
  overallStatus,
  type StatusWord,
} from './rules.ts';
import type { SwitchState } from './switches.ts';

type Deps = Pick<FacilityStatusDeps, 'db' | 'clock'>;

const isoOf = (date: Date | string | null) => (date === null ? null : new Date(date).toISOString());

export interface StatusListRow {
  facilityId: EntityId;
  facilityName: string;
  facilityPropertyNumber: string | null;
  accountName: string;
  sandbox: boolean;
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
    sandbox: row.sandbox,
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
export async function statusList({ db, clock }: Deps, principal: Principal): Promise<StatusListRow[]> {
  const now = clock.now();
  const scope =
    principal.kind === 'account' ? { accountId: principal.accountId } : principal.kind === 'operator' ? 'all' : null;
  if (scope === null) return [];
  const rows = await repo.selectStatusFacts(db, scope, now);
  return rows.map((row) => statusListRow(row, facilityStatuses(repo.statusFactsOf(row), now)));
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
  /** The maintenance window underway (null: none); `endsAt` is when it stops, a cancellation included. */
  maintenance: { id: EntityId; startsAt: string; endsAt: string; reason: string | null } | null;
}

export async function facilityStatus({ db, clock }: Deps, facilityId: EntityId): Promise<FacilityStatusView> {
  const now = clock.now();
  const [row] = await repo.selectStatusFacts(db, { facilityId }, now);
  if (!row) throw notFound('The facility');
  const facts = repo.statusFactsOf(row);
  const window = maintenanceAt(facts.maintenanceWindows, now);
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
    maintenance: window && {
      id: window.id,
      startsAt: new Date(window.startsAt).toISOString(),
      endsAt: new Date(effectiveEnd(window)).toISOString(),
      reason: window.reason,
    },
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

export async function listDevices({ db }: Pick<Deps, 'db'>, facilityId: EntityId): Promise<DeviceView[]> {
  return (await repo.selectDevices(db, facilityId)).map((d) => ({
    id: d.device_id,
    name: d.name,
    isPaired: d.is_paired,
    status: { isOffline: d.is_offline },
    lastEventType: d.last_event_type,
    lastEventAt: d.last_event_at.toISOString(),
  }));
}
