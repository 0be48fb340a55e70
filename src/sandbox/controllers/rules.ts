// The rules of a sandbox's hosted controllers, pure: what an integrator's control must say (every bad
// field named), what the simulated site does at a given activity rate, when a sandbox is idle, how long
// a lease lasts, and where an instance finds its own listening address.
import type { FieldError } from '../../errors.ts';
import { eventTypeInfo, FIELD_LIMITS } from '../../events/index.ts';
import { type EntityId, parseEntityId } from '../../ids.ts';
import type { DriftPlan } from '../../simulator/drift.ts';
import type { ActivityOptions } from '../../simulator/facility.ts';

/** A controller runs while its sandbox was used within this long; then it stops until the next use. */
export const IDLE_AFTER_MS = 60 * 60_000;

/** Keypad entries per hour: the default of a new controller, and the most a control may ask for (one a second). */
export const ACTIVITY_PER_HOUR = { default: 30, max: 3600 } as const;
/** "Fail the next N commands": 0 (none) to this many. */
export const FAIL_NEXT_MAX = 1000;
/** Each part of a drift plan (visitors lost, units altered, visitors added): at most this many. */
export const DRIFT_PART_MAX = 100;
/** The drift made when a control names no plan: one of each kind. */
export const DEFAULT_DRIFT_PLAN: DriftPlan = { loseVisitors: 1, alterUnits: 1, addVisitors: 1 };
/** Actions held for one controller (while it is offline or stopped), as a real controller's outbox is finite. */
export const MAX_PENDING_ACTIONS = 1000;

/**
 * Leases: held this long, renewed three times within it. An instance that dies without releasing its
 * controllers leaves them unrun for at most the lease plus the time to the next claim.
 */
export const LEASE_MS = 30_000;

/** Why a command fails when the controller was told to fail it (the acknowledgement's data.reason). */
export const FAILED_ON_REQUEST = 'Simulated failure: the sandbox controller was told to fail this command';

/** An event the integrator asked the controller to report: the fields a gateway batch's event takes. */
export interface RequestedEvent {
  eventType: number;
  deviceId?: string;
  deviceName?: string;
  unitId?: EntityId;
  visitorId?: EntityId;
  details?: string;
  data?: Record<string, unknown>;
}

/** An action held for a controller (sandbox_controller_actions), in the order asked. */
export type ControllerAction =
  | { kind: 'event'; payload: RequestedEvent & { eventId: string } }
  | { kind: 'fail-next'; payload: { count: number } }
  | { kind: 'drift'; payload: DriftPlan };
export type ActionPayload = ControllerAction['payload'];

type Judged<T> = { ok: true; value: T } | { ok: false; faults: FieldError[] };
const judged = <T>(faults: FieldError[], value: () => T): Judged<T> =>
  faults.length > 0 ? { ok: false, faults } : { ok: true, value: value() };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const CONTROL = /[\u0000-\u001f\u007f]/;
/** Free text may hold tabs and line breaks (as the gateway's `details`). */
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The fault of an optional text field, or null when it is absent or fine. */
function textFault(value: unknown, max: number, freeText = false): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.length > max) return `must be at most ${max} characters (got ${value.length})`;
  if (LONE_SURROGATE.test(value)) return 'is not valid Unicode text';
  if ((freeText ? TEXT_CONTROL : CONTROL).test(value)) return 'must not contain control characters';
  return null;
}

/** The deepest `data` the gateway stores (its judge's limit). */
const MAX_DATA_DEPTH = 16;

function dataFault(value: unknown): string | null {
  if (value === undefined) return null;
  if (!isRecord(value)) return 'must be an object';
  const walk = (item: unknown, depth: number): string | null => {
    if (depth > MAX_DATA_DEPTH) return `must not nest deeper than ${MAX_DATA_DEPTH} levels`;
    if (typeof item === 'string')
      return LONE_SURROGATE.test(item) || item.includes('\u0000')
        ? 'holds text that is not valid Unicode or contains NUL'
        : null;
    if (Array.isArray(item)) {
      for (const part of item) {
        const fault = walk(part, depth + 1);
        if (fault) return fault;
      }
    } else if (isRecord(item)) {
      for (const [key, part] of Object.entries(item)) {
        const fault = walk(key, depth + 1) ?? walk(part, depth + 1);
        if (fault) return fault;
      }
    }
    return null;
  };
  const fault = walk(value, 0);
  if (fault) return fault;
  if (Buffer.byteLength(JSON.stringify(value)) > FIELD_LIMITS.dataBytes)
    return `must be at most ${FIELD_LIMITS.dataBytes} bytes as JSON`;
  return null;
}

const EVENT_FIELDS = ['eventType', 'deviceId', 'deviceName', 'unitId', 'visitorId', 'details', 'data'] as const;

/**
 * An event to report, judged as the gateway judges a controller's (the catalogue's types, its field
 * limits): the event as kept, or every fault named. An unknown type is a fault of `eventType`.
 */
