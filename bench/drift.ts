// `npm run bench -- drift` (issue 28): what a controller's digest of a 10,000-item facility costs when
// nothing has drifted, against the same digest computed by one SQL statement on a lean table; and the
// time from a drift to its heal.
//
// One facility of 4,000 units and 6,000 visitors (a tenant on each unit, a second visitor on 2,000 of
// them; distinct 6-digit codes), made through the PMS API 8 at a time, on the real server process
// (`gatehouse serve`) over a fresh database of each target. This process plays the controller: it polls
// every command (GET /gateway/v1/commands, 1,000 at a time) and applies them to its own copy
// (src/simulator/controller.ts), then measures:
//   - no drift: BENCH_DIGESTS digests (POST /gateway/v1/digest), one at a time and 8 at a time:
//     latency, the server process's CPU and the database backends' per digest, bytes each way;
//   - the baseline, in the same run: the table (facility_id, kind, id, fingerprint) holding the same
//     10,000 fingerprints (src/drift/rules.ts, code in clear) and one statement computing both kinds'
//     64 XOR buckets (sha256, first 8 bytes, bit_xor by id % 64) — in the target's PostgreSQL, and for
//     the embedded target in a PGlite of this process (the engine the embedded server runs);
//   - the parts the service's digest is made of, timed in this process: unsealing 6,000 codes
//     (src/sealed.ts) and hashing 10,000 fingerprints into buckets (src/drift/rules.ts);
//   - drift to heal, BENCH_HEALS times: 5 visitors lost, 3 units altered, 1 visitor added
//     (makeDrift, seeded), then digest → items of the differing buckets → poll the corrections →
//     apply → digest in sync.
//
// Settings (environment):
//   BENCH_DATABASE_URL        postgres://postgres@127.0.0.1:5432/test (a database is created and dropped per run)
//   BENCH_TARGETS             embedded,postgres
//   BENCH_DIGESTS             digests per measured stretch (300); BENCH_HEALS drifts healed (5)
//   BENCH_SERVER_PROFILE_DIR  the server's main thread is profiled into that directory (cpu-profile.mjs), on a
//                             server started after the facility is made: the profile holds the digests
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Agent, request } from 'undici';
import {
  DIGEST_BUCKETS,
  type Digest,
  hashedUnits,
  hashedVisitors,
  kindDigest,
  unitFingerprint,
  visitorFingerprint,
} from '../src/drift/rules.ts';
import { Sealer } from '../src/sealed.ts';
import {
  applyInPlace,
  digestOf,
  emptyState,
  itemsOf,
  type ReceivedCommand,
  type WritableState,
} from '../src/simulator/controller.ts';
import { makeDrift } from '../src/simulator/drift.ts';
import { seededRandom } from '../src/simulator/facility.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { benchDatabase } from './fleet.ts';
import { cpuMeter, inParallel, machine } from './load.ts';
import { provisionBenchAccount } from './provision.ts';

const TARGETS = (process.env.BENCH_TARGETS ?? 'embedded,postgres').split(',');
const DIGESTS = Number(process.env.BENCH_DIGESTS ?? 300);
const HEALS = Number(process.env.BENCH_HEALS ?? 5);
const PROFILE_DIR = process.env.BENCH_SERVER_PROFILE_DIR;
const UNITS = 4000;
/** Units with a second visitor beside their tenant. */
const SECOND_VISITORS = 2000;
const WIDTH = 8;
const PLAN = { loseVisitors: 5, alterUnits: 3, addVisitors: 1 };
const CORRECTIONS = PLAN.loseVisitors + PLAN.alterUnits + PLAN.addVisitors;
const BASELINE_APP = 'gh-bench-drift-baseline';

