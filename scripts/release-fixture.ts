// A database made by a tagged release, for the upgrade test (test/db/upgrade.test.ts): the release's own
// code, checked out from its tag, migrates a fresh PostgreSQL database and serves it while an operator
// provisions a tenant (the admin command line), its PMS writes a unit and a tenant with a gate code and
// its controller reports events; the database is then dumped as plain SQL beside what the test needs to
// use it (the keys the release ran with, the credentials, what was written).
//
//   node --import tsx scripts/release-fixture.ts v0.1.0      writes test/fixtures/releases/v0.1.0.{sql,json}
//
// Needs git, the PostgreSQL server of DATABASE_URL (default the local one) and its pg_dump on the PATH.
// Run it once per release, when the release is tagged; the files it writes are committed.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportPKCS8, generateKeyPair } from 'jose';
import pg from 'pg';
import { runCli, startServerProcess } from '../test/helpers/process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tag = process.argv[2];
if (!tag) throw new Error('usage: release-fixture.ts <tag>');
const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'release-fixture-'));
const tree = path.join(work, 'tree');
const database = `gh_release_${tag.replace(/\W/g, '_')}_${process.pid}`;
const admin = new pg.Client({ connectionString: server });
await admin.connect();
execFileSync('git', ['worktree', 'add', '--detach', tree, tag], { cwd: root, stdio: 'ignore' });
try {
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'));
  await admin.query(`create database ${database}`);
  const url = new URL(server);
  url.pathname = `/${database}`;
  const keys = {
    JWT_PRIVATE_KEY: await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey),
    ACCESS_CODE_KEY: randomBytes(32).toString('hex'),
  };
  const env = { DATABASE_URL: url.toString(), DATA_DIR: path.join(work, 'data'), REDIS_URL: '', ...keys };
  const bin = path.join(tree, 'bin/gatehouse');
  const cli = async (args: string[]) => JSON.parse((await runCli(args, env, 120_000, bin)).stdout);

  const account = await cli(['admin', 'account', 'create', '--name', 'Upgrade Storage']);
  const facility = await cli([
    ...['admin', 'facility', 'create', '--account', String(account.id), '--name', 'Upgrade North'],
    ...['--time-zone', 'America/Denver', '--property-number', '2001', '--address-line', '1 Old Road'],
  ]);
  const pmsApp = await cli(['admin', 'app', 'create', '--name', 'Upgrade PMS']);
  const key = await cli(['admin', 'account-key', 'create', '--account', String(account.id), '--app', pmsApp.clientId]);
  const gateway = await cli(['admin', 'gateway', 'create', '--facility', String(facility.id)]);

  const served = await startServerProcess(env, 120_000, { bin });
  try {
    // biome-ignore lint/suspicious/noExplicitAny: the release's answers, read as they come
    const call = async (route: string, body: unknown, token?: string): Promise<any> => {
      const response = await fetch(`${served.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(`${route}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const pms = (
      await call('/auth/token', {
        grant_type: 'password',
        client_id: pmsApp.clientId,
        client_secret: pmsApp.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      })
    ).access_token;
    const unit = await call(`/facilities/${facility.id}/units`, { unitNumber: 'U-101' }, pms);
    const visitor = await call(
      `/facilities/${facility.id}/visitors`,
      { unitId: unit.id, accessCode: '0417', firstName: 'Ada', lastName: 'Old', isTenant: true },
      pms,
    );
    const controller = (
      await call('/auth/token', {
        grant_type: 'client_credentials',
        client_id: gateway.clientId,
        client_secret: gateway.clientSecret,
      })
    ).access_token;
    const events = Array.from({ length: 5 }, (_, i) => ({
      eventId: `upgrade-${i}`,
      eventType: 18,
      occurredAt: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
      deviceId: 'kp-1',
      deviceName: 'Front gate keypad',
      details: 'Access granted',
    }));
    const stored = await call('/gateway/v1/events', { events }, controller);

    fs.mkdirSync(path.join(root, 'test/fixtures/releases'), { recursive: true });
    const written = {
      release: tag,
      made: new Date().toISOString(),
      keys,
      pmsApp: { clientId: pmsApp.clientId, clientSecret: pmsApp.clientSecret },
      accountKey: { apiKey: key.apiKey, apiSecret: key.apiSecret },
      gateway: { clientId: gateway.clientId, clientSecret: gateway.clientSecret },
      account: { id: account.id },
      facility: { id: facility.id, addressLine: '1 Old Road' },
      unit: { id: unit.id, unitNumber: 'U-101' },
      visitor: { id: visitor.visitor.id, accessCode: '0417' },
      events: { eventIds: events.map((e) => e.eventId), stored },
    };
    fs.writeFileSync(path.join(root, `test/fixtures/releases/${tag}.json`), `${JSON.stringify(written, null, 2)}\n`);
  } finally {
    await served.kill('SIGTERM');
  }
  // Plain SQL with INSERTs: loadable by a plain client on either database (the embedded socket passes no COPY).
  const dump = execFileSync(
    'pg_dump',
    ['--inserts', '--no-owner', '--no-privileges', '--no-comments', '--dbname', url.toString()],
    { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
  );
  // Without psql's own commands (\restrict, \unrestrict): a plain client runs the rest.
  const sql = dump.replace(/^\\(un)?restrict .*\n/gm, '');
  fs.writeFileSync(path.join(root, `test/fixtures/releases/${tag}.sql`), sql);
  console.log(`test/fixtures/releases/${tag}.sql: ${sql.length} bytes`);
} finally {
  await admin.query(`drop database if exists ${database} with (force)`).catch(() => {});
  await admin.end();
  execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: root, stdio: 'ignore' });
  fs.rmSync(work, { recursive: true, force: true });
}