export function judgeRequestedEvent(input: unknown): Judged<RequestedEvent> {
  if (!isRecord(input)) return { ok: false, faults: [{ path: '', message: 'must be an object' }] };
  const faults: FieldError[] = [];
  const fault = (path: string, message: string | null) => message && faults.push({ path, message });
  const { eventType } = input;
  if (eventType === undefined || eventType === null) fault('eventType', 'is required');
  else if (typeof eventType !== 'number' || !Number.isInteger(eventType) || !eventTypeInfo(eventType))
    fault('eventType', 'is not an event type of the catalogue (GET /gatewayevents/types)');
  fault('deviceId', textFault(input.deviceId, FIELD_LIMITS.deviceId));
  fault('deviceName', textFault(input.deviceName, FIELD_LIMITS.deviceName));
  for (const field of ['unitId', 'visitorId'] as const)
    if (input[field] !== undefined && parseEntityId(input[field]) === null)
      fault(field, `must be a ${field === 'unitId' ? 'unit' : 'visitor'} id (a positive integer)`);
  fault('details', textFault(input.details, FIELD_LIMITS.details, true));
  fault('data', dataFault(input.data));
  for (const key of Object.keys(input))
    if (!(EVENT_FIELDS as readonly string[]).includes(key))
      fault(key, `is not a field of a reported event (${EVENT_FIELDS.join(', ')})`);
  return judged(faults, () => {
    const event: RequestedEvent = { eventType: eventType as number };
    for (const field of ['deviceId', 'deviceName', 'details'] as const)
      if (input[field] !== undefined) event[field] = input[field] as string;
    for (const field of ['unitId', 'visitorId'] as const)
      if (input[field] !== undefined) event[field] = parseEntityId(input[field])!;
    if (input.data !== undefined) event.data = input.data as Record<string, unknown>;
    return event;
  });
}

/** A device to take offline or bring back: its id as the controller reports it, an optional name. */
export function judgeDevice(input: { deviceId?: unknown; deviceName?: unknown }): Judged<{
  deviceId: string;
  deviceName?: string;
}> {
  const faults: FieldError[] = [];
  const idFault = input.deviceId === undefined ? 'is required' : textFault(input.deviceId, FIELD_LIMITS.deviceId);
  if (idFault) faults.push({ path: 'deviceId', message: idFault });
  const nameFault = textFault(input.deviceName, FIELD_LIMITS.deviceName);
  if (nameFault) faults.push({ path: 'deviceName', message: nameFault });
  return judged(faults, () => ({
    deviceId: input.deviceId as string,
    ...(input.deviceName !== undefined ? { deviceName: input.deviceName as string } : {}),
  }));
}

const wholeNumber = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** "Fail the next N commands": N from 0 (none: a count still pending is cleared) to FAIL_NEXT_MAX. */
export function judgeFailNext(input: { count?: unknown }): Judged<{ count: number }> {
  const ok = wholeNumber(input.count, 0, FAIL_NEXT_MAX);
  return judged(ok ? [] : [{ path: 'count', message: `must be a whole number from 0 to ${FAIL_NEXT_MAX}` }], () => ({
    count: input.count as number,
  }));
}

/** Keypad entries per hour: 0 (quiet) to ACTIVITY_PER_HOUR.max. */
export function judgeActivity(input: { activityPerHour?: unknown }): Judged<{ activityPerHour: number }> {
  const ok = wholeNumber(input.activityPerHour, 0, ACTIVITY_PER_HOUR.max);
  return judged(
    ok ? [] : [{ path: 'activityPerHour', message: `must be a whole number from 0 to ${ACTIVITY_PER_HOUR.max}` }],
    () => ({ activityPerHour: input.activityPerHour as number }),
  );
}

/** A drift to make once: each part 0 to DRIFT_PART_MAX (absent: the default's), not all 0. */
export function judgeDriftPlan(input: { loseVisitors?: unknown; alterUnits?: unknown; addVisitors?: unknown }) {
  const faults: FieldError[] = [];
  const plan = { ...DEFAULT_DRIFT_PLAN };
  for (const part of ['loseVisitors', 'alterUnits', 'addVisitors'] as const) {
    const value = input[part];
    if (value === undefined) continue;
    if (wholeNumber(value, 0, DRIFT_PART_MAX)) plan[part] = value as number;
    else faults.push({ path: part, message: `must be a whole number from 0 to ${DRIFT_PART_MAX}` });
  }
  if (faults.length === 0 && plan.loseVisitors + plan.alterUnits + plan.addVisitors === 0)
    faults.push({ path: 'loseVisitors', message: 'a drift changes something: at least one part must be above 0' });
  return judged<DriftPlan>(faults, () => plan);
}

/**
 * What the simulated site does at `activityPerHour` keypad entries: a tenth of them with a wrong code,
 * half the grants followed by the unit's door, a door alarm for every 50 entries, health every 5
 * minutes. No device drops on their own (a device goes offline when the integrator says so), no local
 * drift but on request, no failures but on request; digests every 15 minutes, as SPEC §4.1 asks.
 */
export function siteActivity(activityPerHour: number): ActivityOptions {
  return {
    entriesPerMinute: activityPerHour / 60,
    wrongCodeShare: 0.1,
    doorAfterGrantShare: 0.5,
    doorAlarmsPerHour: activityPerHour / 50,
    deviceDropsPerHour: 0,
    healthIntervalSeconds: 300,
    pollWaitSeconds: 30,
    batchSize: 200,
    flushMs: 500,
    digestIntervalSeconds: 900,
    driftsPerHour: 0,
    driftPlan: null,
    failShare: 0,
  };
}

/** The earliest last use of a sandbox whose controllers run at `now`. */
export const activeSince = (now: number): Date => new Date(now - IDLE_AFTER_MS);

/**
 * The address at which this instance's own controllers reach it: loopback when it listens on every
 * interface (or on loopback), else the one address it listens on.
 */
export function ownAddress(host: string, port: number): string {
  const wildcard = ['0.0.0.0', '::', '', 'localhost', '127.0.0.1', '::1'].includes(host);
  const address = wildcard ? '127.0.0.1' : host;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
