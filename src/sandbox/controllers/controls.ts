// The operations on a sandbox facility's hosted controller: its making (with the sandbox's facility), and
// the controls an integrator uses to make anything happen — each judged (every bad field named), then
// written as a row: a standing control (online, the activity rate, the devices held offline) or an action
// held for the controller (an event to report, the next commands to fail, a drift). Any instance may take
// the request; the one running the controller reads it within half a second. A facility without a hosted
// controller (a production facility) is not found.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/tables.ts';
import { conflict, notFound, validationFailed } from '../../errors.ts';
import type { EntityId } from '../../ids.ts';
import type { Sealer } from '../../sealed.ts';
import type { Tenancy } from '../../tenancy/index.ts';
import * as repository from './repository.ts';
import {
  ACTIVITY_PER_HOUR,
  type ControllerAction,
  judgeActivity,
  judgeDevice,
  judgeDriftPlan,
  judgeFailNext,
  judgeRequestedEvent,
  MAX_PENDING_ACTIONS,
} from './rules.ts';
import { secretBinding } from './runner.ts';

export interface ControlParts {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  /** Tenancy inside the caller's transaction: the hosted controller's credential commits with its row. */
  tenancyIn: (trx: Db) => Pick<Tenancy, 'createGatewayCredential'>;
  /** Enqueues a claim inside the caller's transaction (it exists only if the transaction commits). */
  sendClaim: (trx: Db) => Promise<void>;
}

/** What an integrator reads of a hosted controller. */
export interface ControllerView {
  facilityId: EntityId;
  online: boolean;
  activityPerHour: number;
  offlineDevices: string[];
  /** An instance runs it now (its sandbox is in use). */
  running: boolean;
  /** Actions asked for and not yet done (held while it is offline or stopped). */
  pendingActions: number;
}

/** An action accepted: the controller does it within about a second while it runs and is online. */
export interface ActionAccepted {
  facilityId: EntityId;
  requestedAt: string;
  /** The event's id as the controller reports it (for an event, a device's offline/online). */
  eventId?: string;
}

const noController = () => notFound('The sandbox facility');

/**
 * Makes the facility's hosted controller, in the caller's transaction (the sandbox's creation): a gateway
 * credential of its own (tenancy's), its secret sealed to this row, online, at the default activity. A
 * claim is asked for when the transaction commits, so that it starts within seconds.
 */
export async function addController(
  parts: Pick<ControlParts, 'sealer' | 'tenancyIn' | 'sendClaim'>,
  trx: Db,
  facilityId: EntityId,
): Promise<void> {
  const credential = await parts.tenancyIn(trx).createGatewayCredential({ facilityId });
  await repository.insertController(trx, {
    facility_id: facilityId,
    credential_id: credential.id,
    client_id: credential.clientId,
    sealed_secret: parts.sealer.seal(secretBinding(facilityId, credential.id), credential.clientSecret),
    activity_per_hour: ACTIVITY_PER_HOUR.default,
  });
  await parts.sendClaim(trx);
}

export async function describeController(
  parts: Pick<ControlParts, 'db'>,
  facilityId: EntityId,
): Promise<ControllerView> {
  const row = await repository.controllerView(parts.db, facilityId);
  if (!row) throw noController();
  return {
    facilityId: row.facility_id,
    online: row.online,
    activityPerHour: row.activity_per_hour,
    offlineDevices: row.offline_devices,
    running: row.running,
    pendingActions: row.pending_actions ?? 0,
  };
}

/**
 * Holds an action for the controller, in order, under its row's lock: at most MAX_PENDING_ACTIONS wait
 * (409 SANDBOX_CONTROLLER_BACKLOG beyond: a controller offline for long holds a finite outbox).
 */
