// The command queue's rules as pure functions and constants: what a command tells the controller
// (its types), its computed status and lifetime, and how a visitor's gate code rides inside a
// stored payload (sealed), reaches the controller (in clear) and stays out of the PMS's view.
import { isEntityId, type EntityId } from '../ids.ts';

/** What a command tells the controller to do. */
export const COMMAND_TYPES = [
  'unit.upsert',
  'unit.vacate',
  'unit.delete',
  'visitor.upsert',
  'visitor.remove',
  'units.refresh',
  'visitors.refresh',
  'emergency.set',
  'lockdown.set',
  'action-group.run',
] as const;
export type CommandType = (typeof COMMAND_TYPES)[number];

/**
 * A command's status is computed, never stored: acknowledged (its event 3 came back) · failed (its
 * event 3 came back with data.result "failed") · expired (neither within COMMAND_LIFETIME_DAYS of its
 * creation) · delivered (fetched) · pending. Acknowledged, failed and expired are settled: the
 * controller's first word stands.
 */
export const COMMAND_STATUSES = ['pending', 'delivered', 'acknowledged', 'failed', 'expired'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];
export const COMMAND_LIFETIME_DAYS = 7;

/** Commands are deleted this long after they were created (they expired long before). */
export const COMMAND_RETENTION_DAYS = 30;

// ---- gate codes inside payloads ----
// A stored payload carries each visitor's sealed code (base64, bound to the visitor id) under
// `sealedAccessCode`. The controller receives `accessCode` in clear; the PMS sees neither.

/** What opens a sealed gate code (access control's gate-code vault). */
export interface CodeUnsealer {
  unseal(visitorId: EntityId, sealed: Buffer): string;
}

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
export function revealCodes(payload: unknown, codes: CodeUnsealer): unknown {
  return mapObjects(payload, (object) => {
    const sealed = object[SEALED];
    if (typeof sealed !== 'string' || !isEntityId(object.id)) return object;
    const { [SEALED]: _sealed, ...rest } = object;
    return { ...rest, accessCode: codes.unseal(object.id, Buffer.from(sealed, 'base64')) };
  });
}
