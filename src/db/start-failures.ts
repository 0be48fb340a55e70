// Why the service could not start, in one sentence that names the fix: what PostgreSQL, its driver
// or the file system said, translated once, here. The rest of the service handles the same codes
// differently once it runs (db/errors.ts: a 503 to retry); at start-up there is no one to retry
// for, only a person reading one line. Pure: an error's shape and the facts the caller gathered in,
// a sentence out. A DatabaseTarget holds no password, so no sentence can show one.

/** The database cannot be used: the service cannot start (or a command run) on it. One line, by name (main.ts). */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** Where DATABASE_URL points, without its password. */
export interface DatabaseTarget {
  host: string;
  port: number;
  database: string;
  /** Empty: the URL names none (the driver then uses the operating system's user name). */
  user: string;
}

/**
 * DATABASE_URL's parts as the driver reads them: host (or `?host=`, a socket directory), port
 * 5432, and the database named after the user when the URL names none.
 */
export function databaseTarget(databaseUrl: string): DatabaseTarget {
  const url = new URL(databaseUrl);
  const user = safeDecode(url.username);
  const host = url.searchParams.get('host') || safeDecode(url.hostname).replace(/^\[(.*)\]$/, '$1') || 'localhost';
  return { host, port: Number(url.port) || 5432, database: safeDecode(url.pathname.slice(1)) || user, user };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** host:port as a person writes it (a socket directory as it is). */
export function databaseAddress({ host, port }: DatabaseTarget): string {
  if (host.startsWith('/')) return `${host} (socket, port ${port})`;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  severity?: unknown;
}

type Explain = (target: DatabaseTarget, serverMessage: string) => string;

const user = (t: DatabaseTarget) => (t.user ? `user "${t.user}"` : 'the default user');

/** The `createdb` that makes the missing database, with only the options that differ from its defaults. */
function createdbCommand(t: DatabaseTarget): string {
  const options = [`-h ${t.host}`];
  if (t.port !== 5432) options.push(`-p ${t.port}`);
  if (t.user) options.push(`-U ${t.user}`);
  return `createdb ${options.join(' ')} ${t.database}`;
}

const UNREACHABLE: Explain = (t) =>
  `no PostgreSQL is answering at ${databaseAddress(t)} (DATABASE_URL): is it running, and listening there? check the host and port in DATABASE_URL`;
const TOO_SLOW: Explain = (t) =>
  `PostgreSQL at ${databaseAddress(t)} (DATABASE_URL) did not answer in time: is it running, and reachable from this machine (network, firewall)? check the host and port in DATABASE_URL`;

/**
 * A server's refusal, by SQLSTATE (PostgreSQL's appendix A). Authentication failures keep the
 * server's own sentence: it says which of user, host, database or encryption its rules refused.
 */
const BY_SQLSTATE: Record<string, Explain> = {
  '3D000': (t) =>
    `database "${t.database}" does not exist on ${databaseAddress(t)}: create it (${createdbCommand(t)}) or correct DATABASE_URL`,
  '28P01': (t) =>
    `PostgreSQL at ${databaseAddress(t)} refused the password of ${user(t)}: check the user and password in DATABASE_URL`,
  '28000': (t, said) =>
    `PostgreSQL at ${databaseAddress(t)} does not let ${user(t)} connect to database "${t.database}" (${said}): check the user in DATABASE_URL (the role must exist, and the server's pg_hba.conf allow it from here)`,
  // The migrations create tables in schema public, the job queue its own schema. Since PostgreSQL 15
  // schema public belongs to the database's owner (pg_database_owner): owning the database is enough.
  '42501': (t, said) =>
    `${user(t)} may not set up database "${t.database}" on ${databaseAddress(t)} (${said}): the role needs CONNECT and CREATE on the database and CREATE on its schema public; simplest, make it the database's owner (ALTER DATABASE ${t.database} OWNER TO ${t.user || 'the_role'}) or correct DATABASE_URL`,
  '53300': (t) =>
    `PostgreSQL at ${databaseAddress(t)} has no connection free (too many connections): close idle clients or raise its max_connections (each Gatehouse instance uses up to 22), then start again`,
  '57P03': (t) =>
    `PostgreSQL at ${databaseAddress(t)} is starting up or recovering and does not accept connections yet: start again in a moment`,
};

/** The socket's or the DNS lookup's own errors (Node's codes). */
const BY_ERRNO: Record<string, Explain> = {
  ECONNREFUSED: UNREACHABLE,
  ENOENT: UNREACHABLE, // a Unix socket that is not there
  ECONNRESET: UNREACHABLE,
  ENOTFOUND: (t) =>
    `the host "${t.host}" in DATABASE_URL is not known here (DNS lookup failed): check the host in DATABASE_URL`,
  EAI_AGAIN: (t) =>
    `the host "${t.host}" in DATABASE_URL could not be looked up (DNS did not answer): check the host in DATABASE_URL and this machine's DNS`,
  ETIMEDOUT: TOO_SLOW,
  EHOSTUNREACH: TOO_SLOW,
  ENETUNREACH: TOO_SLOW,
};

/** What the driver (`pg`, `pg-pool`) throws without a code. */
const BY_DRIVER_MESSAGE: [RegExp, Explain][] = [
  [/timeout/i, TOO_SLOW], // "Connection terminated due to connection timeout", "timeout exceeded when trying to connect"
  [
    /client password must be a string/,
    (t) =>
      `PostgreSQL at ${databaseAddress(t)} asks ${user(t)} for a password and DATABASE_URL gives none: add it (postgres://user:password@host:port/database)`,
  ],
  [
    /does not support SSL/,
    (t) =>
      `PostgreSQL at ${databaseAddress(t)} does not accept SSL connections: remove sslmode (or ssl) from DATABASE_URL, or enable SSL on the server`,
  ],
  [/^Connection terminated unexpectedly/, UNREACHABLE],
];

/**
 * The one line for a PostgreSQL server (DATABASE_URL) the service could not start on: a sentence
 * with the fix for the common failures; the code (or the driver's message) for any other.
 */
export function explainDatabaseFailure(error: unknown, target: DatabaseTarget): string {
  const { code, message, severity } = (typeof error === 'object' && error !== null ? error : {}) as ErrorShape;
  const said = typeof message === 'string' ? message : String(error);
  // A server's error carries a severity; the socket's own (ECONNREFUSED…) and the driver's do not.
  const explain =
    typeof severity === 'string'
      ? BY_SQLSTATE[String(code)]
      : ((typeof code === 'string' ? BY_ERRNO[code] : undefined) ??
        BY_DRIVER_MESSAGE.find(([pattern]) => pattern.test(said))?.[1]);
  if (explain) return explain(target, said);
  const reason = typeof code === 'string' ? code : said;
  return `cannot connect to PostgreSQL at ${databaseAddress(target)}/${target.database} (DATABASE_URL): ${reason}`;
}

/** What the caller found out about the data directory that failed, for explainDataDirFailure. */
export interface DataDirFailure {
  /** The file system's code (EACCES, ENOSPC…). */
  code: string;
  dataDir: string;
  /** The nearest of the directory and its parents that exists (what refused it, when it is missing). */
  existing: string;
  /** Whether `existing` is a directory (not: a file stands where a directory must be). */
  existingIsDirectory: boolean;
  /** This process's user id (null where the platform has none). */
  uid: number | null;
}

const NAME_A_DIRECTORY = 'name a directory (it is created if missing)';

/** The one line for a DATA_DIR that cannot be created or written, with the fix. */
export function explainDataDirFailure(failure: DataDirFailure): string {
  const { code, dataDir, existing, existingIsDirectory, uid } = failure;
  const missing = existing !== dataDir;
  const who = uid === null ? 'this user' : `this user (uid ${uid})`;
  if (!existingIsDirectory) {
    return missing
      ? `DATA_DIR ${dataDir} cannot be created: ${existing} is a file, not a directory: ${NAME_A_DIRECTORY}`
      : `DATA_DIR ${dataDir} is a file, not a directory: ${NAME_A_DIRECTORY}`;
  }
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return missing
        ? `DATA_DIR ${dataDir} cannot be created: ${existing} is not writable by ${who}: create it and give it to this user, or choose another DATA_DIR`
        : `DATA_DIR ${dataDir} is not writable by ${who}: change its owner or choose another DATA_DIR`;
    case 'ENOSPC':
      return `DATA_DIR ${dataDir} is on a full disk (ENOSPC): free some space there or choose another DATA_DIR`;
    case 'EDQUOT':
      return `DATA_DIR ${dataDir} is on a disk where ${who} has used up the quota (EDQUOT): free some space or choose another DATA_DIR`;
    case 'EROFS':
      return `DATA_DIR ${dataDir} is on a read-only file system (EROFS): choose a DATA_DIR on a writable one`;
    case 'ENAMETOOLONG':
      return `DATA_DIR ${dataDir} is too long a path (ENAMETOOLONG): choose a shorter DATA_DIR`;
    default:
      return `DATA_DIR ${dataDir} is not writable (${code}): choose another DATA_DIR`;
  }
}

