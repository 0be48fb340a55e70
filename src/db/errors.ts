// The one place that decides whether an error means "the database cannot serve right now": it is
// unreachable, restarting, out of connections, or did not answer in time (a statement or lock
// timeout). Such a failure is the client's cue to retry later (503 with Retry-After), not a
// fault of the service (500). Pure: it looks at the error's shape only.
import { AppError } from '../errors.ts';

interface DatabaseUnavailable {
  /** Why, for the client and the log: never SQL, row values or the server's message. */
  detail: string;
  retryAfterSeconds: number;
}

const UNREACHABLE: DatabaseUnavailable = {
  detail: 'The database cannot be reached at the moment. Retry after the time in Retry-After.',
  retryAfterSeconds: 5,
};
const BUSY: DatabaseUnavailable = {
  detail:
    'The database did not answer in time (a lock held by other work, or a statement that ran too long); nothing was changed. Retry after the time in Retry-After.',
  retryAfterSeconds: 2,
};
const OUT_OF_CONNECTIONS: DatabaseUnavailable = {
  detail: 'No connection to the database is free at the moment. Retry after the time in Retry-After.',
  retryAfterSeconds: 2,
};

// SQLSTATEs (PostgreSQL appendix A) of a server that cannot serve the statement now.
const BY_SQLSTATE: Record<string, DatabaseUnavailable> = {
  '57P01': UNREACHABLE, // admin_shutdown: the server is shutting down, or our session was terminated
  '57P02': UNREACHABLE, // crash_shutdown
  '57P03': UNREACHABLE, // cannot_connect_now: starting up or in recovery
  // read_only_sql_transaction: a standby still read-only (a failover's DNS moved before the promotion)
  '25006': UNREACHABLE,
  '57014': BUSY, // query_canceled: statement_timeout (nothing here cancels statements otherwise)
  '55P03': BUSY, // lock_not_available: lock_timeout
  '25P03': BUSY, // idle_in_transaction_session_timeout ended the session
  '53300': OUT_OF_CONNECTIONS, // too_many_connections
};

// Node's codes for a connection that could not be made or was lost.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

// What `pg` and `pg-pool` throw, without a code, when there is no connection to run on.
const DRIVER_MESSAGES: [RegExp, DatabaseUnavailable][] = [
  [/^timeout exceeded when trying to connect$/, OUT_OF_CONNECTIONS], // pg-pool: every connection busy until connectionTimeoutMillis
  [/^Connection terminated/, UNREACHABLE], // "… unexpectedly", "… due to connection timeout" (a new connection not answered)
  [/^Client has encountered a connection error and is not queryable$/, UNREACHABLE],
  [/^Client was closed and is not queryable$/, UNREACHABLE],
  [/^Cannot use a pool after calling end on the pool$/, UNREACHABLE], // shutting down
];

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  severity?: unknown;
  /** Set on a socket's or DNS's own errors (not on a request the client aborted, which also says ECONNRESET). */
  syscall?: unknown;
  /** The AWS SDK's errors (the S3 blob store) carry this; their network codes are not the database's. */
  $metadata?: unknown;
}

/** 503 DATABASE_UNAVAILABLE with Retry-After for an error that means the database cannot serve now; else null. */
export function databaseUnavailable(error: unknown): AppError | null {
  const unavailable = classify(error);
  if (!unavailable) return null;
  return new AppError(503, 'DATABASE_UNAVAILABLE', unavailable.detail, [], {
    'retry-after': String(unavailable.retryAfterSeconds),
  });
}

function classify(error: unknown): DatabaseUnavailable | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message, severity, syscall, $metadata } = error as ErrorShape;
  if (typeof code === 'string') {
    // A server's error (pg's DatabaseError carries the severity): by SQLSTATE, class 08 whole.
    if (typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      return BY_SQLSTATE[code] ?? (code.startsWith('08') ? UNREACHABLE : null);
    }
    // The socket's own error: pg passes it on as it is. ioredis rejects commands with errors of its
    // own and fetch wraps its cause, so only the S3 client's need telling apart.
    if (NETWORK_CODES.has(code) && typeof syscall === 'string' && $metadata === undefined) return UNREACHABLE;
  }
  if (typeof message === 'string') return DRIVER_MESSAGES.find(([pattern]) => pattern.test(message))?.[1] ?? null;
  return null;
}
