// One change of a facility's access data: a transaction that does the work and writes its command
// (unless suppressed), then, once committed, wakes the controller's waiting poll. Constraint
// violations become 409s that name the rule, never the value (a duplicate gate code must not echo).
import type { Kysely, Transaction } from 'kysely';
import type { Db, Tables } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import { addCommand } from './commands.ts';
import type { CommandType } from './rules.ts';
import type { AccessControl } from './index.ts';

export interface Change {
  trx: Transaction<Tables>;
  /** Records the change's command; null when the change suppresses commands. */
  command(type: CommandType, payload: object): Promise<{ id: string; sequence: number } | null>;
}

export const accessCodeInUse = () =>
  new AppError(409, 'ACCESS_CODE_IN_USE', 'Another enabled visitor of this facility already has this access code; choose another code.', [
    { path: 'accessCode', message: 'is already used by an enabled visitor of this facility' },
  ]);

const CONSTRAINTS: Record<string, () => AppError> = {
  visitors_enabled_access_code: accessCodeInUse,
  units_facility_number: () =>
    new AppError(409, 'UNIT_NUMBER_TAKEN', 'The facility already has a unit with this unit number.', [{ path: 'unitNumber', message: 'is already used by another unit of this facility' }]),
};

export async function inChange<T>(ac: AccessControl, facilityId: string, suppressCommands: boolean, work: (change: Change) => Promise<T>): Promise<T> {
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
      }),
    );
  } catch (error) {
    throw translateDatabaseError(error);
  }
  if (wrote) ac.signals.notify(facilityId);
  return result;
}

/** The face's own unique constraints, named as rules; every other database error is translated for all faces (src/errors.ts). */
export function translateDatabaseError(error: unknown): unknown {
  const pgError = error as { code?: string; constraint?: string };
  if (pgError?.code === '23505' && pgError.constraint && CONSTRAINTS[pgError.constraint]) return CONSTRAINTS[pgError.constraint]!();
  return error;
}


/** What a refresh answers: its command, and how many units or visitors it carries. */
export interface RefreshResult {
  command: { id: string; sequence: number; type: string; status: 'pending' };
  count: number;
}
