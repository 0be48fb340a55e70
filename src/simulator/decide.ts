// How the simulated controller decides, by the rules its events describe (BRIEF.md §6). Pure
// functions over the controller's state, the keypad and the time: no I/O, no randomness.
import type { EntityId } from '../ids.ts';
import { isWithinTimeWindows } from '../access-control/index.ts';
import { visitorByCode, type ControllerState } from './controller.ts';

export const EVENT = {
  COMMAND_RECEIVED: 3,
  HEALTH_STATUS: 5,
  FACILITY_OPENED: 8,
  FACILITY_CLOSED: 9,
  DEVICE_OFFLINE: 11,
  DEVICE_ONLINE: 12,
  INVALID_PASSWORD: 15,
  INVALID_ACCESS_AREA: 16,
  DELINQUENT: 17,
  ACCESS_GRANTED: 18,
  INVALID_ACCESS_TIME: 19,
  LOITERING_LOCKOUT: 24,
  UNIT_DOOR_OPENED: 33,
  UNIT_DOOR_CLOSED: 34,
  UNIT_DOOR_ALARM: 35,
  ACTION_GROUP_LOG: 29,
  EMERGENCY_ACCESS: 31,
  FACILITY_LOCKDOWN: 32,
  DEVICE_COMPONENT_STATUS: 37,
} as const;

export interface Keypad {
  id: string;
  name: string;
  /** The access area the keypad guards; an access profile lists the areas it admits. */
  area: string;
}

/** Repeated invalid codes at one keypad lock it for a while (event 24 for every entry meanwhile). */
export const LOCKOUT = { failures: 3, windowMs: 60_000, durationMs: 120_000 } as const;

export interface KeypadLockout {
  /** Times (ms) of recent invalid codes, oldest first. */
  failures: readonly number[];
  lockedUntil: number;
}

export const noLockout: KeypadLockout = { failures: [], lockedUntil: 0 };

export type EntryEvent = 15 | 16 | 17 | 18 | 19 | 24;

/** The gate device whose relay the facility's action groups drive. */
export const GATE = { id: 'gate-operator', name: 'Main Gate Operator' } as const;

export interface ReportedChange {
  eventType: number;
  deviceId?: string;
  deviceName?: string;
  details: string;
  data: Record<string, unknown>;
}

const RELAY_STATES = { open: 'open', hold: 'held open', close: 'closed' } as Record<string, string>;

/**
 * What the controller reports once it has applied a remote command (SPEC §4.1): emergency access
 * (31) and lockdown (32) with data.enabled; an action group's run as an Action Group Log Message
 * (29) and the gate relay's new state (37). Other commands report nothing beyond their event 3.
 */
export function commandReports(command: { id: string; type: string; payload: unknown }): ReportedChange[] {
  const p = (command.payload ?? {}) as { enabled?: boolean; actionGroupId?: number; name?: string; action?: string };
  const on = p.enabled === true;
  switch (command.type) {
    case 'emergency.set':
      return [
        {
          eventType: EVENT.EMERGENCY_ACCESS,
          details: on ? 'Emergency access enabled: every gate open' : 'Emergency access disabled',
          data: { enabled: on, commandId: command.id },
        },
      ];
    case 'lockdown.set':
      return [
        {
          eventType: EVENT.FACILITY_LOCKDOWN,
          details: on ? 'Facility locked down: every code refused' : 'Facility lockdown lifted',
          data: { enabled: on, commandId: command.id },
        },
      ];
    case 'action-group.run': {
      const state = RELAY_STATES[p.action ?? ''];
      if (!state) return [];
      const group = p.name ?? `Action group ${p.actionGroupId}`;
      return [
        {
          eventType: EVENT.ACTION_GROUP_LOG,
          details: `${group}: ${p.action} by remote command`,
          data: { actionGroupId: p.actionGroupId, action: p.action, commandId: command.id },
        },
        {
          eventType: EVENT.DEVICE_COMPONENT_STATUS,
          deviceId: GATE.id,
          deviceName: GATE.name,
          details: `Gate relay ${state}`,
          data: { component: 'relay', state, actionGroupId: p.actionGroupId },
        },
      ];
    }
    default:
      return [];
  }
}

