// Identifiers of the service's entities, checked in one place before they reach SQL: a value that
// cannot be an id is simply not found (never a database error).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value can be the id of an account, facility, unit, visitor or auction. */
export const isEntityId = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);

/** Whether a value can be the id of an event, command, auction or notification (opaque strings). */
export const isOpaqueId = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);
