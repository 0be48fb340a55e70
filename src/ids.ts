// Identifiers of the service's entities, checked in one place before they reach SQL: a value that
// cannot be an id is simply not found (never a database error).
//
// Accounts, facilities, units, visitors, time groups, access profiles and action groups have
// positive integer ids (identity columns, never reused): existing PMS integrations keep them in
// integer columns (SPEC §1). Events, commands, auctions and notifications keep opaque uuids.

/** An account, facility, unit, visitor, time group, access profile or action group id. */
export type EntityId = number;

/** Decimal digits without a sign or leading zero: how an entity id is written in a path or a query. */
const DIGITS = /^[1-9][0-9]{0,15}$/;

/** Whether a value is an entity id: a positive integer JavaScript holds exactly. */
export const isEntityId = (value: unknown): value is EntityId =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** The entity id a path segment, a query value or a JSON value names; null when it names none. */
export function parseEntityId(value: unknown): EntityId | null {
  if (typeof value === 'number') return isEntityId(value) ? value : null;
  if (typeof value !== 'string' || !DIGITS.test(value)) return null;
  const id = Number(value);
  return isEntityId(id) ? id : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value can be the id of an event, command, auction or notification (opaque strings). */
export const isOpaqueId = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);
