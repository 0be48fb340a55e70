// `npm run bench -- auctions`: the auction import on both databases.
//  1. Full lists, through the whole app (HTTP parsing, validation, plan, SQL; app.inject, jobs
//     off so that nothing else runs): a first list of 5,000 units, the same list again (all
//     unchanged), and a list with 100 changes (50 units dropped, 50 new).
//  2. Image retrieval by the real server process from a local image server: images/s, and the
//     server's resident memory while it fetches.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { dataDirLayout } from '../src/db/data-dir.ts';
import { createLogger } from '../src/logger.ts';
import { startServices } from '../src/services.ts';
import { runCli, startServerProcess } from '../test/helpers/process.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const UNITS = 5000;
const RUNS = 3;
const IMAGE_UNITS = 500;
const IMAGES_PER_UNIT = 2;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (started: number) => Math.round(performance.now() - started);

function unit(i: number, prefix: string, extra: Record<string, unknown> = {}) {
  return {
    unitId: `${prefix}-${String(i).padStart(5, '0')}`,
    unitName: `A${i}`,
    auctionType: 'Lien',
    unitWidth: 10,
    unitLength: 15,
    description: 'Sofa, boxes, two bikes, a lamp and a bookcase; the contents of a 10x15 unit.',
    categories: ['Household Furniture', 'Boxes', 'Sports & Outdoors'],
    tenantName: 'J. Doe',
    startsAt: '2031-12-01T09:00:00-07:00',
    endsAt: '2031-12-08T09:00:00-07:00',
    minimumBid: 25,
    imageUrls: [
      `https://images.pms.example/u/${prefix}-${i}-1.jpg`,
      `https://images.pms.example/u/${prefix}-${i}-2.jpg`,
    ],
    ...extra,
  };
}

async function freshDatabase(
  kind: 'embedded' | 'postgres',
  tag: string,
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `gh-bench-${tag}-`));
  if (kind === 'embedded')
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  const name = `gh_bench_${tag}_${process.pid}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function lists(kind: 'embedded' | 'postgres') {
  const database = await freshDatabase(kind, 'lists');
  const config = loadConfig({ ...database.env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000' });
  const services = await startServices(config, createLogger(config), {
    role: 'owner',
    command: 'bench',
    runJobs: false,
  });
  const app = await buildApp(services);
  await app.ready();
  const account = await services.tenancy.createAccount({ name: 'Bench Storage' });
  const timings = { first: [] as number[], same: [] as number[], changed: [] as number[] };
  let bodyBytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const guid = `BENCH-${kind.slice(0, 3)}-${run}`;
    const facility = await services.tenancy.createFacility({
      accountId: account.id,
      name: `Bench ${run}`,
      timeZone: 'America/Denver',
      guid,
    });
    const { accessToken } = await services.auth.tokens.issue({
      kind: 'partner',
      clientId: `bench-${run}`,
      credentialId: (
        await services.tenancy.createApplication({
          name: `Bench partner ${run}`,
          clientType: 'BenchPMS',
          facilityGuids: [guid],
        })
      ).id,
      scopes: ['auctions:write', 'auctions:read'],
      clientType: 'BenchPMS',
      facilityGuids: [facility.guid!],
    });
    const post = async (records: unknown[]) => {
      const payload = JSON.stringify({ guid, clientType: 'BenchPMS', auctionableUnitInfo: records });
      bodyBytes = payload.length;
      const started = performance.now();
      const response = await app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        payload,
      });
      const elapsed = ms(started);
      if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body.slice(0, 500)}`);
      return { elapsed, summary: response.json().data.summary };
    };
    const list = Array.from({ length: UNITS }, (_, i) => unit(i, `U${run}`));
    const first = await post(list);
    if (first.summary.created !== UNITS) throw new Error(JSON.stringify(first.summary));
    const same = await post(list);
    if (same.summary.unchanged !== UNITS) throw new Error(JSON.stringify(same.summary));
    const changedList = [...list.slice(50), ...Array.from({ length: 50 }, (_, i) => unit(i, `N${run}`))];
    const changed = await post(changedList);
    if (changed.summary.created !== 50 || changed.summary.removed !== 50)
      throw new Error(JSON.stringify(changed.summary));
    timings.first.push(first.elapsed);
    timings.same.push(same.elapsed);
    timings.changed.push(changed.elapsed);
  }
  await app.close();
  await services.close();
  await database.drop();
  return { timings, bodyBytes };
}

