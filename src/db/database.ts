// One way to reach the database for every part of the service: a `pg` pool and Kysely over it,
// on a PostgreSQL server (DATABASE_URL) or on the embedded PGlite served from the data directory.
// The driver (pg, Kysely) is loaded while the embedded database's thread starts, not before it.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.ts';
import {
  dataDirLayout,
  DataDirError,
  EMBEDDED_PORT,
  lockDataDir,
  prepareDataDir,
  readLockOwner,
  socketAccepts,
} from './data-dir.ts';
import { startEmbeddedServer, type EmbeddedServer } from './embedded.ts';
import {
  DatabaseUnavailableError,
  databaseTarget,
  describeDatabaseUrl,
  explainDatabaseFailure,
} from './start-failures.ts';
import { hasCluster, preparedTemplate, seedFromTemplate } from './template.ts';
import type { Tables } from './tables.ts';

async function loadDriver() {
  const [{ default: pg }, { Kysely, PostgresDialect }] = await Promise.all([import('pg'), import('kysely')]);
  // int8 (bigint, count(*)) as a JS number: every such value here is far below 2^53.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  // numeric (money) as a JS number: two decimals at most, well within a double's precision.
  pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));
  return { pg, Kysely, PostgresDialect };
}
type Driver = Awaited<ReturnType<typeof loadDriver>>;

export interface Database {
  pool: pg.Pool;
  /**
   * The reads that follow the events as they are stored — the live streams' and webhook lanes'
   * tails: a few, shared and cheap, but due at once. On a PostgreSQL server a small pool of their
   * own (TAIL_POOL_SIZE connections), so that they never wait in the requests' queue behind a
   * fleet's batches (issue 25: streams fell tens of seconds behind while 20 connections served
   * hundreds of waiting requests); on the embedded database, one session for everything, `pool`.
   * The webhook lanes' work (their reads, fills and attempts' records) goes through it too: `tailDb`.
   */
  tailPool: pg.Pool;
  /** Kysely over `tailPool` (on the embedded database, `db`). */
  tailDb: Kysely<Tables>;
  db: Kysely<Tables>;
  kind: 'embedded' | 'postgres';
  /** Where it is, fit for a log line: no password. */
  location: string;
  /**
   * Calls `listener` each time one of the pool's connections is lost (a restart or failover, a
   * terminated backend, a reset on the way, the embedded worker ending it): its statements have
   * failed, and the pool makes a new connection for the next. Returns the unsubscribe.
   */
  onConnectionLost(listener: (error: Error) => void): () => void;
  /**
   * Runs one of the statements the service sends hundreds of times a second (a controller's batch)
   * as a named prepared statement (named by a hash of its text), so that the database parses and
   * plans it once per connection: a batch's statement planned in ~1.4 ms and ran in ~0.4 (issue 25,
   * docs/BENCHMARKS.md). The embedded database gives each connection its own names, as a server
   * does (pglite-worker.mjs). Only for statements whose best plan does not depend on their values
   * (an insert, a lookup by key): after five runs PostgreSQL may keep one generic plan for every value.
   */
  prepared<Row extends pg.QueryResultRow>(query: { sql: string; parameters: readonly unknown[] }): Promise<Row[]>;
  close(): Promise<void>;
}

/** A prepared statement's name: its text's, so that one name never means two statements. */
const statementName = (text: string) => `gh_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;

/** Database.prepared on a pool: the statement named by its text, parsed and planned once per connection. */
export async function preparedQuery<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  return (await pool.query<Row>({ name: statementName(text), text, values: [...values] })).rows;
}

export interface OpenOptions {
  /**
   * `owner`: this process serves the embedded database and refuses a data directory that another
   * process holds. `client`: use the running server's socket when there is one, else open the
   * data directory as its owner for the life of the command.
   */
  role: 'owner' | 'client';
  command: string;
  poolSize?: number;
  /**
   * A new embedded data directory starts as a copy of the prepared template (db/template.ts)
   * instead of an initdb and every migration. Default true; false initialises it in place.
   */
  fromTemplate?: boolean;
}

/** Connections of a server's tail pool (Database.tailPool). */
export const TAIL_POOL_SIZE = 4;

export async function openDatabase(config: Config, options: OpenOptions): Promise<Database> {
  const max = options.poolSize ?? 20;
  const losses = new ConnectionLosses();
  // The data directory holds signing keys and blobs on either database: it must be writable. On a
  // server it is made only once the server has answered: a refused start leaves nothing behind.
  const databaseUrl = config.databaseUrl;
  if (databaseUrl) {
    const driver = await loadDriver();
    const location = describeDatabaseUrl(databaseUrl);
    const serverPool = (size: number) =>
      listenedPool(driver, losses, {
        connectionString: databaseUrl,
        max: size,
        // A dead or unreachable server fails a request in seconds (also the longest wait for a free connection).
        connectionTimeoutMillis: 5000,
        keepAlive: true,
        // Sent as startup parameters: each of the pool's sessions carries them from its first statement.
        statement_timeout: config.databaseStatementTimeoutMs,
        lock_timeout: config.databaseLockTimeoutMs,
        idle_in_transaction_session_timeout: config.databaseIdleInTransactionTimeoutMs,
      });
    const pool = serverPool(max);
    const target = databaseTarget(databaseUrl);
    await probe(pool, (error) => explainDatabaseFailure(error, target));
    try {
      prepareDataDir(config.dataDir);
    } catch (error) {
      await pool.end();
      throw error;
    }
    // Made now, connected on its first read (a command that reads no tail opens none).
    const tailPool = serverPool(Math.min(max, TAIL_POOL_SIZE));
    return wrap(driver, pool, losses, 'postgres', location, async () => {}, tailPool);
  }

  prepareDataDir(config.dataDir);
  const layout = dataDirLayout(config.dataDir);
  if (options.role === 'client' && readLockOwner(config.dataDir) && (await socketAccepts(layout.socketPath))) {
    const driver = await loadDriver();
    const pool = embeddedPool(driver, losses, config.dataDir, Math.min(max, 4));
    await probe(
      pool,
      (error) => `cannot connect to the running server's database socket ${layout.socketPath}: ${reason(error)}`,
    );
    return wrap(driver, pool, losses, 'embedded', `${layout.pgData} (via the running server)`, async () => {});
  }

  const lock = lockDataDir(config.dataDir, options.command);
  let server: EmbeddedServer;
  let driver: Driver;
  try {
    if (options.fromTemplate !== false && !hasCluster(layout.pgData)) await seedDataDir(layout.pgData);
    // PGlite enforces no statement or lock timeout (one WASM thread, no timer interrupts, and its
    // connections are one session, so they never wait on each other's locks); what blocks there
    // is a connection that holds the socket's queue idle in a transaction, which the worker ends.
    // Its thread starts first; the driver loads meanwhile.
    const starting = startEmbeddedServer(config.dataDir, {
      idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs,
      sharedBuffersMb: config.embeddedSharedBuffersMb,
    });
    const loading = loadDriver();
    loading.catch(() => {});
    server = await starting;
    driver = await loading.catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  const pool = embeddedPool(driver, losses, config.dataDir, max);
  try {
    await probe(pool, (error) => `cannot connect to the embedded database in ${layout.pgData}: ${reason(error)}`);
  } catch (error) {
    await server.stop();
    lock.release();
    throw error;
  }
  return wrap(driver, pool, losses, 'embedded', layout.pgData, async () => {
    await server.stop();
    lock.release();
  });
}

