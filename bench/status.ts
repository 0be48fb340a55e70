// `npm run bench -- status` (issue 13): the facility status list of one large operator, and what
// keeping the reported state up costs ingest.
//
// 1. An account of 2,000 facilities and 20,000 devices (2 % offline), 1 % of facilities with an
//    active alarm, some with waiting commands: GET /facilities/statuslist through HTTP to the real
//    server process (p50/p99 of sequential requests), beside the same statement run directly.
// 2. Ingest with and without the state upkeep, same run: the fleet benchmark's closed loop (200
//    controllers of one account, batches of 3 events naming devices, door alarms among them) against
//    the server before issue 13 (BENCH_BEFORE_BIN: that tree's bin/gatehouse) and this one; without
//    BENCH_BEFORE_BIN, this one only.
//
// Settings: BENCH_DATABASE_URL, BENCH_TARGETS (postgres,embedded), BENCH_FACILITIES (2000),
// BENCH_DEVICES_PER_FACILITY (10), BENCH_ROUNDS (40), BENCH_BEFORE_BIN, BENCH_SECONDS (5).
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { request } from 'undici';
import { selectStatusFacts } from '../src/facility-status/repository.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Tables } from '../src/db/tables.ts';
import { createTenancy } from '../src/tenancy/index.ts';
import { BIN, startServerProcess } from '../test/helpers/process.ts';
import { benchDatabase, fleetIngest } from './fleet.ts';
import { machine } from './load.ts';

