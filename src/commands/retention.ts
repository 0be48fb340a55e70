// How long commands are kept: their expiry is recorded as a fact for push delivery (a command
// expires without any request), and they are deleted COMMAND_RETENTION_DAYS after creation.
import type { CommandsDeps } from './deps.ts';
import * as repo from './repository.ts';
import { COMMAND_RETENTION_DAYS } from './rules.ts';

/** Records the expiry of the commands that expired unacknowledged (push: command.status). Returns how many. */
export function recordExpiredCommands({ db }: Pick<CommandsDeps, 'db'>): Promise<number> {
  return repo.recordExpiredCommands(db);
}

/** Deletes commands created more than COMMAND_RETENTION_DAYS ago, in slices. Returns how many. */
export async function purgeOldCommands({ db }: Pick<CommandsDeps, 'db'>, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - COMMAND_RETENTION_DAYS * 86_400_000);
  const slice = 5000;
  let total = 0;
  for (;;) {
    const deleted = await repo.deleteCommandsCreatedBefore(db, cutoff, slice);
    total += deleted;
    if (deleted < slice) return total;
  }
}