/** The gate codes of the database were sealed with another key than this instance's: it cannot start on it. One line, by name (main.ts). */
export class CodeKeyRefusedError extends Error {
  override name = 'CodeKeyRefusedError';
}

/** What the caller knows of the key an instance was refused with, for explainCodeKeyFailure. */
export interface CodeKeyFacts {
  /** ACCESS_CODE_KEY is set; else the key is the data directory's key file. */
  fromSetting: boolean;
  /** DATA_DIR/keys/access-codes.key, resolved. */
  keyFile: string;
  /** The database as a sentence names it: `database host:5432/gh`, `the embedded database in /x`. */
  database: string;
}

/**
 * The one line for an instance whose gate-code key is not the one the database's codes were sealed
 * with (access-control/codes.ts refuses it: it would seal new codes another instance cannot read,
 * and read none of theirs) — typically a second instance given another ACCESS_CODE_KEY, or none
 * (then it made a key file of its own at its first start). Null for any other error.
 */
export function explainCodeKeyFailure(error: unknown, facts: CodeKeyFacts): string | null {
  const { name, reason } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    reason?: unknown;
  };
  // The other refusal of the same name (a key file that holds no key) says its own sentence.
  if (name !== 'CodeKeyMismatchError' || reason !== 'another') return null;
  const whose = facts.fromSetting
    ? "this instance's ACCESS_CODE_KEY"
    : `this instance's key, ${facts.keyFile} (ACCESS_CODE_KEY is not set: it was made at this instance's first start)`;
  return (
    `ACCESS_CODE_KEY: the gate codes in ${facts.database} were sealed with another key than ${whose}: ` +
    'every instance on one database needs the same key; set ACCESS_CODE_KEY to the key of the instance that ' +
    'started first (its ACCESS_CODE_KEY, or the contents of its DATA_DIR/keys/access-codes.key when it has none)'
  );
}

/** A database URL fit for a log line or an error message: no password. */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const target = databaseTarget(databaseUrl);
    return `${databaseAddress(target)}/${target.database}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}
