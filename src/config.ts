// The only reader of process.env. Every setting, its default and its rule lives here;
// docs/CONFIGURATION.md lists the same table for operators.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

export interface Config {
  port: number;
  host: string;
  /** PUBLIC_URL: where clients reach the service (the OpenAPI documents' server); null: not set (see serviceUrl). */
  publicUrl: string | null;
  /** Absolute path: embedded database, signing keys, blobs. */
  dataDir: string;
  /** A PostgreSQL server instead of the embedded database. */
  databaseUrl: string | null;
  /** Limits on every connection of the pool (0: none). A PostgreSQL server enforces all three; see docs/CONFIGURATION.md for the embedded database. */
  databaseStatementTimeoutMs: number;
  databaseLockTimeoutMs: number;
  databaseIdleInTransactionTimeoutMs: number;
  /** The embedded database's shared_buffers (MiB): most of its memory at idle. */
  embeddedSharedBuffersMb: number;
  redisUrl: string | null;
  /** A request not answered this long after it arrived (its body's upload excluded) is answered 503. */
  requestTimeoutMs: number;
  /** A Redis command that has not answered by then counts Redis as down (process memory is used). */
  redisCommandTimeoutMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Default request body limit; routes that take batches raise their own. */
  bodyLimitBytes: number;
  /** A request body not received in full this long after the service starts reading it is answered 408 (the connection closed). */
  bodyUploadTimeoutMs: number;
  /** The most fields a form body, or keys one object of a JSON body, may have (400 TOO_MANY_FIELDS beyond). */
  bodyFieldLimit: number;
  tokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** PEM of a PKCS#8 private key (ES256) to sign tokens with instead of the generated one. */
  jwtPrivateKeyPem: string | null;
  jwtIssuer: string;
  tokenFailureLimit: number;
  tokenFailureWindowSeconds: number;
  /** ACCESS_CODE_IN_USE answers per credential per minute (a code probe's budget); beyond, code-setting changes answer 429. */
  accessCodeConflictsPerMinute: number;
  rateLimitPerMinute: number;
  eventRetentionDays: number;
  /** Live event streams (…/stream) one credential may hold open at once on one instance; beyond, 429. */
  eventStreamsPerCredential: number;
  auctionRecreateWaitMinutes: number;
  /**
   * Hosts an image fetch may reach though their address is not public: IMAGE_FETCH_ALLOW_HOSTS, else
   * (when neither it nor WEBHOOK_ALLOW_HOSTS is set) OUTBOUND_ALLOW_HOSTS.
   */
  imageFetchAllowHosts: string[];
  /**
   * Hosts a subscription's webhook delivery may reach though their address is not public:
   * WEBHOOK_ALLOW_HOSTS, else (when neither it nor IMAGE_FETCH_ALLOW_HOSTS is set) OUTBOUND_ALLOW_HOSTS.
   */
  webhookAllowHosts: string[];
  /** A webhook receiver's time to answer (SPEC §6.4: 10 s). */
  webhookTimeoutMs: number;
  /** The first retry's wait; each next one doubles (with jitter), up to 4 h. */
  webhookRetryBaseMs: number;
  /** A subscription failing this long without a success is disabled (3 days). */
  webhookDisableAfterSeconds: number;
  /** How often the lanes with work are looked for. */
  webhookSweepMs: number;
  /** A webhook receiver's connection (TCP, TLS) must be made within this. */
  webhookConnectTimeoutMs: number;
  /** A webhook receiver must start answering (its status line and headers) within this. */
  webhookFirstByteTimeoutMs: number;
  /** Healthy webhook lanes worked at once per instance. */
  webhookConcurrency: number;
  /** Lanes whose deliveries have been failing worked at once per instance, in their own pool. */
  webhookFailingConcurrency: number;
  /** Lanes of one owner (an account, a partner) worked at once per instance, both pools together. */
  webhookLanesPerOwner: number;
  /** Pending deliveries one subscription may hold (a replay beyond it is refused). */
  webhookPendingPerSubscription: number;
  imageFetchTimeoutMs: number;
  blobStore: 'fs' | 's3';
  s3: {
    endpoint: string | null;
    bucket: string | null;
    region: string;
    accessKeyId: string | null;
    secretAccessKey: string | null;
  };
  supportWebhookUrl: string | null;
  /** Signs the support webhook's deliveries (Standard Webhooks): `whsec_` + base64, or base64; null: unsigned. */
  supportWebhookSecret: string | null;
  /** Seconds a graceful shutdown waits for in-flight work before it closes anyway (the drain delay included). */
  shutdownTimeoutSeconds: number;
  /**
   * Seconds between SIGTERM and the close during which the instance serves as before but /availability answers
   * 503, so that a load balancer takes it out before it stops accepting (0: it closes at once).
   */
  shutdownDrainDelaySeconds: number;
  /** Processes serving the port (cluster.ts): 1, or more on PostgreSQL only. */
  workers: number;
  /** 32-byte key that seals gate codes at rest (else DATA_DIR/keys/access-codes.key). */
  accessCodeKey: Buffer | null;
  /** Browser origins allowed to call the service (CORS): every origin, or these exactly (`scheme://host[:port]`). */
  corsOrigins: '*' | string[];
  /**
   * The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: addresses, CIDR ranges and
   * proxy-addr's names of ranges (loopback, linklocal, uniquelocal), as fastify's `trustProxy` takes
   * them. Empty: nobody's (the default); the client is the connection's peer.
   */
  trustProxy: string[];
  /** How log lines are written: JSON, readable text, or readable text when stdout is a terminal (auto). */
  logFormat: 'auto' | 'json' | 'pretty';
}