export interface EntryDecision {
  eventType: EntryEvent;
  visitorId: EntityId | null;
  unitId: EntityId | null;
  details: string;
}

/**
 * A code typed at a keypad, decided in this order:
 * keypad locked out → 24 · no enabled visitor has the code → 15 · the visitor's unit is
 * Delinquent → 17 · outside the visitor's time group → 19 · the keypad's area is not in the
 * visitor's access profile → 16 · otherwise 18.
 */
export function decideEntry(
  state: ControllerState,
  keypad: Keypad,
  code: string,
  at: number,
  lockout: KeypadLockout,
): EntryDecision {
  if (at < lockout.lockedUntil)
    return {
      eventType: 24,
      visitorId: null,
      unitId: null,
      details: `${keypad.name} is locked out after repeated invalid codes`,
    };
  const visitor = visitorByCode(state, code);
  if (!visitor) return { eventType: 15, visitorId: null, unitId: null, details: `Invalid code at ${keypad.name}` };
  const who = { visitorId: visitor.id, unitId: visitor.unitId };
  const unit = visitor.unitId === null ? undefined : state.units.get(visitor.unitId);
  if (unit?.status === 'Delinquent')
    return { eventType: 17, ...who, details: `Unit ${visitor.unitNumber} is delinquent` };
  const group = visitor.timeGroup;
  if (group && !isWithinTimeWindows(group.windows, group.timeZone || state.timeZone, new Date(at))) {
    return { eventType: 19, ...who, details: `Outside time group ${group.name}` };
  }
  const areas = visitor.accessProfile?.accessAreas ?? null;
  if (areas !== null && !areas.includes(keypad.area))
    return { eventType: 16, ...who, details: `${keypad.name} is not in access profile ${visitor.accessProfile.name}` };
  return { eventType: 18, ...who, details: `Access granted at ${keypad.name}` };
}

/** The keypad's lockout after a decision: invalid codes count, a grant clears them. */
export function nextLockout(lockout: KeypadLockout, decision: EntryEvent, at: number): KeypadLockout {
  if (decision === 18) return { failures: [], lockedUntil: lockout.lockedUntil };
  if (decision !== 15) return lockout;
  const failures = [...lockout.failures.filter((t) => t > at - LOCKOUT.windowMs), at];
  if (failures.length >= LOCKOUT.failures) return { failures: [], lockedUntil: at + LOCKOUT.durationMs };
  return { failures, lockedUntil: lockout.lockedUntil };
}

/** A unit door opening: expected within 10 minutes of its visitor's grant (33), else an alarm (35). */
export const DOOR_GRANT_WINDOW_MS = 10 * 60_000;
export function doorOpened(lastGrantAt: number | undefined, at: number): 33 | 35 {
  return lastGrantAt !== undefined && at - lastGrantAt <= DOOR_GRANT_WINDOW_MS ? 33 : 35;
}

/** Office hours of a simulated facility (local time): open 06:00–22:00 every day. */
export const OPEN_HOURS = [{ days: [0, 1, 2, 3, 4, 5, 6], start: '06:00', end: '22:00' }];

/** 8 when the facility's open hours begin, 9 when they end, null when nothing changes. */
export function openingChange(
  wasOpen: boolean | null,
  timeZone: string,
  at: number,
): { isOpen: boolean; eventType: 8 | 9 | null } {
  const isOpen = isWithinTimeWindows(OPEN_HOURS, timeZone, new Date(at));
  if (wasOpen === isOpen) return { isOpen, eventType: null };
  return { isOpen, eventType: isOpen ? 8 : 9 };
}
