// What every command of the `gatehouse` command line shares: the expected-failure type, the
// refusal of a data directory that holds no Gatehouse data, opening the database for a one-shot
// command and saying which one it is, and printing its one JSON answer.
import fs from 'node:fs';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { dataDirLayout, readLockOwner } from '../db/data-dir.ts';
import { describeDatabaseUrl } from '../db/start-failures.ts';
import { hasCluster } from '../db/template.ts';
import { applyMigrations } from '../services.ts';
import { createLogger } from '../logger.ts';

export class CliError extends Error {
  override name = 'CliError';
}

/** Says on stderr, in one line, which database or directory a command works on (stdout stays its JSON). */
export function tell(what: string): void {
  process.stderr.write(`gatehouse: ${what}\n`);
}

const NO_SERVICE_DATA_HINT =
  "name the server's data directory with --data-dir (or DATA_DIR), or run `gatehouse migrate` to create one";

/**
 * A command that only reads or writes service data must not quietly start an empty database of
 * its own (a mistyped or forgotten DATA_DIR once answered `{"items":[]}` from a stray ./data).
 * On the embedded database, a data directory that does not exist, is empty or holds no database
 * is refused here, before anything is created in it. (With DATABASE_URL the data directory holds
 * only keys and blobs: there is nothing to check.)
 */
export function requireServiceData(config: Pick<Config, 'dataDir' | 'databaseUrl'>): void {
  if (config.databaseUrl) return;
  const dir = config.dataDir;
  let why: string | null = null;
  if (!fs.existsSync(dir)) why = 'it does not exist';
  else if (!fs.statSync(dir).isDirectory()) why = 'it is not a directory';
  else if (!hasCluster(dataDirLayout(dir).pgData))
    why = fs.readdirSync(dir).length === 0 ? 'it is empty' : 'it has no database';
  if (why) throw new CliError(`${dir} holds no Gatehouse data (${why}): ${NO_SERVICE_DATA_HINT}`);
}

/** A database cluster that Gatehouse never migrated (say, another program's PGlite directory). */
async function requireMigrated(database: Database, dataDir: string): Promise<void> {
  const { rows } = await database.pool.query<{ table: string | null }>(
    "select to_regclass('gatehouse_migrations')::text as table",
  );
  if (rows[0]?.table == null)
    throw new CliError(`${dataDir} holds no Gatehouse data (its database was never migrated): ${NO_SERVICE_DATA_HINT}`);
}

/** The database a command opened, for the line on stderr: never a password. */
export function describeDatabase(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  if (config.databaseUrl) return `database: PostgreSQL at ${describeDatabaseUrl(config.databaseUrl)} (DATABASE_URL)`;
  // Opened through a running server's socket, the lock is that server's; opened here, it is ours
  // (readLockOwner does not name this process).
  const server = readLockOwner(config.dataDir);
  return server
    ? `database: embedded, data directory ${config.dataDir} (through the socket of the running server, process ${server.pid})`
    : `database: embedded, data directory ${config.dataDir}`;
}

export interface WithDatabaseOptions {
  /** `migrate` makes a new data directory (and database) when there is none; other commands refuse. */
  create?: boolean;
}

/**
 * Opens the migrated database for a one-shot command (the running server's, through its socket,
 * when it serves the embedded database), says which on stderr, runs the command, closes it. A
 * command builds none of the faces: it must not, say, make the gate-code key of a data directory
 * it only passes through.
 */
export async function withDatabase<T>(
  command: string,
  run: (database: Database) => Promise<T>,
  options: WithDatabaseOptions = {},
): Promise<T> {
  const config = loadConfig();
  if (!options.create) requireServiceData(config);
  const logger = createLogger(
    { logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel },
    process.stderr as never,
  );
  const database = await openDatabase(config, { role: 'client', command });
  try {
    tell(describeDatabase(config));
    if (!options.create && database.kind === 'embedded') await requireMigrated(database, config.dataDir);
    await applyMigrations(database, logger);
    return await run(database);
  } finally {
    await database.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