/**
 * Every setting's name: the one list that loadConfig may read (the readers below take a `Setting`,
 * so a name read but not listed does not compile; test/config.test.ts checks that each listed name is
 * read) and that misspeltSettings compares the environment with.
 */
export const SETTINGS = [
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'TRUST_PROXY',
  'DATA_DIR',
  'DATABASE_URL',
  'WORKERS',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'DATABASE_LOCK_TIMEOUT_MS',
  'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'EMBEDDED_SHARED_BUFFERS_MB',
  'REDIS_URL',
  'REDIS_COMMAND_TIMEOUT_MS',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'BODY_LIMIT_BYTES',
  'BODY_UPLOAD_TIMEOUT_MS',
  'BODY_FIELD_LIMIT',
  'TOKEN_TTL_SECONDS',
  'REFRESH_TOKEN_TTL_SECONDS',
  'JWT_PRIVATE_KEY',
  'JWT_ISSUER',
  'TOKEN_FAILURE_LIMIT',
  'TOKEN_FAILURE_WINDOW_SECONDS',
  'ACCESS_CODE_CONFLICTS_PER_MINUTE',
  'RATE_LIMIT_PER_MINUTE',
  'EVENT_RETENTION_DAYS',
  'EVENT_STREAMS_PER_CREDENTIAL',
  'AUCTION_RECREATE_WAIT_MINUTES',
  'IMAGE_FETCH_ALLOW_HOSTS',
  'WEBHOOK_ALLOW_HOSTS',
  'OUTBOUND_ALLOW_HOSTS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_CONNECT_TIMEOUT_MS',
  'WEBHOOK_FIRST_BYTE_TIMEOUT_MS',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_FAILING_CONCURRENCY',
  'WEBHOOK_LANES_PER_OWNER',
  'WEBHOOK_PENDING_PER_SUBSCRIPTION',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_DISABLE_AFTER_SECONDS',
  'WEBHOOK_SWEEP_MS',
  'IMAGE_FETCH_TIMEOUT_MS',
  'BLOB_STORE',
  'S3_ENDPOINT',
  'S3_BUCKET',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'SUPPORT_WEBHOOK_URL',
  'SUPPORT_WEBHOOK_SECRET',
  'ACCESS_CODE_KEY',
  'SHUTDOWN_TIMEOUT_SECONDS',
  'SHUTDOWN_DRAIN_DELAY_SECONDS',
  'CORS_ORIGINS',
] as const;

