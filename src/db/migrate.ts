// Versioned SQL migrations: src/db/migrations/NNNN_name.sql, applied in order, each in its own
// transaction, under an advisory lock so that several instances starting at once apply each
// file exactly once. The same files run on PGlite and PostgreSQL 15.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { codeFile } from '../code-dir.ts';
import { DatabaseUnavailableError, databaseTarget, explainDatabaseFailure } from './start-failures.ts';

const MIGRATIONS_DIR = codeFile('db', 'migrations');
const LOCK_KEY = 727_001; // pg_advisory_lock key for migrations

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(dir, file), 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file.slice(5, -4),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

/** The database was migrated by files that differ from this version's (a pre-release schema). */
export class MigrationMismatchError extends Error {
  override name = 'MigrationMismatchError';
  constructor(readonly changed: string[]) {
    super(
      `the database was made by migrations that differ from this version's (${changed.join(', ')}); ` +
        'it cannot be upgraded in place: start on an empty DATA_DIR or database',
    );
  }
}

export interface MigrationResult {
  applied: string[];
  changed: string[];
}

// Within one process, runs are queued here: on the embedded database every connection shares
// one backend session, so the advisory lock (a session lock) cannot exclude them from each other.
// Between processes, the advisory lock does it on PostgreSQL, the data-directory lock on PGlite.
let queue: Promise<unknown> = Promise.resolve();

export function migrate(pool: pg.Pool, migrations: Migration[] = readMigrations()): Promise<MigrationResult> {
  const run = queue
    .then(() => migrateLocked(pool, migrations))
    .catch((error: unknown) => {
      throw permissionRefusal(pool, error) ?? error;
    });
  queue = run.catch(() => {});
  return run;
}

async function migrateLocked(pool: pg.Pool, migrations: Migration[]): Promise<MigrationResult> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // Waiting for another instance's migrations, or a migration that takes long, is not a stuck
    // database: this session runs without the pool's statement and lock timeouts until released.
    await client.query('set statement_timeout = 0; set lock_timeout = 0');
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      await client.query(`create table if not exists gatehouse_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now())`);
      const { rows } = await client.query<{ version: number; checksum: string }>(
        'select version, checksum from gatehouse_migrations',
      );
      const done = new Map(rows.map((row) => [row.version, row.checksum]));
      const result: MigrationResult = { applied: [], changed: [] };
      for (const migration of migrations) {
        const label = `${String(migration.version).padStart(4, '0')}_${migration.name}`;
        if (done.has(migration.version)) {
          if (done.get(migration.version) !== migration.checksum) result.changed.push(label);
          continue;
        }
        await client.query('begin');
        try {
          await client.query(migration.sql);
          await client.query('insert into gatehouse_migrations (version, name, checksum) values ($1, $2, $3)', [
            migration.version,
            migration.name,
            migration.checksum,
          ]);
          await client.query('commit');
        } catch (error) {
          await client.query('rollback');
          throw new Error(`migration ${label} failed: ${(error as Error).message}`, { cause: error });
        }
        result.applied.push(label);
      }
      return result;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  } finally {
    await client.query('reset statement_timeout; reset lock_timeout').catch((error: Error) => (broken = error));
    // A session whose limits could not be restored is not given back to the pool.
    client.release(broken);
  }
}

/**
 * A role that may not create what the migrations or the job queue's schema make (42501, on a
 * PostgreSQL server: the embedded database's user is its superuser): one line that names the
 * privileges it needs.
 */
export function permissionRefusal(pool: pg.Pool, error: unknown): DatabaseUnavailableError | null {
  const refused = error instanceof Error && error.cause ? error.cause : error;
  const url = pool.options.connectionString;
  if ((refused as { code?: unknown }).code !== '42501' || !url) return null;
  return new DatabaseUnavailableError(explainDatabaseFailure(refused, databaseTarget(url)));
}

/** True when every migration in the repository has been applied. */
export async function migrationsApplied(pool: pg.Pool, migrations: Migration[] = readMigrations()): Promise<boolean> {
  const { rows } = await pool.query<{ n: number }>(
    'select count(*)::int as n from gatehouse_migrations where version = any($1::int[])',
    [migrations.map((m) => m.version)],
  );
  return rows[0]!.n === migrations.length;
}