const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${message}`);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const f1 = (n: number) => (Number.isNaN(n) ? '—' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const f2 = (n: number) => (n >= 10 ? n.toFixed(1) : n.toFixed(2));
const bytes = (n: number) => n.toLocaleString('en-US');

const agent = new Agent({ connections: WIDTH, keepAliveTimeout: 60_000 });

/** A JSON call: the answer, and the bytes of the request's and the answer's bodies. */
async function http(
  url: string,
  method: 'GET' | 'POST',
  token: string,
  body?: unknown,
): Promise<{ json: any; sent: number; received: number }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const response = await request(url, {
    dispatcher: agent,
    method,
    headers: { authorization: `Bearer ${token}`, ...(text ? { 'content-type': 'application/json' } : {}) },
    body: text,
  });
  const answer = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${answer}`);
  return {
    json: answer ? JSON.parse(answer) : null,
    sent: text ? Buffer.byteLength(text) : 0,
    received: Buffer.byteLength(answer),
  };
}

async function token(base: string, form: Record<string, string>): Promise<string> {
  const response = await request(`${base}/auth/token`, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const answer = (await response.body.json()) as { access_token: string };
  if (response.statusCode !== 200) throw new Error(`token: ${response.statusCode} ${JSON.stringify(answer)}`);
  return answer.access_token;
}

/** The controller this process plays: its copy of the facility, changed by the commands it polls. */
class Controller {
  state: WritableState = emptyState();
  appliedSequence = 0;

  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  /** Polls until caught up (`atLeast` commands, waiting for them if need be); returns how many it applied. */
  async catchUp(atLeast = 0): Promise<number> {
    let applied = 0;
    for (;;) {
      const wait = applied < atLeast ? 5 : 0;
      const { json } = await http(
        `${this.base}/gateway/v1/commands?after=${this.appliedSequence}&limit=1000&wait=${wait}`,
        'GET',
        this.token,
      );
      const commands = json.commands as ReceivedCommand[];
      for (const command of commands) {
        applyInPlace(this.state, command);
        this.appliedSequence = Math.max(this.appliedSequence, command.sequence);
      }
      applied += commands.length;
      if (commands.length < 1000 && applied >= atLeast) return applied;
      if (commands.length === 0 && wait > 0) throw new Error(`${applied} of ${atLeast} commands came`);
    }
  }

  digestBody() {
    return { appliedSequence: this.appliedSequence, ...digestOf(this.state) };
  }

  digest(body = this.digestBody()) {
    return http(`${this.base}/gateway/v1/digest`, 'POST', this.token, body);
  }

  items(buckets: { units: number[]; visitors: number[] }) {
    return http(`${this.base}/gateway/v1/digest/items`, 'POST', this.token, {
      appliedSequence: this.appliedSequence,
      ...itemsOf(this.state, buckets),
    });
  }
}

/** The facility through the PMS API: 4,000 units, a tenant on each, a second visitor on 2,000. */
async function makeFacility(base: string, pms: string, facilityId: number): Promise<void> {
  const started = performance.now();
  const unitIds = await inParallel([...Array(UNITS).keys()], WIDTH, async (i) => {
    const { json } = await http(`${base}/facilities/${facilityId}/units`, 'POST', pms, { unitNumber: `U-${i + 1}` });
    return json.id as number;
  });
  await inParallel([...Array(UNITS + SECOND_VISITORS).keys()], WIDTH, async (i) => {
    await http(`${base}/facilities/${facilityId}/visitors`, 'POST', pms, {
      unitId: unitIds[i % UNITS],
      accessCode: String(100_000 + i),
      firstName: 'Bench',
      lastName: `Visitor ${i + 1}`,
      isTenant: i < UNITS,
    });
  });
  log(`${UNITS + UNITS + SECOND_VISITORS} PMS calls in ${Math.round((performance.now() - started) / 1000)} s`);
}

interface Stretch {
  p50: number;
  p99: number;
  perSecond: number;
  /** CPU ms per digest: the server process (with the database when embedded) and the database's backends. */
  server: number;
  database: number;
}

/** `DIGESTS` runs of `digest`, `width` at a time, with their latencies and the CPU they cost. */
async function stretch(
  width: number,
  digest: () => Promise<unknown>,
  meter: () => () => Promise<{ server: number; database: number }>,
): Promise<Stretch> {
  // Warm-up: plans, every connection of the width, the JIT.
  await inParallel([...Array(Math.max(10, 2 * width)).keys()], width, digest);
  const latencies: number[] = [];
  const stop = meter();
  const began = performance.now();
  await inParallel([...Array(DIGESTS).keys()], width, async () => {
    const started = performance.now();
    await digest();
    latencies.push(performance.now() - started);
  });
  const seconds = (performance.now() - began) / 1000;
  const cpu = await stop();
  latencies.sort((a, b) => a - b);
  return {
    p50: pct(latencies, 0.5),
    p99: pct(latencies, 0.99),
    perSecond: DIGESTS / seconds,
    server: cpu.server / DIGESTS,
    database: cpu.database / DIGESTS,
  };
}

/** This process's CPU ms (a PGlite in it is its database). */
function ownCpu() {
  const started = process.cpuUsage();
  return async () => {
    const used = process.cpuUsage(started);
    return { server: Number.NaN, database: (used.user + used.system) / 1000 };
  };
}

// ---- the baseline: the same digest by one statement on a lean table ----

const BASELINE_TABLE = `create table drift_baseline (
  facility_id bigint not null,
  kind smallint not null, -- 0 unit, 1 visitor: their ids are not distinct across kinds
  id bigint not null,
  fingerprint text not null,
  primary key (facility_id, kind, id)
)`;

const BASELINE_DIGEST = `select kind, (id % ${DIGEST_BUCKETS})::int as bucket, count(*)::int as items,
  bit_xor(('x' || encode(substring(sha256(convert_to(fingerprint, 'UTF8')) from 1 for 8), 'hex'))::bit(64)::bigint)::text as hash
from drift_baseline where facility_id = $1 group by kind, bucket`;

type Query = (sql: string, params?: unknown[]) => Promise<{ rows: any[] }>;

/** Fills the lean table with the controller copy's fingerprints. */
async function fillBaseline(query: Query, facilityId: number, state: WritableState): Promise<void> {
  await query(BASELINE_TABLE);
  const rows = [
    ...[...state.units.values()].map((u) => [0, u.id, unitFingerprint(u)] as const),
    ...[...state.visitors.values()].map(
      (v) =>
        [
          1,
          v.id,
          visitorFingerprint({ ...v, timeGroupId: v.timeGroup.id, accessProfileId: v.accessProfile.id }),
        ] as const,
    ),
  ];
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    await query(
      'insert into drift_baseline (facility_id, kind, id, fingerprint) select $1, * from unnest($2::smallint[], $3::bigint[], $4::text[])',
      [facilityId, chunk.map((r) => r[0]), chunk.map((r) => r[1]), chunk.map((r) => r[2])],
    );
  }
  await query('vacuum analyze drift_baseline');
}