async function hold(
  parts: Pick<ControlParts, 'db' | 'clock'>,
  facilityId: EntityId,
  action: ControllerAction,
  also?: (trx: Db, offlineDevices: string[]) => Promise<void>,
): Promise<ActionAccepted> {
  const requestedAt = new Date(parts.clock.now());
  await parts.db.transaction().execute(async (trx) => {
    const row = await repository.lockController(trx, facilityId);
    if (!row) throw noController();
    if ((await repository.pendingActions(trx, facilityId, MAX_PENDING_ACTIONS)) >= MAX_PENDING_ACTIONS)
      throw conflict(
        'SANDBOX_CONTROLLER_BACKLOG',
        `The controller holds ${MAX_PENDING_ACTIONS} actions not yet done (it is offline or stopped): bring it online, or wait.`,
      );
    await also?.(trx, row.offline_devices);
    await repository.insertAction(trx, facilityId, action, requestedAt);
  });
  return {
    facilityId,
    requestedAt: requestedAt.toISOString(),
    ...(action.kind === 'event' ? { eventId: action.payload.eventId } : {}),
  };
}

/** The controller reports an event of any type of the catalogue, with the optional fields a gateway takes. */
export async function reportEvent(
  parts: Pick<ControlParts, 'db' | 'clock'>,
  facilityId: EntityId,
  input: unknown,
): Promise<ActionAccepted> {
  const event = judgeRequestedEvent(input);
  if (!event.ok) throw validationFailed(event.faults);
  return hold(parts, facilityId, { kind: 'event', payload: { ...event.value, eventId: randomUUID() } });
}

/**
 * A device of the site goes offline (event 11 reported; the site holds it offline — no keypad entries at it,
 * health says so — until it is brought back) or comes back (event 12).
 */
export async function setDeviceOnline(
  parts: Pick<ControlParts, 'db' | 'clock'>,
  facilityId: EntityId,
  online: boolean,
  input: { deviceId?: unknown; deviceName?: unknown },
): Promise<ActionAccepted> {
  const device = judgeDevice(input);
  if (!device.ok) throw validationFailed(device.faults);
  const { deviceId, deviceName } = device.value;
  const payload = {
    eventId: randomUUID(),
    eventType: online ? 12 : 11,
    deviceId,
    ...(deviceName ? { deviceName } : {}),
    details: `${deviceName ?? deviceId} ${online ? 'is communicating again' : 'missed its heartbeats'}`,
  };
  return hold(parts, facilityId, { kind: 'event', payload }, async (trx, offlineDevices) => {
    const held = new Set(offlineDevices);
    if (online) held.delete(deviceId);
    else held.add(deviceId);
    await repository.setControls(trx, facilityId, { offline_devices: [...held].sort() });
  });
}

/** The controller changes its copy locally (the simulator's makeDrift, once) and says what it holds. */
export async function driftNow(
  parts: Pick<ControlParts, 'db' | 'clock'>,
  facilityId: EntityId,
  input: { loseVisitors?: unknown; alterUnits?: unknown; addVisitors?: unknown } = {},
): Promise<ActionAccepted> {
  const plan = judgeDriftPlan(input);
  if (!plan.ok) throw validationFailed(plan.faults);
  return hold(parts, facilityId, { kind: 'drift', payload: plan.value });
}

/** The next `count` commands the controller receives are acknowledged as failed, with a reason (0 clears). */
export async function failNextCommands(
  parts: Pick<ControlParts, 'db' | 'clock'>,
  facilityId: EntityId,
  input: { count?: unknown },
): Promise<ActionAccepted> {
  const judged = judgeFailNext(input);
  if (!judged.ok) throw validationFailed(judged.faults);
  return hold(parts, facilityId, { kind: 'fail-next', payload: judged.value });
}

/**
 * The controller goes offline (no polls, no batches, no digests: the facility's status turns as for a real
 * controller that falls silent; actions asked meanwhile are held and done when it is back) or online.
 */
export async function setControllerOnline(
  parts: Pick<ControlParts, 'db'>,
  facilityId: EntityId,
  online: boolean,
): Promise<ControllerView> {
  if (!(await repository.setControls(parts.db, facilityId, { online }))) throw noController();
  return describeController(parts, facilityId);
}

/** Keypad entries per hour at the simulated site (0: quiet — the controller still polls and reports health). */
export async function setActivity(
  parts: Pick<ControlParts, 'db'>,
  facilityId: EntityId,
  input: { activityPerHour?: unknown },
): Promise<ControllerView> {
  const judged = judgeActivity(input);
  if (!judged.ok) throw validationFailed(judged.faults);
  if (!(await repository.setControls(parts.db, facilityId, { activity_per_hour: judged.value.activityPerHour })))
    throw noController();
  return describeController(parts, facilityId);
}