/** A new data directory from the prepared template; on any failure, PGlite's initdb makes it in place. */
async function seedDataDir(pgData: string): Promise<void> {
  try {
    await seedFromTemplate(await preparedTemplate(), pgData);
  } catch (error) {
    process.stderr.write(
      `gatehouse: no prepared database template (${(error as Error).message}): initialising ${pgData} in place\n`,
    );
  }
}

function embeddedPool(driver: Driver, losses: ConnectionLosses, dataDir: string, max: number): pg.Pool {
  return listenedPool(driver, losses, {
    host: dataDirLayout(dataDir).socketDir,
    port: EMBEDDED_PORT,
    user: 'postgres',
    database: 'postgres',
    max,
    connectionTimeoutMillis: 10_000,
  });
}

/** Who hears of a lost connection; each loss is counted once, whatever else it failed. */
class ConnectionLosses {
  private readonly listeners = new Set<(error: Error) => void>();

  report(error: Error): void {
    for (const listener of this.listeners) listener(error);
  }

  subscribe(listener: (error: Error) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * The pool's connections, each with an 'error' listener for its whole life. pg's Client emits
 * 'error' when its connection ends unexpectedly (a restart or failover, pg_terminate_backend, a
 * reset on the way, an idle-in-transaction timeout) whether it is idle in the pool or checked out;
 * pg-pool listens only while it is idle, and an 'error' without a listener ends the process. The
 * statements in flight on it fail on their own (rejected with the same error, which
 * db/errors.ts answers with 503 and Retry-After), and a client that is not queryable any more is
 * dropped by the pool when released, so the listener only reports the loss, once.
 */
function listenedClient({ pg }: Driver, losses: ConnectionLosses): typeof pg.Client {
  return class ListenedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      let reported = false;
      this.on('error', (error: Error) => {
        if (reported) return;
        reported = true;
        losses.report(error);
      });
    }
  };
}

/** A pool of listened clients, listened itself from the start (before the probe). */
function listenedPool(driver: Driver, losses: ConnectionLosses, options: pg.PoolConfig): pg.Pool {
  const pool = new driver.pg.Pool({ ...options, Client: listenedClient(driver, losses) });
  // pg-pool re-emits an idle client's error on the pool, where an 'error' without a listener would
  // end the process too; the client's own listener has reported it.
  pool.on('error', () => {});
  return pool;
}

/** The first connection, before anything is written: a failure is refused in one line (`explain`). */
async function probe(pool: pg.Pool, explain: (error: unknown) => string): Promise<void> {
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new DatabaseUnavailableError(explain(error));
  }
}

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

function wrap(
  { Kysely, PostgresDialect }: Driver,
  pool: pg.Pool,
  losses: ConnectionLosses,
  kind: Database['kind'],
  location: string,
  afterPool: () => Promise<void>,
  tailPool: pg.Pool = pool,
): Database {
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const tailDb = tailPool === pool ? db : new Kysely<Tables>({ dialect: new PostgresDialect({ pool: tailPool }) });
  let closing: Promise<void> | null = null;
  return {
    pool,
    tailPool,
    tailDb,
    db,
    kind,
    location,
    onConnectionLost: (listener) => losses.subscribe(listener),
    async prepared<Row>(query: { sql: string; parameters: readonly unknown[] }) {
      const { rows } = await pool.query({
        name: statementName(query.sql),
        text: query.sql,
        values: [...query.parameters],
      });
      return rows as Row[];
    },
    close() {
      closing ??= (async () => {
        await db.destroy();
        // Kysely ends a pool only if it ever used it.
        if (!pool.ended) await pool.end();
        if (tailDb !== db) await tailDb.destroy();
        if (!tailPool.ended) await tailPool.end();
        await afterPool();
      })();
      return closing;
    },
  };
}

export { DataDirError, DatabaseUnavailableError };