/** The statement's 128 rows as a digest (to check that the baseline computes the same one). */
async function baselineDigest(query: Query, facilityId: number): Promise<Digest> {
  const digest: Digest = {
    units: { count: 0, buckets: Array(DIGEST_BUCKETS).fill('0'.repeat(16)) },
    visitors: { count: 0, buckets: Array(DIGEST_BUCKETS).fill('0'.repeat(16)) },
  };
  for (const row of (await query(BASELINE_DIGEST, [facilityId])).rows) {
    const kind = row.kind === 0 ? digest.units : digest.visitors;
    kind.count += row.items;
    kind.buckets[row.bucket] = BigInt.asUintN(64, BigInt(row.hash)).toString(16).padStart(16, '0');
  }
  return digest;
}

// ---- the parts of the service's digest, timed in this process ----

/** Median ms of `work` over 20 runs (after 5 to warm up). */
function medianMs(work: () => unknown): number {
  for (let i = 0; i < 5; i++) work();
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return pct(
    times.sort((a, b) => a - b),
    0.5,
  );
}

function parts(state: WritableState) {
  const sealer = new Sealer(randomBytes(32));
  const sealed = [...state.visitors.values()].map((v) => ({ id: v.id, copy: sealer.seal(String(v.id), v.accessCode) }));
  const units = [...state.units.values()].map((u) => ({ id: u.id, unitNumber: u.unitNumber, status: u.status }));
  const visitors = [...state.visitors.values()].map((v) => ({
    id: v.id,
    unitId: v.unitId,
    isEnabled: v.isEnabled,
    timeGroupId: v.timeGroup.id,
    accessProfileId: v.accessProfile.id,
    accessCode: v.accessCode,
  }));
  return {
    unseal: medianMs(() => {
      for (const s of sealed) sealer.unseal(String(s.id), s.copy);
    }),
    hash: medianMs(() => {
      kindDigest(hashedUnits(units));
      kindDigest(hashedVisitors(visitors));
    }),
    controller: medianMs(() => digestOf(state)),
  };
}

