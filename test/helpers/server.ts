// The real server process fixture: a fresh database and `gatehouse serve` on it, for the tests of a
// file (or of the describe it is called in). Started in a before hook, killed and dropped in an after
// hook, so a test file says only what is particular to it:
//
//   const served = realServer({ RATE_LIMIT_PER_MINUTE: '100000' });
//   it('…', async () => { const client = clientFor(served.url, token); … });
import { after, before } from 'node:test';
import { createTestDatabase, type TestDatabase } from './harness.ts';
import { startServerProcess, type ServerProcess } from './process.ts';

export interface RealServer {
  /** The server's database (its env for the command line: `served.database.env`). */
  readonly database: TestDatabase;
  /** The running server (the one `restart` started last). */
  readonly server: ServerProcess;
  /** Its origin, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  /** The env the server was started with: the database's and the file's. */
  readonly env: Record<string, string>;
  /** Starts the server again on the same database (after a test killed it), with extra env. */
  restart(env?: Record<string, string>): Promise<ServerProcess>;
}

export interface RealServerOptions {
  /**
   * What the file prepares before the server starts (a receiver, an image host, applications made
   * with the command line on the fresh database); the env it answers is added to the server's.
   */
  prepare?: (database: TestDatabase) => Promise<Record<string, string> | undefined>;
  /**
   * What the file sets up once the server serves (tokens, tenants). Here rather than in a before
   * hook of its own: Node 20 runs a file's top-level before hooks at once, not one after another.
   */
  started?: (served: RealServer) => Promise<void>;
  /** Closed after the server stops, before the database is dropped. */
  cleanup?: () => Promise<void> | void;
  /** How the server is stopped at the end (SIGTERM by default). */
  signal?: NodeJS.Signals;
}

export function realServer(env: Record<string, string> = {}, options: RealServerOptions = {}): RealServer {
  let database: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  let serverEnv: Record<string, string> = {};
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`the real server fixture has no ${what} yet (used before its before hook)`);
    return value;
  };
  before(async () => {
    database = await createTestDatabase();
    const prepared = (await options.prepare?.(database)) ?? {};
    serverEnv = { ...database.env, ...env, ...prepared };
    server = await startServerProcess(serverEnv);
    await options.started?.(served);
  });
  after(async () => {
    await server?.kill(options.signal ?? 'SIGTERM');
    await options.cleanup?.();
    await database?.drop();
  });
  const served: RealServer = {
    get database() {
      return required(database, 'database');
    },
    get server() {
      return required(server, 'server');
    },
    get url() {
      return required(server, 'server').url;
    },
    get env() {
      return serverEnv;
    },
    async restart(extra = {}) {
      await server?.kill();
      server = await startServerProcess({ ...serverEnv, ...extra });
      return server;
    },
  };
  return served;
}
