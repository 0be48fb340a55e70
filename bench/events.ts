// `npm run bench -- events`: the gateway events face under load, each measure side by side with
// the database doing the same work directly, on PostgreSQL and on the embedded database.
//
//   1. ingest: the same rows loaded with COPY into a lean table (issue 12: one table, a unique
//      (facility, controller event id) index and the three read indexes; kept, with its rows, for
//      the export's baseline) and straight into gateway_events (then truncated), and posted through
//      HTTP (the real server process) as issue 29 words it: 8 senders over 4 facilities, two
//      concurrent senders per facility, each taking its facility's next batch of 500 (in time
//      order); every batch must be answered 200 — the bench counts the answers and fails if one was
//      not;
//   2. reads: an account page of 1,000 with a type and a 7-day filter, and a deep cursor page,
//      through HTTP and as the same SQL statements run directly (p50/p99);
//   3. combined events (SPEC §6.3): a facility's page of 1,000 (a window of about 1,400 of its
//      events, every type) and a unit's history (uq, the whole retention window), through HTTP and as
//      the same SQL run directly;
//   4. CSV export of about 1 million rows through HTTP, and COPY (SELECT …) TO STDOUT CSV of the same
//      columns, account, window and order from the lean table (the issue's baseline; then dropped)
//      and from gateway_events, with the service's resident memory sampled during the export.
// Each target's report ends with issue 29's four measures in one table: those of steps 1, 2 and 4
// against the lean table or the SQL, and the embedded start to the first 200 from /availability
// (bench/startup.ts, fresh and existing data directory, median of BENCH_RUNS), measured once per run
// before the targets whichever they are (it is the embedded database's measure; the machine is
// quietest then). Build dist/ first (`npm run build`): the start-up measure runs `npm start`.
//
// The data set: 2 accounts of 2 facilities each, all the events of the run in those 4 facilities
// (the ingest's; before issue 29 the events spread over 20). The account-scoped measures (the
// filtered page, the deep page, the export) read the same rows as with 20 facilities: an account
// still holds half the events, stored in time order. The facility's page sizes its window to about
// 1,400 events whatever the facility count; a unit's history is 5× longer than with 20 facilities
// (a facility holds 5× more events over the same UNITS units). Each facility has UNITS units and
// 2 × UNITS visitors (made in SQL); an event of a unit-door or keypad type names a unit, a keypad
// event a visitor, as a controller reports them.
//
// Settings (environment): BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; a database is
// created and dropped), BENCH_EVENTS (5000000), BENCH_EMBEDDED_EVENTS (the embedded run's size),
// BENCH_TARGETS (postgres,embedded), BENCH_STEPS=ingest (stop after the ingest measure; no start-up
// measure), BENCH_RUNS (the start-up measure's runs, 5), BENCH_SERVER_PROFILE_DIR (the server's main
// thread is profiled into that directory: cpu-profile.mjs), BENCH_KEEP_DATABASE (keep PostgreSQL's).
import type { EntityId } from '../src/ids.ts';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { COMBINED_COLUMNS } from '../src/events/combined.ts';
import { decodeCursor, queryFingerprint } from '../src/events/cursor.ts';
import { parseCombinedFilter } from '../src/events/filters.ts';
import { MAX_COMBINED_RESULTS } from '../src/events/limits.ts';
import {
  countQuery,
  estimateQuery,
  everyEventOf,
  filterIdentity,
  pageQuery,
  horizonQuery,
  type EventFilter,
  type Window,
} from '../src/events/query.ts';
import { EXACT_TOTAL_CAP } from '../src/events/limits.ts';
import { maskCode } from '../src/events/judge.ts';
import { createTenancy } from '../src/tenancy/index.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { cpuMeter } from './load.ts';
import { embeddedStartup } from './startup.ts';

type Startup = Awaited<ReturnType<typeof embeddedStartup>>;

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const EMBEDDED_EVENTS = Number(process.env.BENCH_EMBEDDED_EVENTS ?? EVENTS);
const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',');
const INGEST_ONLY = process.env.BENCH_STEPS === 'ingest';
const PROFILE_DIR = process.env.BENCH_SERVER_PROFILE_DIR;
/** The lean table of issue 12's baseline: one table, unique (facility, controller event id), the three read indexes. */
const LEAN_TABLE = `create table bench_lean_events (like gateway_events including defaults);
  create unique index bench_lean_events_key on bench_lean_events (facility_id, gwc_event_id);
  create index bench_lean_events_account on bench_lean_events (account_id, occurred_at, seq);
  create index bench_lean_events_facility on bench_lean_events (facility_id, occurred_at, seq);
  create index bench_lean_events_account_seq on bench_lean_events (account_id, seq);`;
/** Issue 29's ingest: 8 senders over 4 facilities, two per facility, batches of 500. */
const FACILITIES = 4;
const SENDERS_PER_FACILITY = 2;
const SENDERS = FACILITIES * SENDERS_PER_FACILITY;
const BATCH = 500;
const DAY = 86_400_000;
const SPAN = 179 * DAY;
const EXPORT_ROWS = 1_000_000;
// Type mix: access grants dominate, as at a real site.
const TYPES = [18, 18, 18, 18, 18, 18, 18, 15, 15, 33, 34, 33, 34, 10, 12, 11, 5, 37, 3, 1];
/** Types that name a unit (keypad and unit door) and a visitor (keypad). */
const UNIT_TYPES = new Set([18, 15, 33, 34]);
const VISITOR_TYPES = new Set([18, 15]);
const UNITS = 500;

