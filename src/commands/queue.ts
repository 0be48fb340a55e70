// Writing commands: one change of a facility's data is a transaction that does the work and writes
// its commands (unless suppressed), numbered by the facility's sequence; once committed, the
// controller's waiting poll is woken. Access control's changes (units, visitors, refreshes) and
// facility status's remote actions all write through here.
import type { Transaction } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { CommandsDeps } from './deps.ts';
import * as repo from './repository.ts';
import type { CommandRow } from './repository.ts';
import type { CommandType } from './rules.ts';

export interface Change {
  trx: Transaction<Tables>;
  /** Records the change's command; null when the change suppresses commands. */
  command(type: CommandType, payload: object): Promise<{ id: string; sequence: number } | null>;
  /** The facility's newest command of a type, with its status (a repeated request decides on it). */
  newestOfType(type: CommandType): Promise<CommandRow | undefined>;
  /**
   * Takes the facility's command sequence lock (held until commit) without writing a command: a
   * change that reads the state before it writes (a refresh) then sees every command committed
   * before its own, so the full state never overwrites a newer change on the controller.
   */
  holdSequence(): Promise<void>;
  /**
   * The facility's commands after a sequence that are not settled (neither acknowledged, failed nor
   * expired): what a controller that applied up to it has still to apply.
   */
  unsettledAfter(sequence: number): Promise<{ type: CommandType; payload: unknown }[]>;
}

/**
 * Runs `work` in one transaction that may write the facility's commands; wakes the facility's
 * waiting polls once it commits. Errors are the work's or the database's, untranslated (the
 * caller names its own constraints).
 */
export async function inChange<T>(
  { db, notifyAcrossInstances, signals }: Pick<CommandsDeps, 'db' | 'notifyAcrossInstances' | 'signals'>,
  facilityId: EntityId,
  suppressCommands: boolean,
  work: (change: Change) => Promise<T>,
): Promise<T> {
  let wrote = false;
  const result = await db.transaction().execute(async (trx) =>
    work({
      trx,
      async command(type, payload) {
        if (suppressCommands) return null;
        const written = await addCommand(trx, facilityId, type, payload, notifyAcrossInstances);
        wrote = true;
        return written;
      },
      newestOfType: (type) => repo.findNewestCommandOfType(trx, facilityId, type),
      holdSequence: () => repo.lockCommandSequence(trx, facilityId),
      unsettledAfter: (sequence) => repo.selectUnsettledCommandsAfter(trx, facilityId, sequence),
    }),
  );
  if (wrote) signals.notify(facilityId);
  return result;
}

/**
 * Records one command for the facility's controller, inside the caller's transaction. The
 * facility's sequence row stays locked until commit, so commands commit in sequence order.
 */
async function addCommand(
  trx: Transaction<Tables>,
  facilityId: EntityId,
  type: CommandType,
  payload: object,
  notifyAcrossInstances: boolean,
): Promise<{ id: string; sequence: number }> {
  const sequence = await repo.nextCommandSequence(trx, facilityId);
  const id = await repo.insertCommand(trx, { facilityId, sequence, type, payload });
  if (notifyAcrossInstances) await repo.notifyCommandWritten(trx, facilityId);
  return { id, sequence };
}