export type Setting = (typeof SETTINGS)[number];

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: Setting): string | null {
  const value = env[name];
  return value === undefined || value.trim() === '' ? null : value.trim();
}

interface Range {
  min: number;
  max: number;
  /** What one counts ("seconds", "MiB"); none for a plain number (a port). */
  unit?: string;
  /** What 0 means, when it is allowed and means something other than nothing ("no limit"). */
  zero?: string;
}

/**
 * A whole number within its range. Every numeric setting is read here, so that each refusal says
 * the same things: the unit, the range (and what 0 means) and what was given.
 */
function integer(env: Env, name: Setting, fallback: number, { min, max, unit, zero }: Range): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (value >= min && value <= max) return value;
  const from = min === 0 && zero ? `0 (${zero})` : String(min);
  const given = /^[-+]?[\d.]+$/.test(raw) ? raw : JSON.stringify(raw);
  throw new ConfigError(
    name,
    `must be a whole number${unit ? ` of ${unit}` : ''} from ${from} to ${max} (got ${given})`,
  );
}

function oneOf<T extends string>(env: Env, name: Setting, fallback: T, allowed: readonly T[]): T {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/**
 * A URL of one of `protocols`. A refusal shows the form to write (`form`), never the value: a URL
 * may hold a password.
 */
function url(env: Env, name: Setting, protocols: string[], form: string): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a valid URL: write it as ${form}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    const schemes = protocols.map((p) => `${p}//`).join(' or ');
    throw new ConfigError(name, `must start with ${schemes} (got ${parsed.protocol}): write it as ${form}`);
  }
  return raw;
}

const WITH_CREDENTIALS = 'with @ : / # ? % in the user or password percent-encoded (@ as %40)';
const HTTP_URL = 'https://host[:port][/path]';

/**
 * `*`, or a comma-separated list of origins as browsers send them: `http(s)://host[:port]`, without
 * a path, a trailing slash, credentials or a wildcard. Each is kept in the form of the browser's
 * `Origin` header (host lower-cased, a default port dropped), so that comparing is exact.
 */
function corsOrigins(env: Env, name: Setting): '*' | string[] {
  const raw = text(env, name);
  if (raw === null || raw === '*') return '*';
  const listed = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  if (listed.length === 0) throw new ConfigError(name, `lists no origin, got "${raw}"`);
  const origins = new Set<string>();
  for (const entry of listed) {
    if (entry === '*') throw new ConfigError(name, '"*" allows every origin and cannot be listed with others');
    const origin = originOf(entry);
    if (origin === null) {
      throw new ConfigError(
        name,
        `"${entry}" is not an origin: scheme://host[:port] with http or https, no path (e.g. https://pms.example.com)`,
      );
    }
    origins.add(origin);
  }
  return [...origins];
}

function originOf(entry: string): string | null {
  if (!/^https?:\/\/[^/?#@\s*\\]+$/i.test(entry)) return null;
  try {
    return new URL(entry).origin;
  } catch {
    return null;
  }
}

/**
 * A Standard Webhooks signing secret: what the `standardwebhooks` library accepts (base64, with
 * or without the `whsec_` prefix), of at least 16 bytes (the specification asks for 24 to 64).
 * The error never quotes the value: it is a secret.
 */
function webhookSecret(env: Env, name: Setting): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  const base64 = raw.startsWith('whsec_') ? raw.slice('whsec_'.length) : raw;
  let accepted = /^[A-Za-z0-9+/]+={0,2}$/.test(base64) && Buffer.from(base64, 'base64').length >= 16;
  try {
    if (accepted) new Webhook(raw);
  } catch {
    accepted = false;
  }
  if (!accepted) {
    throw new ConfigError(
      name,
      'must be a Standard Webhooks secret: "whsec_" and base64 of at least 16 bytes, or that base64 alone',
    );
  }
  return raw;
}

/** A comma-separated list of `host` or `host:port` entries, lower-cased, without repeats; null when unset or empty. */
function hostList(env: Env, name: Setting): string[] | null {
  const hosts: string[] = [];
  for (const entry of (text(env, name) ?? '').split(',')) {
    const host = entry.trim().toLowerCase();
    if (host === '') continue;
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host))
      throw new ConfigError(name, `"${host}" is not a host or host:port`);
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts.length > 0 ? hosts : null;
}