// ---- one target ----

interface Heal {
  ms: number;
  steps: number[];
  itemsSent: number;
  itemsReceived: number;
  buckets: number;
}

async function runTarget(target: string) {
  const db = await benchDatabase(target);
  const env: Record<string, string> = {
    ...db.env,
    RATE_LIMIT_PER_MINUTE: '10000000',
    // 8 changes that set a code at once wait for the default 5 places; on a loaded machine past the 2 s
    // they may wait, and the making of the facility stops at a 429.
    ACCESS_CODE_CONFLICTS_PER_MINUTE: '100000',
    TOKEN_TTL_SECONDS: '86400',
    REDIS_URL: '',
  };
  let server: ServerProcess | null = null;
  let watcher: pg.Client | null = null;
  let baselinePool: pg.Pool | null = null;
  let pglite: PGlite | null = null;
  try {
    const { app, key, facilities } = await provisionBenchAccount(env, { facilities: 1, timeZone: 'America/Denver' });
    const facility = facilities[0]!;
    const login = async (base: string) => ({
      pms: await token(base, {
        grant_type: 'password',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      }),
      gateway: await token(base, {
        grant_type: 'client_credentials',
        client_id: facility.gateway.clientId,
        client_secret: facility.gateway.clientSecret,
      }),
    });
    server = await startServerProcess(env, 120_000, { quiet: true });
    let { pms, gateway } = await login(server.url);
    log(`${target}: making ${UNITS} units and ${UNITS + SECOND_VISITORS} visitors`);
    await makeFacility(server.url, pms, facility.id);
    if (PROFILE_DIR) {
      // A server of its own for the profile, so that it holds the digests, not the making of the facility.
      await server.kill();
      server = await startServerProcess(
        {
          ...env,
          BENCH_SERVER_PROFILE_DIR: PROFILE_DIR,
          NODE_OPTIONS: `--import=${new URL('./cpu-profile.mjs', import.meta.url).pathname}`,
        },
        120_000,
        { quiet: true },
      );
      ({ pms, gateway } = await login(server.url));
    }
    const base = server.url;
    const controller = new Controller(base, gateway);
    const applied = await controller.catchUp();
    if (controller.state.units.size !== UNITS || controller.state.visitors.size !== UNITS + SECOND_VISITORS)
      throw new Error(`the controller holds ${controller.state.units.size} units, ${controller.state.visitors.size}`);
    const first = await controller.digest();
    if (first.json.status !== 'in-sync') throw new Error(`first digest: ${JSON.stringify(first.json)}`);
    log(`${target}: ${applied} commands applied; the first digest is in sync`);

    // Our digest, no drift.
    const body = controller.digestBody();
    const serverPid = server.child.pid!;
    let backendPids: (() => Promise<number[]>) | null = null;
    if (target === 'postgres') {
      watcher = new pg.Client({ connectionString: env.DATABASE_URL });
      await watcher.connect();
      const w = watcher;
      backendPids = async () =>
        (
          await w.query(
            'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and application_name <> $1',
            [BASELINE_APP],
          )
        ).rows.map((r) => r.pid as number);
    }
    const ours = {
      sequential: await stretch(
        1,
        () => controller.digest(body),
        () => cpuMeter(serverPid, backendPids),
      ),
      concurrent: await stretch(
        WIDTH,
        () => controller.digest(body),
        () => cpuMeter(serverPid, backendPids),
      ),
    };
    log(`${target}: ours ${f1(ours.sequential.p50)} ms p50, ${f1(ours.sequential.server)} ms server CPU per digest`);

    // The baseline, on the same machine, with the same fingerprints.
    let query: Query;
    let baselineMeter: () => () => Promise<{ server: number; database: number }>;
    if (target === 'postgres') {
      const p = new pg.Pool({ connectionString: env.DATABASE_URL, max: WIDTH, application_name: BASELINE_APP });
      baselinePool = p;
      query = (sql, params) => p.query(sql, params);
      const w = watcher!;
      const pids = async () =>
        (
          await w.query(
            'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
            [BASELINE_APP],
          )
        ).rows.map((r) => r.pid as number);
      baselineMeter = () => cpuMeter(process.pid, pids);
    } else {
      const lite = await PGlite.create();
      pglite = lite;
      query = (sql, params) => lite.query(sql, params);
      baselineMeter = ownCpu;
    }
    await fillBaseline(query, facility.id, controller.state);
    const same =
      JSON.stringify(await baselineDigest(query, facility.id)) === JSON.stringify(digestOf(controller.state));
    if (!same) throw new Error('the baseline statement does not compute the controller’s digest');
    const baseline = {
      sequential: await stretch(1, () => query(BASELINE_DIGEST, [facility.id]), baselineMeter),
      concurrent: await stretch(WIDTH, () => query(BASELINE_DIGEST, [facility.id]), baselineMeter),
    };
    log(`${target}: baseline ${f1(baseline.sequential.p50)} ms p50`);

    // Drift to heal.
    const random = seededRandom(28);
    const heals: Heal[] = [];
    for (let round = 0; round < HEALS; round++) {
      controller.state = makeDrift(controller.state, PLAN, random).state;
      const steps: number[] = [];
      let at = performance.now();
      const step = () => {
        const now = performance.now();
        steps.push(now - at);
        at = now;
      };
      const started = at;
      const differs = await controller.digest();
      step();
      if (differs.json.status !== 'differs') throw new Error(`drift ${round + 1}: ${JSON.stringify(differs.json)}`);
      const items = await controller.items(differs.json.buckets);
      step();
      if (items.json.corrections !== CORRECTIONS)
        throw new Error(`drift ${round + 1}: ${JSON.stringify(items.json).slice(0, 500)}`);
      await controller.catchUp(CORRECTIONS);
      step();
      const healed = await controller.digest();
      step();
      if (healed.json.status !== 'in-sync') throw new Error(`drift ${round + 1} not healed: ${healed.json.status}`);
      heals.push({
        ms: performance.now() - started,
        steps,
        itemsSent: items.sent,
        itemsReceived: items.received,
        buckets: differs.json.buckets.units.length + differs.json.buckets.visitors.length,
      });
    }
    const drifts = (await http(`${base}/facilities/${facility.id}/drift?limit=100`, 'GET', pms)).json as {
      status: string;
      corrections: number;
    }[];
    const recorded = drifts.filter((d) => d.status === 'healed' && d.corrections === CORRECTIONS).length;
    if (recorded !== HEALS)
      throw new Error(`${recorded} of ${HEALS} drifts recorded healed: ${JSON.stringify(drifts)}`);
    log(`${target}: ${HEALS} drifts healed and recorded`);

    return {
      ours,
      baseline,
      sent: first.sent,
      received: first.received,
      heals,
      parts: parts(controller.state),
    };
  } finally {
    await server?.kill();
    await watcher?.end();
    await baselinePool?.end();
    await pglite?.close();
    await db.drop();
  }
}

