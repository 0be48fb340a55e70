// What every command of the `gatehouse` command line shares: the expected-failure type, opening
// the database for a one-shot command, and printing its one JSON answer.
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { applyMigrations } from '../services.ts';
import { createLogger } from '../logger.ts';

export class CliError extends Error {
  override name = 'CliError';
}

/**
 * Opens the migrated database for a one-shot command (the running server's, through its socket,
 * when it serves the embedded database), runs the command, closes it. A command builds none of
 * the faces: it must not, say, make the gate-code key of a data directory it only passes through.
 */
export async function withDatabase<T>(command: string, run: (database: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger(
    { logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel },
    process.stderr as never,
  );
  const database = await openDatabase(config, { role: 'client', command });
  try {
    await applyMigrations(database, logger);
    return await run(database);
  } finally {
    await database.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