interface Facility {
  id: EntityId;
  accountId: EntityId;
  name: string;
  timeZone: string;
  gatewayToken: string;
  /** Its units' ids and numbers, and its visitors' ids and names (UNITS and 2 × UNITS). */
  units: { id: EntityId; number: string }[];
  visitors: { id: EntityId; name: string }[];
}

// ---- the data set: event i of n, deterministic, generated on the fly ----

function eventOf(i: number, n: number, base: number) {
  // A hash of i picks the type, unit and visitor: independent of the facility (i % FACILITIES).
  const h = Math.imul(i + 1, 2654435761) >>> 0;
  const type = TYPES[h % TYPES.length]!;
  return {
    facility: i % FACILITIES,
    unit: UNIT_TYPES.has(type) ? (h >>> 7) % UNITS : null,
    visitor: VISITOR_TYPES.has(type) ? (h >>> 11) % (2 * UNITS) : null,
    eventId: `bench-${i}`,
    eventType: type,
    occurredAt: base + Math.floor((i * SPAN) / n),
    deviceId: `kp-${i % 7}`,
    deviceName: `Keypad ${i % 7}`,
    codeEntered: type === 15 ? String(100000 + (i % 900000)) : null,
    details: `Gate ${i % 7}: ${type === 18 ? 'access granted' : 'event'} #${i}`,
  };
}

function batchBody(facility: Facility, f: number, k: number, n: number, base: number): string | null {
  const events = [];
  for (let j = 0; j < BATCH; j++) {
    const i = (k * BATCH + j) * FACILITIES + f;
    if (i >= n) break;
    const e = eventOf(i, n, base);
    events.push({
      eventId: e.eventId,
      eventType: e.eventType,
      occurredAt: new Date(e.occurredAt).toISOString(),
      deviceId: e.deviceId,
      deviceName: e.deviceName,
      ...(e.unit !== null ? { unitId: facility.units[e.unit]!.id } : {}),
      ...(e.visitor !== null ? { visitorId: facility.visitors[e.visitor]!.id } : {}),
      details: e.details,
      ...(e.codeEntered ? { codeEntered: e.codeEntered } : {}),
    });
  }
  return events.length ? JSON.stringify({ events }) : null;
}

const COPY_COLUMNS =
  'account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at, received_at, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name, code_entered, details';

/** The same rows as COPY text (tab-separated; no value here needs escaping). */
function* copyText(n: number, base: number, facilities: Facility[], chunkRows: number): Generator<string> {
  const received = new Date().toISOString();
  let lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = eventOf(i, n, base);
    const f = facilities[e.facility]!;
    const unit = e.unit !== null ? f.units[e.unit]! : null;
    const visitor = e.visitor !== null ? f.visitors[e.visitor]! : null;
    lines.push(
      `${f.accountId}\t${f.id}\t${f.name}\t${f.timeZone}\t${e.eventId}\t${e.eventType}\t${new Date(e.occurredAt).toISOString()}\t${received}\t${e.deviceId}\t${e.deviceName}\t${unit?.id ?? '\\N'}\t${unit?.number ?? '\\N'}\t${visitor?.id ?? '\\N'}\t${visitor?.name ?? '\\N'}\t${e.codeEntered ? maskCode(e.codeEntered) : '\\N'}\t${e.details}\n`,
    );
    if (lines.length === chunkRows) {
      yield lines.join('');
      lines = [];
    }
  }
  if (lines.length) yield lines.join('');
}

// ---- measuring ----

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
const met = (ok: boolean) => (ok ? 'met' : '**not met**');

// ---- the report's tables: measure | through the service | the database directly | ratio | target ----

const TABLE_HEAD = [
  '| measure | through the service | the database directly | ratio | target |',
  '|---|---|---|---|---|',
];
const row = (measure: string, service: string, direct = '', ratio = '', target = '') =>
  `| ${measure} | ${service} | ${direct} | ${ratio} | ${target} |`;

/** The service beside the database: the ratio service / direct, and the target's bound on it if any ("≥ 0.60", "≤ 1.3"). */
function compared(
  measure: string,
  service: number,
  direct: number,
  show: (value: number) => string,
  target?: `${'≥' | '≤'} ${number}`,
): string {
  const ratio = service / direct;
  const bound = target ? Number(target.slice(2)) : 0;
  const verdict = target ? `${target} ${met(target.startsWith('≥') ? ratio >= bound : ratio <= bound)}` : '';
  return row(measure, show(service), show(direct), ratio.toFixed(2), verdict);
}

/** A latency measure's two rows: p50 (against the target, if any) and p99. */
const latencyRows = (measure: string, http: number[], sql: number[], target?: `≤ ${number}`): [string, string] => [
  compared(`${measure}, p50 (ms)`, percentile(http, 50), percentile(sql, 50), ms, target),
  compared('same, p99 (ms)', percentile(http, 99), percentile(sql, 99), ms),
];

function rssMiB(pid: number, field = 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024);
}

function runPsql(connection: string, sql: string, input?: Iterable<string>): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('psql', [connection, '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql], {
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve({ ms: performance.now() - started, bytes }) : reject(new Error(`psql failed: ${stderr}`)),
    );
    if (input) {
      const iterator = input[Symbol.iterator]();
      const pump = () => {
        for (;;) {
          const next = iterator.next();
          if (next.done) return child.stdin!.end();
          if (!child.stdin!.write(next.value)) return child.stdin!.once('drain', pump);
        }
      };
      pump();
    }
  });
}