export default async function run() {
  const loads = [os.loadavg()[0]!];
  const results: { target: string; result: Awaited<ReturnType<typeof runTarget>> }[] = [];
  for (const target of TARGETS) {
    results.push({ target, result: await runTarget(target) });
    loads.push(os.loadavg()[0]!);
  }
  await agent.close();

  const label = (target: string) => (target === 'postgres' ? 'PostgreSQL 15' : 'embedded (PGlite)');
  const digestRows: string[] = [];
  const healRows: string[] = [];
  const partRows: string[] = [];
  for (const { target, result: r } of results) {
    for (const mode of ['sequential', 'concurrent'] as const) {
      const o = r.ours[mode];
      const b = r.baseline[mode];
      const ourCpu = target === 'postgres' ? o.server + o.database : o.server;
      const ourCpuText =
        target === 'postgres' ? `${f2(o.server)} + ${f2(o.database)} = ${f2(ourCpu)}` : `${f2(o.server)} (in-process)`;
      digestRows.push(
        `| ${label(target)} | ${mode === 'sequential' ? '1 at a time' : `${WIDTH} at a time`} | ${f1(o.p50)} / ${f1(o.p99)} | ${f1(o.perSecond)} | ${ourCpuText} | ${f2(b.p50)} / ${f2(b.p99)} | ${f2(b.database)} | **${f1(o.p50 / b.p50)}×** | **${f1(ourCpu / b.database)}×** |`,
      );
    }
    const sorted = r.heals.map((h) => h.ms).sort((a, b) => a - b);
    const stepMedian = (i: number) =>
      f1(
        pct(
          r.heals.map((h) => h.steps[i]!).sort((a, b) => a - b),
          0.5,
        ),
      );
    const itemsSent = r.heals.map((h) => h.itemsSent).sort((a, b) => a - b);
    healRows.push(
      `| ${label(target)} | ${r.heals.length} | ${f1(pct(sorted, 0.5))} / ${f1(sorted.at(-1)!)} | ${stepMedian(0)} / ${stepMedian(1)} / ${stepMedian(2)} / ${stepMedian(3)} | ${r.heals.map((h) => h.buckets).join(', ')} | ${bytes(itemsSent[0]!)}–${bytes(itemsSent.at(-1)!)} | ${bytes(Math.max(...r.heals.map((h) => h.itemsReceived)))} |`,
    );
    partRows.push(
      `| ${label(target)} | ${f2(r.ours.sequential.server)} | ${f2(r.parts.unseal)} | ${f2(r.parts.hash)} | ${f2(r.parts.controller)} |`,
    );
  }
  const { sent, received } = results[0]!.result;
  console.log(`Drift (issue 28): one facility of ${UNITS.toLocaleString('en-US')} units and ${(UNITS + SECOND_VISITORS).toLocaleString('en-US')} visitors, the real server process; ${await machine()}; load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' → ')}

A digest with no drift (${DIGESTS} per row, after at least 10 to warm up): ${bytes(sent)} bytes sent, ${bytes(received)} bytes answered (bodies; the same for every digest of this facility, whatever its size). Baseline: one statement computing both kinds' 64 XOR buckets from a lean table (facility_id, kind, id, fingerprint) of the same 10,000 fingerprints — in the same PostgreSQL, or in a PGlite of the bench process for the embedded target.

| database | digests | ours: p50 / p99 ms | ours: digests/s | ours: CPU ms per digest (server + database) | baseline: p50 / p99 ms | baseline: database CPU ms per digest | p50 ours / baseline | CPU ours / baseline |
|---|---|---|---|---|---|---|---|---|
${digestRows.join('\n')}

Where a digest's CPU goes (ms; the parts timed in the bench process, the same code the server runs):

| database | server CPU per digest | unsealing ${(UNITS + SECOND_VISITORS).toLocaleString('en-US')} codes | hashing 10,000 fingerprints into buckets | the controller's own digestOf |
|---|---|---|---|---|
${partRows.join('\n')}

Drift to heal: a drift of ${CORRECTIONS} items (${PLAN.loseVisitors} visitors lost, ${PLAN.alterUnits} units altered, ${PLAN.addVisitors} visitor added; seeded), then digest → items → poll the corrections → apply → digest in sync:

| database | drifts | drift → healed, p50 / max ms | steps p50 ms: digest / items / poll + apply / digest | buckets named | items step: bytes sent | items step: bytes answered |
|---|---|---|---|---|---|---|
${healRows.join('\n')}`);
}
