// One change of a facility's access data: a transaction that does the work and writes its command
// (unless suppressed), then, once committed, wakes the controller's waiting poll. Constraint
// violations become 400s that name the field and the rule, never the value (a duplicate gate code
// must not echo): existing PMS integrations correct these by themselves — an adapter regenerates a
// gate code only on a 400 naming accessCode (SPEC §4).
import type { EntityId } from '../ids.ts';
import type { Transaction } from 'kysely';
import type { Db, Tables } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import { findNewestCommandOfType, type CommandRow } from './command-repository.ts';
import { addCommand } from './commands.ts';
import type { CommandType } from './rules.ts';
import type { CommandSignals } from './signals.ts';

/** What a change works with (the face's parts). */
export interface ChangeDeps {
  db: Db;
  /** On PostgreSQL a command also runs pg_notify, for polls waiting on other instances. */
  notifyAcrossInstances: boolean;
  signals: Pick<CommandSignals, 'notify'>;
}

export interface Change {
  trx: Transaction<Tables>;
  /** Records the change's command; null when the change suppresses commands. */
  command(type: CommandType, payload: object): Promise<{ id: string; sequence: number } | null>;
  /** The facility's newest command of a type, with its status (a repeated request decides on it). */
  newestOfType(type: CommandType): Promise<CommandRow | undefined>;
}

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

export async function inChange<T>(
  ac: ChangeDeps,
  facilityId: EntityId,
  suppressCommands: boolean,
  work: (change: Change) => Promise<T>,
): Promise<T> {
  let wrote = false;
  let result: T;
  try {
    result = await ac.db.transaction().execute(async (trx) =>
      work({
        trx,
        async command(type, payload) {
          if (suppressCommands) return null;
          const written = await addCommand(trx, facilityId, type, payload, ac.notifyAcrossInstances);
          wrote = true;
          return written;
        },
        newestOfType: (type) => findNewestCommandOfType(trx, facilityId, type),
      }),
    );
  } catch (error) {
    throw translateDatabaseError(error);
  }
  if (wrote) ac.signals.notify(facilityId);
  return result;
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