const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',');
const FACILITIES = Number(process.env.BENCH_FACILITIES ?? 2000);
const DEVICES = Number(process.env.BENCH_DEVICES_PER_FACILITY ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const BEFORE_BIN = process.env.BENCH_BEFORE_BIN ? path.resolve(process.env.BENCH_BEFORE_BIN) : null;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

/** The large operator, written straight into the tables (the admin routes are not under test). */
async function provision(env: Record<string, string>) {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const database = await openDatabase(config, { role: 'owner', command: 'bench' });
  try {
    await migrate(database.pool);
    const tenancy = createTenancy(database.db);
    const account = await tenancy.createAccount({ name: 'Large Storage Co' });
    const q = (text: string, values: unknown[] = []) => database.pool.query(text, values);
    await q(
      `insert into facilities (account_id, name, time_zone, property_number)
       select $1::int8, 'Site ' || lpad(n::text, 5, '0'), 'America/Denver', 'LS-' || n
         from generate_series(1, $2::int) n`,
      [account.id, FACILITIES],
    );
    await q(
      `insert into facility_devices (facility_id, device_id, name, is_offline, online_changed_at, last_event_type, last_event_at)
       select f.id, 'dev-' || d, 'Device ' || d, (f.id * 7 + d) % 50 = 0, now(), 18, now() - interval '1 minute'
         from facilities f cross join generate_series(1, $2::int) d where f.account_id = $1::int8`,
      [account.id, DEVICES],
    );
    await q(
      `insert into facility_alarms (facility_id, event_type, source, device_id, device_name, active, changed_at)
       select id, 10, 'device:dev-1', 'dev-1', 'Device 1', true, now() from facilities
        where account_id = $1::int8 and id % 100 = 0`,
      [account.id],
    );
    await q(
      `update facility_states set last_event_received_at = now() - (facility_id % 20) * interval '1 minute',
              last_polled_at = now() - (facility_id % 3) * interval '1 minute' where account_id = $1::int8`,
      [account.id],
    );
    await q(
      `insert into commands (facility_id, sequence, type, payload, expires_at)
       select id, 1, 'lockdown.set', '{"enabled": true}', now() + interval '7 days' from facilities
        where account_id = $1::int8 and id % 10 = 0`,
      [account.id],
    );
    await q('analyze');
    const pms = await tenancy.createApplication({ name: 'Bench PMS' });
    const key = await tenancy.createAccountKey({ accountId: account.id, clientId: pms.clientId });
    return { accountId: account.id, pms, key };
  } finally {
    await database.close();
  }
}

async function statusList(target: string) {
  const db = await benchDatabase(target);
  const env: Record<string, string> = { ...db.env, RATE_LIMIT_PER_MINUTE: '10000000', REDIS_URL: '' };
  try {
    const { accountId, pms, key } = await provision(env);
    const server = await startServerProcess(env, 120_000, { quiet: true });
    const pool =
      target === 'embedded'
        ? new pg.Pool({ host: env.DATA_DIR!, port: 5432, user: 'postgres', database: 'postgres', max: 2 })
        : new pg.Pool({ connectionString: env.DATABASE_URL, max: 2 });
    const direct = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    try {
      const tokenAnswer = await request(`${server.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'password',
          client_id: pms.clientId,
          client_secret: pms.clientSecret,
          username: key.apiKey,
          password: key.apiSecret,
        }).toString(),
      });
      const token = ((await tokenAnswer.body.json()) as { access_token: string }).access_token;
      const http: number[] = [];
      const sql: number[] = [];
      let rows = 0;
      for (let round = 0; round <= ROUNDS; round++) {
        let started = performance.now();
        const answer = await request(`${server.url}/facilities/statuslist`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const list = (await answer.body.json()) as unknown[];
        if (answer.statusCode !== 200) throw new Error(`statuslist: ${answer.statusCode}`);
        rows = list.length;
        if (round > 0) http.push(performance.now() - started);
        started = performance.now();
        await selectStatusFacts(direct, { accountId }, Date.now());
        if (round > 0) sql.push(performance.now() - started);
      }
      return { rows, http: stats(http), sql: stats(sql) };
    } finally {
      await direct.destroy();
      await server.kill();
    }
  } finally {
    await db.drop();
  }
}

export default async function run() {
  const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${message}`);
  const loads = [os.loadavg()[0]!];
  const listRows: string[] = [];
  const ingestRows: string[] = [];
  for (const target of TARGETS) {
    const label = target === 'postgres' ? 'PostgreSQL 15' : 'embedded';
    log(`${target}: status list of ${FACILITIES} facilities, ${FACILITIES * DEVICES} devices`);
    const list = await statusList(target);
    loads.push(os.loadavg()[0]!);
    const f = (n: number) => n.toFixed(1);
    listRows.push(
      `| ${label} | ${list.rows} | ${f(list.http.p50)} / ${f(list.http.p99)} | ${f(list.sql.p50)} / ${f(list.sql.p99)} | ${(list.http.p50 / list.sql.p50).toFixed(2)}× |`,
    );
    const measure = async (label: string, bin: string) => {
      log(`${target}: ingest, ${label}`);
      const result = await fleetIngest(target, { label, bin }, log);
      loads.push(os.loadavg()[0]!);
      return result;
    };
    const before = BEFORE_BIN ? await measure('without upkeep (before issue 13)', BEFORE_BIN) : null;
    const after = await measure('with upkeep', BIN);
    const cell = (r: typeof after | null) =>
      r ? `${Math.round(r.perSecond).toLocaleString('en-US')} | ${Math.round(r.p50)} / ${Math.round(r.p99)}` : '— | —';
    ingestRows.push(
      `| ${label} | ${cell(before)} | ${cell(after)} | ${before ? `**${(after.perSecond / before.perSecond).toFixed(2)}×**` : '—'} |`,
    );
  }
  console.log(`Facility status benchmark; ${await machine()}; load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' → ')}

Status list of one account (${FACILITIES.toLocaleString('en-US')} facilities, ${(FACILITIES * DEVICES).toLocaleString('en-US')} devices), ${ROUNDS} sequential requests:

| database | rows | HTTP p50 / p99 ms | the statement directly p50 / p99 ms | ratio p50 |
|---|---|---|---|---|
${listRows.join('\n')}

Ingest, the fleet's closed loop (one account, batches of 3 events naming devices): before = ${BEFORE_BIN ?? 'not measured (BENCH_BEFORE_BIN)'}

| database | without upkeep: events/s | p50 / p99 ms | with upkeep: events/s | p50 / p99 ms | with / without |
|---|---|---|---|---|---|
${ingestRows.join('\n')}`);
}