interface Target {
  label: string;
  kind: 'postgres' | 'embedded';
  env: Record<string, string>;
  events: number;
  /** Runs SQL text straight against the database, outside the service. */
  copyIn(text: Iterable<string>, table?: string): Promise<number>;
  /** Runs SQL text directly (outside the service). */
  exec(sql: string): Promise<void>;
  copyOut(sql: string): Promise<{ ms: number; bytes: number }>;
  truncate(): Promise<void>;
  /** A pg pool to the database while the server runs (direct SQL side of the read measures). */
  pool(): pg.Pool;
  closePool(): Promise<void>;
  cleanup(): Promise<void>;
}

/** A facility's units and visitors, made straight in the tables (the access-control routes are not under test). */
async function unitsAndVisitors(pool: pg.Pool, facilityId: EntityId): Promise<Pick<Facility, 'units' | 'visitors'>> {
  const units = (
    await pool.query<{ id: EntityId; number: string }>(
      `insert into units (facility_id, unit_number, status)
       select $1::int8, 'U-' || lpad(n::text, 4, '0'), 'Rented' from generate_series(1, $2::int) as n
       returning id, unit_number as number`,
      [facilityId, UNITS],
    )
  ).rows.sort((a, b) => a.id - b.id);
  // The facility's default time group and access profile (made with the facility).
  const timeGroup = (await pool.query('select id from time_groups where facility_id = $1 and is_default', [facilityId]))
    .rows[0].id;
  const profile = (
    await pool.query('select id from access_profiles where facility_id = $1 and is_default', [facilityId])
  ).rows[0].id;
  const visitors = (
    await pool.query<{ id: EntityId; name: string }>(
      `insert into visitors (facility_id, unit_id, first_name, last_name, is_tenant, time_group_id, access_profile_id,
                             access_code_digest, access_code_sealed)
       select $1::int8, ($2::int8[])[1 + (n - 1) % array_length($2::int8[], 1)], 'Visitor', 'No. ' || n, true,
              $3::int8, $4::int8, sha256(($1::int8 || ':' || n)::bytea), '\\x00'::bytea
         from generate_series(1, $5::int) as n
       returning id, first_name || ' ' || last_name as name`,
      [facilityId, units.map((u) => u.id), timeGroup, profile, 2 * UNITS],
    )
  ).rows.sort((a, b) => a.id - b.id);
  return { units, visitors };
}

async function provision(env: Record<string, string>): Promise<{
  facilities: Omit<Facility, 'gatewayToken'>[];
  gateways: { clientId: string; clientSecret: string }[];
  pms: { clientId: string; clientSecret: string };
  keys: { apiKey: string; apiSecret: string }[];
}> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const database = await openDatabase(config, { role: 'owner', command: 'bench' });
  try {
    await migrate(database.pool);
    const tenancy = createTenancy(database.db);
    const facilities: Omit<Facility, 'gatewayToken'>[] = [];
    const gateways: { clientId: string; clientSecret: string }[] = [];
    const keys: { apiKey: string; apiSecret: string }[] = [];
    const pms = await tenancy.createApplication({ name: 'Bench PMS' });
    for (let a = 0; a < 2; a++) {
      const account = await tenancy.createAccount({ name: `Bench account ${a + 1}` });
      keys.push(await tenancy.createAccountKey({ accountId: account.id, clientId: pms.clientId }));
      for (let f = 0; f < FACILITIES / 2; f++) {
        const facility = await tenancy.createFacility({
          accountId: account.id,
          name: `Site ${a + 1}-${f + 1}`,
          timeZone: ['America/Denver', 'America/New_York', 'Europe/London'][f % 3]!,
        });
        facilities.push({
          id: facility.id,
          accountId: account.id,
          name: facility.name,
          timeZone: facility.timeZone,
          ...(await unitsAndVisitors(database.pool, facility.id)),
        });
        gateways.push(await tenancy.createGatewayCredential({ facilityId: facility.id }));
      }
    }
    // Facility i of the data set belongs to account i % 2 … keep it simple: interleave.
    const interleaved = Array.from({ length: FACILITIES }, (_, i) =>
      i % 2 === 0 ? i / 2 : FACILITIES / 2 + (i - 1) / 2,
    );
    return {
      facilities: interleaved.map((i) => facilities[i]!),
      gateways: interleaved.map((i) => gateways[i]!),
      pms,
      keys,
    };
  } finally {
    await database.close();
  }
}