/** proxy-addr's names of ranges (fastify's `trustProxy` expands them): 127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10; 10/8, 172.16/12, 192.168/16 and fc00::/7. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

const TRUST_PROXY_FORM =
  'an IPv4 or IPv6 address, a CIDR range (10.0.0.0/8, fd00::/8) or loopback, linklocal, uniquelocal';

/**
 * TRUST_PROXY: a comma-separated list of the proxies whose forwarding headers are believed. Each entry is
 * checked here, strictly (node's own address grammar, a prefix length of at least 1), so that a typing
 * slip stops the start naming the entry instead of reaching fastify, whose address parser also takes
 * forms no one means (`10` as 0.0.0.10). Trusting every address is refused: anyone could then choose
 * the address the per-address limits count.
 */
function trustProxy(env: Env, name: Setting): string[] {
  const trusted: string[] = [];
  for (const raw of (text(env, name) ?? '').split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const normal = PROXY_RANGE_NAMES.includes(entry.toLowerCase()) ? entry.toLowerCase() : proxyRange(entry);
    if (normal === null) {
      const everyone = ['*', 'true', 'all', '0.0.0.0/0', '::/0'].includes(entry.toLowerCase());
      throw new ConfigError(
        name,
        everyone
          ? `"${entry}" would trust every address, so that any client could choose its own; list the proxies' addresses or ranges`
          : `"${entry}" is not ${TRUST_PROXY_FORM}`,
      );
    }
    if (!trusted.includes(normal)) trusted.push(normal);
  }
  return trusted;
}

/** An address, or `address/prefix` with a prefix from 1 to its width; null when it is not one. */
function proxyRange(entry: string): string | null {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = address.includes('%') ? 0 : net.isIP(address); // a zone (fe80::1%eth0) names no peer address
  if (family === 0) return null;
  if (slash < 0) return address.toLowerCase();
  const prefix = entry.slice(slash + 1);
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : 0;
  return bits >= 1 && bits <= (family === 4 ? 32 : 128) ? `${address.toLowerCase()}/${bits}` : null;
}

/**
 * WORKERS: how many processes serve the port (src/cluster.ts). `auto` is one per core on PostgreSQL
 * and 1 on the embedded database; more than 1 needs PostgreSQL: the embedded database is served by
 * one process (its data directory is locked to it).
 */
