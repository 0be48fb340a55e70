// Token issue rate per grant, and the guard's cost per request: a protected no-op route
// (/auth/whoami: verify the ES256 signature, check the credential, read the principal) side by
// side with an open one (/health), in the same run against the same server process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runCli, startServerProcess } from '../test/helpers/process.ts';
import { load, machine } from './load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

export default async function run() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-tokens-'));
  // On PostgreSQL (BENCH_DATABASE_URL), a database of its own, dropped at the end.
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const dbName = `gh_bench_tokens_${process.pid}`;
  let databaseUrl = '';
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_FAILURE_LIMIT: '100000',
  };
  const json = async (args: string[]) => {
    const result = await runCli(args, env);
    if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const account = await json(['admin', 'account', 'create', '--name', 'Bench']);
  const pms = await json(['admin', 'app', 'create', '--name', 'Bench PMS']);
  const key = await json(['admin', 'account-key', 'create', '--account', account.id, '--app', pms.clientId]);
  const operator = await json(['admin', 'app', 'create', '--name', 'Bench ops', '--operator']);
  const server = await startServerProcess(env, 60_000, { quiet: true });
  const form = (fields: Record<string, string>) => () => new URLSearchParams(fields).toString();
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
  const rows: string[] = [];
  const row = (name: string, r: Awaited<ReturnType<typeof load>>) =>
    rows.push(`| ${name} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`);

  row(
    'POST /auth/token password grant',
    await load(`${server.url}/auth/token`, {
      connections: 8,
      seconds: SECONDS,
      method: 'POST',
      headers: formHeaders,
      body: form({
        grant_type: 'password',
        client_id: pms.clientId,
        client_secret: pms.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      }),
    }),
  );
  row(
    'POST /auth/token client_credentials',
    await load(`${server.url}/auth/token`, {
      connections: 8,
      seconds: SECONDS,
      method: 'POST',
      headers: formHeaders,
      body: form({
        grant_type: 'client_credentials',
        client_id: operator.clientId,
        client_secret: operator.clientSecret,
      }),
    }),
  );
  const tokenResponse = await fetch(`${server.url}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: operator.clientId,
      client_secret: operator.clientSecret,
    }),
  });
  const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  // Warm both, then measure them back to back.
  await load(`${server.url}/health`, { connections: 16, seconds: 2 });
  const open = await load(`${server.url}/health`, { connections: 16, seconds: SECONDS });
  const guarded = await load(`${server.url}/auth/whoami`, {
    connections: 16,
    seconds: SECONDS,
    headers: { authorization: `Bearer ${token}` },
  });
  row('GET /health (open)', open);
  row('GET /auth/whoami (bearer verified)', guarded);
  await server.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
  const perRequestUs = Math.round((1e6 / guarded.perSecond - 1e6 / open.perSecond) * 10) / 10;
  console.log(`Tokens and the guard (${env.DATABASE_URL ? 'PostgreSQL' : 'embedded'} database), ${SECONDS} s per row; ${await machine()}

| what | requests/s | p50 ms | p99 ms | errors |
|---|---|---|---|---|
${rows.join('\n')}

Guard overhead: ${perRequestUs} µs of server time per request (${Math.round((guarded.perSecond / open.perSecond) * 100)} % of the open route's rate).`);
}