/** A local image server with distinct photo-like JPEGs (640×480, ~100 KB). */
async function imageServer(count: number) {
  const images: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const noise = Buffer.alloc(160 * 120 * 3);
    for (let j = 0; j < noise.length; j++) noise[j] = (j * 7 + i * 13 + ((j * j) % 251)) & 0xff;
    images.push(
      await sharp(noise, { raw: { width: 160, height: 120, channels: 3 } })
        .resize(640, 480)
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  }
  let served = 0;
  const server = http.createServer((req, res) => {
    const n = Number(/(\d+)\.jpg$/.exec(req.url ?? '')?.[1] ?? 0);
    const body = images[n % images.length]!;
    served++;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    bytes: Math.round(images.reduce((s, b) => s + b.length, 0) / images.length),
    served: () => served,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

async function imageThroughput(kind: 'embedded' | 'postgres') {
  const database = await freshDatabase(kind, 'images');
  const host = await imageServer(IMAGE_UNITS * IMAGES_PER_UNIT);
  const server = await startServerProcess({
    ...database.env,
    IMAGE_FETCH_ALLOW_HOSTS: host.hostPort,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  try {
    const cli = await runCli(['admin', 'app', 'create', '--name', 'Bench ops', '--operator'], database.env);
    const operator = JSON.parse(cli.stdout) as { clientId: string; clientSecret: string };
    const token = async (clientId: string, clientSecret: string) => {
      const r = await fetch(`${server.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      return ((await r.json()) as { access_token: string }).access_token;
    };
    const ops = await token(operator.clientId, operator.clientSecret);
    const call = async (method: string, url: string, auth: string, body: unknown) =>
      (
        await fetch(server.url + url, {
          method,
          headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json() as Promise<any>;
    const account = await call('POST', '/admin/accounts', ops, { name: 'Bench' });
    await call('POST', '/admin/facilities', ops, {
      accountId: account.id,
      name: 'Bench',
      timeZone: 'UTC',
      guid: 'BENCH-IMG',
    });
    const app = await call('POST', '/admin/applications', ops, {
      name: 'Bench PMS',
      clientType: 'BenchPMS',
      facilityGuids: ['BENCH-IMG'],
    });
    const partner = await token(app.clientId, app.clientSecret);
    const records = Array.from({ length: IMAGE_UNITS }, (_, i) =>
      unit(i, 'IMG', {
        imageUrls: Array.from({ length: IMAGES_PER_UNIT }, (_, k) => `${host.url}/p/${i * IMAGES_PER_UNIT + k}.jpg`),
      }),
    );
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssMiB(server.child.pid!);
    const total = IMAGE_UNITS * IMAGES_PER_UNIT;
    const counter =
      kind === 'postgres'
        ? new pg.Client({ connectionString: database.env.DATABASE_URL })
        : new pg.Client({
            host: dataDirLayout(database.env.DATA_DIR!).socketDir,
            port: 5432,
            user: 'postgres',
            database: 'postgres',
          });
    await counter.connect();
    const started = performance.now();
    const created = await call('POST', '/api/3/auctioninfo', partner, {
      guid: 'BENCH-IMG',
      clientType: 'BenchPMS',
      auctionableUnitInfo: records,
    });
    if (created.data?.summary?.created !== IMAGE_UNITS) throw new Error(JSON.stringify(created).slice(0, 500));
    let peak = idle;
    let done = 0;
    for (;;) {
      peak = Math.max(peak, rssMiB(server.child.pid!));
      const { rows } = await counter.query<{ n: number }>(
        "select count(*)::int as n from auction_images where status <> 'pending'",
      );
      done = rows[0]!.n;
      if (done >= total) break;
      if (performance.now() - started > 600_000) throw new Error(`only ${done} of ${total} images after 10 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const { rows: failed } = await counter.query<{ n: number }>(
      "select count(*)::int as n from auction_images where status = 'failed'",
    );
    await counter.end();
    return {
      total,
      seconds,
      perSecond: Math.round(total / seconds),
      idle,
      peak,
      failed: failed[0]!.n,
      avgBytes: host.bytes,
    };
  } finally {
    await server.kill();
    await host.close();
    await database.drop();
  }
}

export default async function run(): Promise<void> {
  const rows: string[] = [];
  const imageRows: string[] = [];
  let bodyBytes = 0;
  for (const kind of ['embedded', 'postgres'] as const) {
    const label = kind === 'embedded' ? 'embedded (PGlite)' : 'PostgreSQL 15';
    const { timings, bodyBytes: bytes } = await lists(kind);
    bodyBytes = bytes;
    rows.push(
      `| ${label} | ${median(timings.first)} | ${median(timings.same)} | ${median(timings.changed)} | ${timings.first.join(' / ')} · ${timings.same.join(' / ')} · ${timings.changed.join(' / ')} |`,
    );
    const images = await imageThroughput(kind);
    imageRows.push(
      `| ${label} | ${images.total} (${images.failed} failed) | ${images.seconds.toFixed(1)} | ${images.perSecond} | ${images.idle} | ${images.peak} |`,
    );
  }
  console.log(`Auction import. ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

Full lists of ${UNITS} units (body ${(bodyBytes / 1024 / 1024).toFixed(1)} MiB, 2 image URLs per unit), through the whole app (app.inject), median of ${RUNS} facilities (ms):

| database | first list (${UNITS} created) | same list (all unchanged) | 100 changes (50 dropped, 50 new) | each run (first · same · changed) |
|---|---|---|---|---|
${rows.join('\n')}

Image retrieval by the server process (8 fetches at a time) from a local image server: ${IMAGE_UNITS} auctions × ${IMAGES_PER_UNIT} images, distinct 640×480 JPEGs; time from the create call to the last image stored:

| database | images | seconds | images/s | RSS before (MiB) | RSS peak while fetching (MiB) |
|---|---|---|---|---|---|
${imageRows.join('\n')}`);
}