function workers(env: Env, name: Setting, databaseUrl: string | null): number {
  const raw = text(env, name);
  if (raw === null) return 1;
  if (raw.toLowerCase() === 'auto') return databaseUrl ? os.availableParallelism() : 1;
  const count = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(count >= 1 && count <= 1024)) {
    const given = /^[-+]?[\d.]+$/.test(raw) ? raw : JSON.stringify(raw);
    throw new ConfigError(
      name,
      `must be auto (one per core) or a whole number of processes from 1 to 1024 (got ${given})`,
    );
  }
  if (count > 1 && !databaseUrl) {
    throw new ConfigError(
      name,
      `${count} processes need DATABASE_URL (PostgreSQL): the embedded database is served by one process; set WORKERS=1 or DATABASE_URL`,
    );
  }
  return count;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const blobStore = oneOf(env, 'BLOB_STORE', 'fs', ['fs', 's3'] as const);
  const s3 = {
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:'], HTTP_URL),
    bucket: text(env, 'S3_BUCKET'),
    region: text(env, 'S3_REGION') ?? 'us-east-1',
    accessKeyId: text(env, 'S3_ACCESS_KEY_ID'),
    secretAccessKey: text(env, 'S3_SECRET_ACCESS_KEY'),
  };
  if (blobStore === 's3' && !s3.bucket) throw new ConfigError('S3_BUCKET', 'is required when BLOB_STORE=s3');

  // An allow-list per purpose: an internal image host is not thereby open to every tenant's webhooks.
  // OUTBOUND_ALLOW_HOSTS serves both purposes only when set alone; once either specific list is set,
  // the specific lists govern (an unset one is empty).
  const outbound = hostList(env, 'OUTBOUND_ALLOW_HOSTS');
  const imageHosts = hostList(env, 'IMAGE_FETCH_ALLOW_HOSTS');
  const webhookHosts = hostList(env, 'WEBHOOK_ALLOW_HOSTS');
  const specific = imageHosts !== null || webhookHosts !== null;
  const imageFetchAllowHosts = specific ? (imageHosts ?? []) : (outbound ?? []);
  const webhookAllowHosts = specific ? (webhookHosts ?? []) : (outbound ?? []);

  const privateKey = text(env, 'JWT_PRIVATE_KEY');
  if (privateKey !== null && !privateKey.includes('BEGIN PRIVATE KEY')) {
    throw new ConfigError('JWT_PRIVATE_KEY', 'must be a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----")');
  }

  const accessCodeKeyText = text(env, 'ACCESS_CODE_KEY');
  let accessCodeKey: Buffer | null = null;
  if (accessCodeKeyText !== null) {
    accessCodeKey = /^[0-9a-f]{64}$/i.test(accessCodeKeyText)
      ? Buffer.from(accessCodeKeyText, 'hex')
      : Buffer.from(accessCodeKeyText, 'base64url');
    if (accessCodeKey.length !== 32)
      throw new ConfigError('ACCESS_CODE_KEY', 'must be 32 bytes, as 64 hex digits or base64');
  }

  const port = integer(env, 'PORT', 8080, { min: 0, max: 65535, zero: 'any free port' });
  const shutdownTimeoutSeconds = integer(env, 'SHUTDOWN_TIMEOUT_SECONDS', 35, { min: 1, max: 600, unit: 'seconds' });
  const shutdownDrainDelaySeconds = integer(env, 'SHUTDOWN_DRAIN_DELAY_SECONDS', 0, {
    min: 0,
    max: 600,
    unit: 'seconds',
    zero: 'close at once',
  });
  // The delay is part of the shutdown's time: a delay as long would leave the close no time at all.
  if (shutdownDrainDelaySeconds > 0 && shutdownDrainDelaySeconds >= shutdownTimeoutSeconds) {
    throw new ConfigError(
      'SHUTDOWN_DRAIN_DELAY_SECONDS',
      `must be less than SHUTDOWN_TIMEOUT_SECONDS (${shutdownTimeoutSeconds}), which it is part of (got ${shutdownDrainDelaySeconds})`,
    );
  }
  const databaseUrl = url(
    env,
    'DATABASE_URL',
    ['postgres:', 'postgresql:'],
    `postgres://user:password@host:5432/database, ${WITH_CREDENTIALS}`,
  );
  return {
    port,
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:'], HTTP_URL)?.replace(/\/+$/, '') ?? null,
    host: text(env, 'HOST') ?? '0.0.0.0',
    dataDir: path.resolve(cwd, text(env, 'DATA_DIR') ?? './data'),
    databaseUrl,
    // A statement limit, not an export limit: an export reads in short keyset chunks, one statement each.
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, {
      min: 0,
      max: 3_600_000,
      unit: 'milliseconds',
      zero: 'no limit',
    }),
    databaseLockTimeoutMs: integer(env, 'DATABASE_LOCK_TIMEOUT_MS', 5_000, {
      min: 0,
      max: 3_600_000,
      unit: 'milliseconds',
      zero: 'no limit',
    }),
    databaseIdleInTransactionTimeoutMs: integer(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10_000, {
      min: 0,
      max: 3_600_000,
      unit: 'milliseconds',
      zero: 'no limit',
    }),
    embeddedSharedBuffersMb: integer(env, 'EMBEDDED_SHARED_BUFFERS_MB', 16, { min: 1, max: 1024, unit: 'MiB' }),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:'], `redis://[:password@]host:6379[/db], ${WITH_CREDENTIALS}`),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, { min: 100, max: 3_600_000, unit: 'milliseconds' }),
    redisCommandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 500, {
      min: 10,
      max: 10_000,
      unit: 'milliseconds',
    }),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024, max: 64 * 1024 * 1024, unit: 'bytes' }),
    // 30 s: the largest body of the contract (a 10 MiB gateway batch) needs 2.8 Mbit/s; a full batch of
    // 1,000 events (about 0.2 MiB) 60 kbit/s; a stalled client holds a connection no longer than a request.
    bodyUploadTimeoutMs: integer(env, 'BODY_UPLOAD_TIMEOUT_MS', 30_000, {
      min: 100,
      max: 3_600_000,
      unit: 'milliseconds',
    }),
    // 1,000: the widest legitimate object is far narrower (a unit's or visitor's extendedData, an
    // event's data, a token request's six fields); long bodies (5,000 auction records) are not wide.
    bodyFieldLimit: integer(env, 'BODY_FIELD_LIMIT', 1000, { min: 10, max: 1_000_000, unit: 'fields' }),
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 3600, { min: 60, max: 86400, unit: 'seconds' }),
    refreshTokenTtlSeconds: integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86400, {
      min: 300,
      max: 365 * 86400,
      unit: 'seconds',
    }),
    jwtPrivateKeyPem: privateKey,
    jwtIssuer: text(env, 'JWT_ISSUER') ?? 'gatehouse',
    tokenFailureLimit: integer(env, 'TOKEN_FAILURE_LIMIT', 10, { min: 1, max: 100000, unit: 'failed attempts' }),
    tokenFailureWindowSeconds: integer(env, 'TOKEN_FAILURE_WINDOW_SECONDS', 60, {
      min: 1,
      max: 86400,
      unit: 'seconds',
    }),
    accessCodeConflictsPerMinute: integer(env, 'ACCESS_CODE_CONFLICTS_PER_MINUTE', 5, {
      min: 1,
      max: 100_000,
      unit: 'answers',
    }),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, { min: 1, max: 10_000_000, unit: 'requests' }),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 180, { min: 1, max: 3650, unit: 'days' }),
    eventStreamsPerCredential: integer(env, 'EVENT_STREAMS_PER_CREDENTIAL', 20, {
      min: 1,
      max: 10_000,
      unit: 'streams',
    }),
    auctionRecreateWaitMinutes: integer(env, 'AUCTION_RECREATE_WAIT_MINUTES', 15, {
      min: 0,
      max: 10080,
      unit: 'minutes',
      zero: 'no wait',
    }),
    imageFetchAllowHosts,
    webhookAllowHosts,
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, { min: 100, max: 60_000, unit: 'milliseconds' }),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5_000, { min: 10, max: 3_600_000, unit: 'milliseconds' }),
    webhookDisableAfterSeconds: integer(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 3 * 86_400, {
      min: 1,
      max: 30 * 86_400,
      unit: 'seconds',
    }),
    webhookSweepMs: integer(env, 'WEBHOOK_SWEEP_MS', 2_000, { min: 50, max: 600_000, unit: 'milliseconds' }),
    webhookConnectTimeoutMs: integer(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 2_000, {
      min: 100,
      max: 60_000,
      unit: 'milliseconds',
    }),
    webhookFirstByteTimeoutMs: integer(env, 'WEBHOOK_FIRST_BYTE_TIMEOUT_MS', 5_000, {
      min: 100,
      max: 60_000,
      unit: 'milliseconds',
    }),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 32, { min: 1, max: 1000, unit: 'lanes' }),
    webhookFailingConcurrency: integer(env, 'WEBHOOK_FAILING_CONCURRENCY', 8, { min: 1, max: 1000, unit: 'lanes' }),
    webhookLanesPerOwner: integer(env, 'WEBHOOK_LANES_PER_OWNER', 8, { min: 1, max: 1000, unit: 'lanes' }),
    webhookPendingPerSubscription: integer(env, 'WEBHOOK_PENDING_PER_SUBSCRIPTION', 10_000, {
      min: 100,
      max: 1_000_000,
      unit: 'deliveries',
    }),
    imageFetchTimeoutMs: integer(env, 'IMAGE_FETCH_TIMEOUT_MS', 15000, { min: 100, max: 300000, unit: 'milliseconds' }),
    blobStore,
    s3,
    supportWebhookUrl: url(env, 'SUPPORT_WEBHOOK_URL', ['http:', 'https:'], HTTP_URL),
    supportWebhookSecret: webhookSecret(env, 'SUPPORT_WEBHOOK_SECRET'),
    shutdownTimeoutSeconds,
    shutdownDrainDelaySeconds,
    workers: workers(env, 'WORKERS', databaseUrl),
    accessCodeKey,
    corsOrigins: corsOrigins(env, 'CORS_ORIGINS'),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    logFormat: oneOf(env, 'LOG_FORMAT', 'auto', LOG_FORMATS),
  };
}

