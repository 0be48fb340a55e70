// One change of a facility's access data: a transaction of the command queue (src/commands) that
// does the work and writes its command (unless suppressed), then, once committed, wakes the
// controller's waiting poll. Constraint violations become 400s that name the field and the rule,
// never the value (a duplicate gate code must not echo): existing PMS integrations correct these by
// themselves — an adapter regenerates a gate code only on a 400 naming accessCode (SPEC §4).
import type { Change } from '../commands/index.ts';
import { AppError } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import type { AccessControlParts } from './deps.ts';

export const accessCodeInUse = () =>
  new AppError(400, 'ACCESS_CODE_IN_USE', 'The access code is already in use at this facility; choose another code.', [
    { path: 'accessCode', message: 'is already in use at this facility (by another enabled visitor)' },
  ]);

const unitNumberTaken = () =>
  new AppError(400, 'UNIT_NUMBER_TAKEN', 'The unit number is already in use at this facility.', [
    { path: 'unitNumber', message: 'is already in use at this facility (by another unit)' },
  ]);

/** The face's unique indexes (src/db/migrations/0005_access_control.sql), as the rules they keep. */
export const CONSTRAINTS = {
  visitors_enabled_access_code: accessCodeInUse,
  units_facility_number: unitNumberTaken,
} as const satisfies Record<string, () => AppError>;

/** The change, through the command queue's door; the face's own constraints named as its rules. */
export async function inChange<T>(
  ac: Pick<AccessControlParts, 'commands'>,
  facilityId: EntityId,
  suppressCommands: boolean,
  work: (change: Change) => Promise<T>,
): Promise<T> {
  try {
    return await ac.commands.inChange(facilityId, suppressCommands, work);
  } catch (error) {
    throw translateDatabaseError(error);
  }
}

/** Whether the error is a unique violation of the constraint. */
export function violates(error: unknown, constraint: keyof typeof CONSTRAINTS): boolean {
  const pgError = error as { code?: string; constraint?: string } | null;
  return pgError?.code === '23505' && pgError.constraint === constraint;
}

/**
 * The face's own unique indexes, named as rules; every other database error is translated for all
 * faces (src/errors.ts).
 */
export function translateDatabaseError(error: unknown): unknown {
  for (const [constraint, rule] of Object.entries(CONSTRAINTS)) {
    if (violates(error, constraint as keyof typeof CONSTRAINTS)) return rule();
  }
  return error;
}