async function postgresTarget(): Promise<Target> {
  const name = `gh_bench_events_${process.pid}`;
  const adminClient = new pg.Client({ connectionString: PG_URL });
  await adminClient.connect();
  await adminClient.query(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-events-'));
  let pool: pg.Pool | null = null;
  const target: Target = {
    label: 'PostgreSQL 15 (server on this machine)',
    kind: 'postgres',
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    events: EVENTS,
    async copyIn(text, table = 'gateway_events') {
      return (await runPsql(url.toString(), `\\copy ${table} (${COPY_COLUMNS}) from stdin`, text)).ms;
    },
    exec: async (sql) => void (await runPsql(url.toString(), sql)),
    copyOut: (sql) => runPsql(url.toString(), sql),
    async truncate() {
      await runPsql(url.toString(), 'truncate gateway_events, gateway_event_ids');
    },
    pool() {
      pool ??= new pg.Pool({ connectionString: url.toString(), max: 4 });
      return pool;
    },
    async closePool() {
      await pool?.end();
      pool = null;
    },
    async cleanup() {
      await target.closePool();
      if (process.env.BENCH_KEEP_DATABASE) console.error(`kept database ${name}`);
      else await adminClient.query(`drop database if exists ${name} with (force)`);
      await adminClient.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return target;
}

async function embeddedTarget(): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-events-'));
  const pgData = path.join(dataDir, 'pgdata');
  let pool: pg.Pool | null = null;
  // COPY does not pass the embedded database's socket: these run on the data directory in this
  // process, while the server is stopped (PGlite's COPY … '/dev/blob').
  const direct = async <T>(work: (db: PGlite) => Promise<T>): Promise<T> => {
    const db = await PGlite.create(pgData);
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };
  const target: Target = {
    label: 'embedded (PGlite 0.5, PostgreSQL 17 in WASM)',
    kind: 'embedded',
    env: { DATABASE_URL: '', DATA_DIR: dataDir },
    events: EMBEDDED_EVENTS,
    copyIn: (text, table = 'gateway_events') =>
      direct(async (db) => {
        const started = performance.now();
        for (const chunk of text)
          await db.query(`copy ${table} (${COPY_COLUMNS}) from '/dev/blob'`, [], { blob: new Blob([chunk]) });
        return performance.now() - started;
      }),
    exec: (sql) => direct(async (db) => void (await db.exec(sql))),
    copyOut: (sql) =>
      direct(async (db) => {
        const started = performance.now();
        const result = await db.query(sql.replace('TO STDOUT', "TO '/dev/blob'"));
        return { ms: performance.now() - started, bytes: result.blob?.size ?? 0 };
      }),
    truncate: () => direct(async (db) => void (await db.exec('truncate gateway_events, gateway_event_ids'))),
    pool() {
      pool ??= new pg.Pool({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres', max: 4 });
      return pool;
    },
    async closePool() {
      await pool?.end();
      pool = null;
    },
    async cleanup() {
      await target.closePool();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return target;
}

async function token(server: ServerProcess, form: Record<string, string>): Promise<string> {
  const response = await request(`${server.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.body.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** How a batch was answered when all is well (issue 29: every batch). */
const ANSWERED_200 = '200';

/**
 * Posts one batch as its facility's gateway controller. `how`: '200', or the status when another,
 * '200 with rejected events', or 'no answer' (the connection failed); `detail`: the start of the body.
 */
async function postBatch(
  url: string,
  dispatcher: Agent,
  gatewayToken: string,
  body: string,
): Promise<{ how: string; accepted: number; detail: string }> {
  try {
    const response = await request(`${url}/gateway/v1/events`, {
      dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayToken}`, 'content-type': 'application/json' },
      body,
    });
    const text = await response.body.text();
    const detail = text.slice(0, 300);
    if (response.statusCode !== 200) return { how: String(response.statusCode), accepted: 0, detail };
    const answer = JSON.parse(text) as { accepted: number; rejected: unknown[] };
    return {
      how: answer.rejected.length ? '200 with rejected events' : ANSWERED_200,
      accepted: answer.accepted,
      detail,
    };
  } catch (error) {
    return { how: 'no answer', accepted: 0, detail: (error as Error).message };
  }
}

async function timedGet(
  dispatcher: Agent,
  url: string,
  headers: Record<string, string>,
): Promise<{ ms: number; body: string; status: number }> {
  const started = performance.now();
  const response = await request(url, { dispatcher, headers });
  const body = await response.body.text();
  return { ms: performance.now() - started, body, status: response.statusCode };
}

async function runTarget(target: Target, out: string[], startup: Startup | null): Promise<void> {
  const n = target.events;
  const base = Date.now() - 179.5 * DAY;
  const log = (message: string) =>
    console.error(`[${target.kind}] ${new Date().toISOString().slice(11, 19)} ${message}`);
  const serverEnv = {
    ...target.env,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_TTL_SECONDS: '86400',
    ...(PROFILE_DIR
      ? {
          BENCH_SERVER_PROFILE_DIR: PROFILE_DIR,
          NODE_OPTIONS: `--import=${new URL('./cpu-profile.mjs', import.meta.url).pathname}`,
        }
      : {}),
  };

  const loads = [os.loadavg()[0]!];
  log(`provisioning 2 accounts, ${FACILITIES} facilities`);
  const setup = await provision(target.env);
  const facilityRows = setup.facilities;

  // 1. COPY baselines: into the lean table (issue 12's baseline: kept, with its rows, until the
  // export's baseline has read it), then into gateway_events itself (then emptied again).
  const rows = () =>
    copyText(
      n,
      base,
      facilityRows.map((f) => ({ ...f, gatewayToken: '' })),
      100_000,
    );
  log(`COPY of ${n} rows into the lean table`);
  await target.exec(LEAN_TABLE);
  const leanMs = await target.copyIn(rows(), 'bench_lean_events');
  log(`COPY of ${n} rows into gateway_events`);
  const copyMs = await target.copyIn(rows());
  await target.truncate();

  // 2. HTTP ingest of the same rows: SENDERS_PER_FACILITY senders per facility, each posting the
  // facility's next batch as its gateway controller; every batch's answer counted.
  const server = await startServerProcess(serverEnv, 120_000);
  const facilities: Facility[] = [];
  for (let f = 0; f < FACILITIES; f++) {
    facilities.push({
      ...facilityRows[f]!,
      gatewayToken: await token(server, {
        grant_type: 'client_credentials',
        client_id: setup.gateways[f]!.clientId,
        client_secret: setup.gateways[f]!.clientSecret,
      }),
    });
  }
  const readerTokens = await Promise.all(
    setup.keys.map((key) =>
      token(server, {
        grant_type: 'password',
        client_id: setup.pms.clientId,
        client_secret: setup.pms.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      }),
    ),
  );
  const dispatcher = new Agent({ connections: SENDERS, pipelining: 1, keepAliveTimeout: 60_000 });
  const stopServer = async () => {
    await dispatcher.close();
    await target.closePool();
    await server.kill('SIGTERM');
  };
  const nextBlock = facilities.map(() => 0);
  const answers = new Map<string, number>();
  let firstRefusal = '';
  let accepted = 0;
  const latencies: number[] = [];
  log(`HTTP ingest: ${n} events, ${SENDERS} senders over ${FACILITIES} facilities, batches of ${BATCH}`);
  const meter = cpuMeter(
    server.child.pid!,
    target.kind === 'postgres'
      ? async () =>
          (
            await target
              .pool()
              .query<{ pid: number }>(
                'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
              )
          ).rows.map((r) => r.pid)
      : null,
  );
  const ingestStarted = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      const f = sender % FACILITIES;
      for (;;) {
        const body = batchBody(facilities[f]!, f, nextBlock[f]!++, n, base);
        if (!body) return;
        const sent = performance.now();
        const answer = await postBatch(server.url, dispatcher, facilities[f]!.gatewayToken, body);
        latencies.push(performance.now() - sent);
        answers.set(answer.how, (answers.get(answer.how) ?? 0) + 1);
        if (answer.how !== ANSWERED_200) firstRefusal ||= `${answer.how}: ${answer.detail}`;
        accepted += answer.accepted;
        if (latencies.length % 100 === 0) log(`  ${accepted} stored`);
      }
    }),
  );
  const ingestMs = performance.now() - ingestStarted;
  const cpu = await meter();
  const batches = latencies.length;
  const answered = `${answers.get(ANSWERED_200) ?? 0} of ${batches} batches answered 200`;
  log(`ingest: ${answered}`);
  if (answers.get(ANSWERED_200) !== batches) {
    await stopServer();
    const counts = [...answers].map(([how, count]) => `${how}: ${count}`).join(', ');
    throw new Error(
      `[${target.kind}] INGEST FAILED issue 29's "every batch 200": ${answered} (${counts}); the first: ${firstRefusal}`,
    );
  }
  if (accepted !== n) throw new Error(`stored ${accepted} of ${n}`);
  const copyRate = n / (copyMs / 1000);
  const httpRate = n / (ingestMs / 1000);
  const leanRate = n / (leanMs / 1000);
  log(`ingest done: ${Math.round(httpRate)}/s (COPY ${Math.round(copyRate)}/s, lean ${Math.round(leanRate)}/s)`);
  const ingestLeanRow = compared(
    `ingest, events/s (HTTP: ${SENDERS} senders over ${FACILITIES} facilities, ${SENDERS_PER_FACILITY} per facility, batches of ${BATCH}: ${answered}; direct: COPY into the lean table)`,
    httpRate,
    leanRate,
    perSecond,
    '≥ 0.60',
  );
  const ingestRows = [
    ingestLeanRow,
    compared(
      'ingest, events/s (direct: COPY into gateway_events, its partitions and 5 indexes)',
      httpRate,
      copyRate,
      perSecond,
    ),
    row('ingest batch latency p50 / p99 (ms)', `${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))}`),
    row(
      `ingest CPU ms per 1,000 events: server process${target.kind === 'postgres' ? ' / database backends' : ' (database included)'}`,
      `${((cpu.server * 1000) / n).toFixed(1)}${target.kind === 'postgres' ? ` / ${((cpu.database * 1000) / n).toFixed(1)}` : ''}`,
    ),
  ];
  if (INGEST_ONLY) {
    await stopServer();
    loads.push(os.loadavg()[0]!);
    out.push(
      `### ${target.label}: ${n.toLocaleString('en-US')} events, ingest only`,
      '',
      ...TABLE_HEAD,
      ...ingestRows,
      '',
      `Load average (1 min) at the start and the end: ${loads.map((l) => l.toFixed(1)).join(' / ')}. COPY in: lean ${(leanMs / 1000).toFixed(1)} s, gateway_events ${(copyMs / 1000).toFixed(1)} s; HTTP ingest: ${(ingestMs / 1000).toFixed(1)} s.`,
      '',
    );
    return;
  }

  const pool = target.pool();
  await pool.query('analyze gateway_events');

  // 3. Reads: an account page of 1,000 (one type, 7 days), through HTTP and as the same SQL.
  const account = facilities[0]!.accountId;
  const reader = readerTokens[0]!;
  const auth = { authorization: `Bearer ${reader}` };
  const windows = Array.from({ length: 20 }, (_, w) => base + 10 * DAY + w * 8 * DAY);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const httpPage: number[] = [];
  const sqlPage: number[] = [];
  /** The route's total (store.ts): a count that stops at EXACT_TOTAL_CAP + 1, then EXPLAIN if it got there. */
  const routeTotal = async (filter: EventFilter, window: Omit<Window, 'after'>) => {
    const capped = countQuery(filter, window, EXACT_TOTAL_CAP + 1);
    if (Number((await pool.query(capped.text, capped.values)).rows[0].n) <= EXACT_TOTAL_CAP) return;
    const estimate = estimateQuery(filter, window);
    await pool.query(estimate.text, estimate.values);
  };
  const cutoff = () => Date.now() - 180 * DAY;
  const filterFor = (start: number): EventFilter => ({
    scope: { kind: 'account', accountId: account },
    facilityIds: null,
    eventTypes: [18],
    unitIds: null,
    visitorIds: null,
    start: Date.parse(day(start)),
    end: Date.parse(day(start)) + 7 * DAY,
    sort: 'desc',
  });
  let pageItems = 0;
  for (let round = 0; round < 6; round++) {
    for (const start of windows) {
      const response = await timedGet(
        dispatcher,
        `${server.url}/gatewayevents/accounts/${account}?eventTypes=18&startDate=${day(start)}&endDate=${day(start + 7 * DAY)}&pageSize=1000`,
        auth,
      );
      if (response.status !== 200) throw new Error(`page failed: ${response.status} ${response.body.slice(0, 200)}`);
      if (round > 0) httpPage.push(response.ms);
      pageItems = (JSON.parse(response.body) as { items: unknown[] }).items.length;
      // The statements the route runs: the horizon, then the page (1,001 rows) and the count together.
      const filter = filterFor(start);
      const started = performance.now();
      const mark = horizonQuery(account);
      const hi = Number((await pool.query(mark.text, mark.values)).rows[0].hi);
      const pageSql = pageQuery(filter, { cutoff: cutoff(), lo: 0, hi }, { limit: 1001 });
      await Promise.all([
        pool.query(pageSql.text, pageSql.values),
        routeTotal(filter, { cutoff: cutoff(), lo: 0, hi }),
      ]);
      if (round > 0) sqlPage.push(performance.now() - started);
    }
  }

  // A wide page: the account's newest 1,000 of every type over the whole retention window (far
  // more than EXACT_TOTAL_CAP events, so the total is the estimate), through HTTP and as the same
  // statements; and, for scale, what an exact count(*) of that filter alone costs.
  const wideFilter: EventFilter = { ...filterFor(windows[0]!), eventTypes: null, start: null, end: null };
  const httpWide: number[] = [];
  const sqlWide: number[] = [];
  const exactCount: number[] = [];
  for (let round = 0; round < 21; round++) {
    const response = await timedGet(dispatcher, `${server.url}/gatewayevents/accounts/${account}?pageSize=1000`, auth);
    if (response.status !== 200) throw new Error(`wide page failed: ${response.status}`);
    const started = performance.now();
    const mark = horizonQuery(account);
    const hi = Number((await pool.query(mark.text, mark.values)).rows[0].hi);
    const pageSql = pageQuery(wideFilter, { cutoff: cutoff(), lo: 0, hi }, { limit: 1001 });
    await Promise.all([
      pool.query(pageSql.text, pageSql.values),
      routeTotal(wideFilter, { cutoff: cutoff(), lo: 0, hi }),
    ]);
    const sqlMs = performance.now() - started;
    const countSql = countQuery(wideFilter, { cutoff: cutoff(), lo: 0, hi });
    const countStarted = performance.now();
    await pool.query(countSql.text, countSql.values);
    if (round > 0) {
      httpWide.push(response.ms);
      sqlWide.push(sqlMs);
      exactCount.push(performance.now() - countStarted);
    }
  }

  // A deep cursor page: a million events into the account's walk (newest first).
  const deepOffset = Math.min(1_000_000, Math.floor(n / 2) - 2000);
  const deepStart = await timedGet(
    dispatcher,
    `${server.url}/gatewayevents/accounts/${account}?pageSize=1000&pageNumber=${Math.floor(deepOffset / 1000)}`,
    auth,
  );
  const cursor = (JSON.parse(deepStart.body) as { metadata: { nextCursor: string } }).metadata.nextCursor;
  const key = (await pool.query('select secret from gateway_event_cursor_key')).rows[0].secret as Buffer;
  const deepFilter: EventFilter = { ...everyEventOf({ kind: 'account', accountId: account }), sort: 'desc' };
  const state = decodeCursor(cursor, key, queryFingerprint(filterIdentity(deepFilter)));
  const httpDeep: number[] = [];
  const sqlDeep: number[] = [];
  for (let round = 0; round < 85; round++) {
    const response = await timedGet(
      dispatcher,
      `${server.url}/gatewayevents/accounts/${account}?pageSize=1000&cursor=${cursor}`,
      auth,
    );
    if (response.status !== 200) throw new Error(`deep page failed: ${response.status}`);
    const deepSql = pageQuery(deepFilter, { cutoff: cutoff(), ...state }, { limit: 1001 });
    const started = performance.now();
    await pool.query(deepSql.text, deepSql.values);
    const sqlMs = performance.now() - started;
    if (round >= 5) {
      httpDeep.push(response.ms);
      sqlDeep.push(sqlMs);
    }
  }
  log('reads measured');

  // 4. Combined events: a facility's page of 1,000 (a window holding about 1,400 of its events,
  // every type, with metadata: the page and the capped count), and a unit's history (uq over the
  // whole retention window, hideMetadata=true: the page alone). Through HTTP, and the statements the
  // route runs (store.slice: the horizon, then the page and the count) run directly.
  const combinedFacility = facilities[0]!;
  const scope = { kind: 'facility' as const, facilityId: combinedFacility.id, accountId: combinedFacility.accountId };
  const windowMs = Math.max(3_600_000, Math.round((1400 * FACILITIES * SPAN) / n));
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const httpCombined: number[] = [];
  const sqlCombined: number[] = [];
  const httpUnit: number[] = [];
  const sqlUnit: number[] = [];
  let combinedItems = 0;
  let unitItems = 0;
  const directCombined = async (filter: EventFilter, limit: number, withCount: boolean) => {
    const started = performance.now();
    const mark = horizonQuery(filter.scope.accountId);
    const hi = Number((await pool.query(mark.text, mark.values)).rows[0].hi);
    const pageSql = pageQuery(filter, { cutoff: cutoff(), lo: 0, hi }, { limit, columns: COMBINED_COLUMNS });
    const countSql = countQuery(filter, { cutoff: cutoff(), lo: 0, hi }, MAX_COMBINED_RESULTS);
    await Promise.all([
      pool.query(pageSql.text, pageSql.values),
      withCount ? pool.query(countSql.text, countSql.values) : null,
    ]);
    return performance.now() - started;
  };
  for (let round = 0; round < 6; round++) {
    for (let w = 0; w < windows.length; w++) {
      const minDate = seconds(windows[w]!);
      const maxDate = seconds(windows[w]! + windowMs);
      const page = await timedGet(
        dispatcher,
        `${server.url}/combinedevents/facilities/${combinedFacility.id}?minDate=${minDate}&maxDate=${maxDate}&pageSize=1000`,
        auth,
      );
      if (page.status !== 200) throw new Error(`combined page failed: ${page.status} ${page.body.slice(0, 200)}`);
      combinedItems = (JSON.parse(page.body) as { items: unknown[] }).items.length;
      const sqlMs = await directCombined(parseCombinedFilter(scope, { minDate, maxDate }, Date.now()), 1000, true);
      // A unit's history over the retention window, as a unit report reads it.
      const unit = combinedFacility.units[(w * 37) % UNITS]!;
      const historyFrom = seconds(Date.now() - 179 * DAY);
      const history = await timedGet(
        dispatcher,
        `${server.url}/combinedevents/facilities/${combinedFacility.id}?uq=${unit.id}&minDate=${historyFrom}&pageSize=1000&hideMetadata=true`,
        auth,
      );
      if (history.status !== 200) throw new Error(`unit history failed: ${history.status}`);
      unitItems = Math.max(unitItems, (JSON.parse(history.body) as unknown[]).length);
      const unitSqlMs = await directCombined(
        parseCombinedFilter(scope, { uq: String(unit.id), minDate: historyFrom }, Date.now()),
        1000,
        false,
      );
      if (round > 0) {
        httpCombined.push(page.ms);
        sqlCombined.push(sqlMs);
        httpUnit.push(history.ms);
        sqlUnit.push(unitSqlMs);
      }
    }
  }
  loads.push(os.loadavg()[0]!);
  log(`combined events measured (load average ${loads.at(-1)!.toFixed(1)})`);

  // 5. CSV export of ~1M rows (an account's date window), and COPY of the same SELECT.
  const accountRows = Math.floor(n / 2);
  const exportRows = Math.min(EXPORT_ROWS, accountRows);
  const exportEnd = base + SPAN + DAY;
  const exportStart = exportEnd - Math.ceil((exportRows / accountRows) * (SPAN + DAY));
  const exportQuery = `startDate=${new Date(exportStart).toISOString()}&endDate=${new Date(exportEnd).toISOString()}`;
  const serverPid = server.child.pid!;
  const rssBefore = rssMiB(serverPid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    try {
      rssPeak = Math.max(rssPeak, rssMiB(serverPid));
    } catch {
      /* the process ended */
    }
  }, 50);
  // Best of two runs (the machine is shared): the faster one counts.
  let exportMs = Infinity;
  let csvBytes = 0;
  let csvLines = 0;
  for (let run = 0; run < 2; run++) {
    const started = performance.now();
    const response = await request(`${server.url}/gatewayevents/accounts/${account}/export?${exportQuery}`, {
      dispatcher,
      headers: auth,
    });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body) {
      const data = chunk as Buffer;
      bytes += data.length;
      for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) lines++;
    }
    const elapsed = performance.now() - started;
    if (elapsed < exportMs) [exportMs, csvBytes, csvLines] = [elapsed, bytes, lines];
  }
  clearInterval(sampler);
  const exported = csvLines - 1;
  const peakHwm = rssMiB(serverPid, 'VmHWM');
  log(`export: ${exported} rows in ${Math.round(exportMs)} ms`);

  await stopServer();

  // The database's own export of the same rows, as issue 29's baseline: COPY of the CSV's columns
  // of the account's window in the export's order, from the lean table (then dropped) and from
  // gateway_events; interleaved, best of two runs each.
  const exportCopy = (table: string) =>
    `COPY (SELECT id, occurred_at, occurred_at AT TIME ZONE time_zone, received_at, account_id, facility_id, facility_name, event_type, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name, details FROM ${table} WHERE account_id = '${account}' AND occurred_at >= '${new Date(exportStart).toISOString()}' AND occurred_at < '${new Date(exportEnd).toISOString()}' ORDER BY occurred_at DESC, seq DESC) TO STDOUT WITH CSV HEADER`;
  await target.exec('analyze bench_lean_events');
  const leanRuns: { ms: number; bytes: number }[] = [];
  const ownRuns: { ms: number; bytes: number }[] = [];
  for (let run = 0; run < 2; run++) {
    leanRuns.push(await target.copyOut(exportCopy('bench_lean_events')));
    ownRuns.push(await target.copyOut(exportCopy('gateway_events')));
  }
  await target.exec('drop table bench_lean_events');
  const fastest = (runs: { ms: number; bytes: number }[]) => runs.reduce((a, b) => (b.ms < a.ms ? b : a));
  const leanOut = fastest(leanRuns);
  const ownOut = fastest(ownRuns);
  const exportRate = exported / (exportMs / 1000);
  log('COPY TO done');

  loads.push(os.loadavg()[0]!);
  const [pageRow, pageP99Row] = latencyRows(
    `account page of ${pageItems} with its total (type 18, 7 days; direct: the page + count SQL)`,
    httpPage,
    sqlPage,
    '≤ 1.3',
  );
  const exportLeanRow = compared(
    `CSV export of ${exported.toLocaleString('en-US')} rows, rows/s (direct: COPY (SELECT … ORDER BY …) TO STDOUT CSV of the lean table)`,
    exportRate,
    exported / (leanOut.ms / 1000),
    perSecond,
    '≥ 0.50',
  );
  const startupRow = startup
    ? row(
        `embedded start to the first 200 from /availability, fresh / existing data directory (ms, median of ${startup.firstRuns.length})`,
        `${startup.first.toLocaleString('en-US')} / ${startup.later.toLocaleString('en-US')}`,
        '',
        '',
        `< 3,000 / < 1,500: ${met(startup.first < 3000)} / ${met(startup.later < 1500)}`,
      )
    : row('embedded start to the first 200 from /availability', 'not measured');
  out.push(
    `### ${target.label}: ${n.toLocaleString('en-US')} events`,
    '',
    ...TABLE_HEAD,
    ...ingestRows,
    pageRow,
    pageP99Row,
    ...latencyRows('account page of 1,000 (every type, whole window: total estimated)', httpWide, sqlWide, '≤ 1.3'),
    row('exact count(*) of that filter alone, p50 (ms)', '', ms(percentile(exactCount, 50))),
    ...latencyRows(
      `deep cursor page of 1,000 (${deepOffset.toLocaleString('en-US')} events in)`,
      httpDeep,
      sqlDeep,
      '≤ 1.5',
    ),
    ...latencyRows(
      `combined events: facility page of ${combinedItems} (${(windowMs / 3_600_000).toFixed(0)} h, every type, with metadata)`,
      httpCombined,
      sqlCombined,
      '≤ 1.5',
    ),
    ...latencyRows(
      `combined events: a unit's history (uq, 179 days, up to ${unitItems} items, hideMetadata)`,
      httpUnit,
      sqlUnit,
    ),
    exportLeanRow,
    compared(
      'CSV export, rows/s (direct: the same COPY of gateway_events)',
      exportRate,
      exported / (ownOut.ms / 1000),
      perSecond,
    ),
    row(
      'service memory during the export (RSS MiB: before → peak; process peak since start)',
      `${rssBefore} → ${rssPeak}; ${peakHwm}`,
    ),
    '',
    `Load average (1 min) at the start, after the combined-events reads, at the end: ${loads.map((l) => l.toFixed(1)).join(' / ')}. Export and COPY TO: best of two runs each. Export: ${(csvBytes / 2 ** 20).toFixed(0)} MiB of CSV in ${(exportMs / 1000).toFixed(1)} s; COPY TO: lean table ${(leanOut.bytes / 2 ** 20).toFixed(0)} MiB in ${(leanOut.ms / 1000).toFixed(1)} s, gateway_events ${(ownOut.bytes / 2 ** 20).toFixed(0)} MiB in ${(ownOut.ms / 1000).toFixed(1)} s. COPY in: lean ${(leanMs / 1000).toFixed(1)} s, gateway_events ${(copyMs / 1000).toFixed(1)} s; HTTP ingest: ${(ingestMs / 1000).toFixed(1)} s.`,
    '',
    `Issue 29's four measures (${target.label}):`,
    '',
    ...TABLE_HEAD,
    exportLeanRow,
    ingestLeanRow,
    pageRow,
    startupRow,
    '',
  );
}

export default async function run(): Promise<void> {
  const cpus = os.cpus();
  const out: string[] = [
    `Gateway events benchmark — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}; load generator, service and database on the same machine.`,
  ];
  try {
    // Issue 29's start-up measure (the embedded database's), once per run, before the targets load the machine.
    let startup: Startup | null = null;
    if (!INGEST_ONLY) {
      const loadBefore = os.loadavg()[0]!;
      console.error(`[startup] ${new Date().toISOString().slice(11, 19)} npm start on the embedded database`);
      startup = await embeddedStartup();
      out.push(
        `Embedded start-up (bench/startup.ts), measured first: runs fresh ${startup.firstRuns.join(', ')} / existing ${startup.laterRuns.join(', ')} ms; load average (1 min) ${loadBefore.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}.`,
      );
    }
    out.push('');
    for (const kind of TARGETS) {
      const target = kind === 'postgres' ? await postgresTarget() : await embeddedTarget();
      try {
        await runTarget(target, out, startup);
      } finally {
        await target.cleanup();
      }
    }
  } finally {
    // Printed even when a target fails (the error follows): the targets measured before it.
    console.log(out.join('\n'));
  }
}