/**
 * Where a person or a client opens the service: PUBLIC_URL when it is set; else localhost on the
 * port it listens on (PORT=0's port is known only once it listens), or HOST itself when the
 * service listens on that one non-local address only.
 */
export function serviceUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>, port = config.port): string {
  if (config.publicUrl) return config.publicUrl;
  if (['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(config.host)) return `http://localhost:${port}`;
  return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
}

/** A variable that is not a setting but is spelt nearly like one: most likely that setting, mistyped. */
export interface MisspeltSetting {
  variable: string;
  setting: Setting;
}

/**
 * The variables of `env` that look like a mistyped setting (PROT for PORT, DATABSE_URL, REDIS_ULR,
 * OUTBOUND_ALLOW_HOST), each with the setting it is nearest to, in the variables' order by name.
 * A misspelt setting is otherwise silently ignored: the service starts as if it were unset.
 *
 * The whole environment of the user comes in (PATH, HOME, npm_*, a container's or CI's own), so only
 * names written as ours count, upper-case letters, digits and `_` (or a setting's exact name in
 * another case, `port`), and the distance allowed grows with the names: 2 edits when both have 6
 * characters or more, else 1 — HOME is 2 edits from HOST, PGHOST (libpq's) 2 from HOST, while PROT, a
 * transposition, is 1 from PORT.
 */
export function misspeltSettings(env: Env = process.env): MisspeltSetting[] {
  const settings: readonly string[] = SETTINGS;
  const found: MisspeltSetting[] = [];
  for (const variable of Object.keys(env).sort()) {
    if (settings.includes(variable)) continue;
    if (!/^[A-Z][A-Z0-9_]*$/.test(variable)) {
      const upper = variable.toUpperCase();
      if (settings.includes(upper)) found.push({ variable, setting: upper as Setting });
      continue;
    }
    let nearest: { setting: Setting; distance: number } | null = null;
    for (const setting of SETTINGS) {
      const allowed = Math.min(variable.length, setting.length) >= 6 ? 2 : 1;
      if (Math.abs(setting.length - variable.length) > allowed) continue;
      const distance = editDistance(variable, setting, allowed);
      if (distance <= allowed && (nearest === null || distance < nearest.distance)) nearest = { setting, distance };
    }
    if (nearest) found.push({ variable, setting: nearest.setting });
  }
  return found;
}

/** The warning a misspelt setting gets at start-up. */
export const misspeltSettingWarning = ({ variable, setting }: MisspeltSetting): string =>
  `${variable}: not a setting; did you mean ${setting}?`;

/**
 * Damerau–Levenshtein distance in its optimal-string-alignment form (insertions, deletions,
 * substitutions, and transpositions of two adjacent characters), or `limit + 1` once it is sure to
 * exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  // Three rows of the table: two back (for transpositions), the previous, the current.
  let twoBack: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, twoBack[j - 2]! + 1);
      current.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    twoBack = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, limit + 1);
}
