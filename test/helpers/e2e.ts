// What the end-to-end tests against the real server process share: JSON over HTTP, tokens, waiting
// for something to come true, and a tenant provisioned the way an operator does it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { TestDatabase } from './harness.ts';
import { BIN, runCli } from './process.ts';

export async function http(
  base: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export async function tokenFor(base: string, form: Record<string, string>): Promise<string> {
  const response = await fetch(`${base}/auth/token`, { method: 'POST', body: new URLSearchParams(form) });
  const body = (await response.json()) as { access_token: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

/** The probe's first truthy value, probed every 250 ms until `ms` pass. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms = 90_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * An operator application from the command line, then through the admin routes an account, a
 * facility, a PMS with an account key, and the facility's gateway credential; tokens for both.
 */
export async function provisionThroughAdmin(base: string, database: TestDatabase, name: string) {
  const operatorApp = JSON.parse(
    (await runCli(['admin', 'app', 'create', '--name', `${name} operator`, '--operator'], database.env)).stdout,
  );
  const operator = await tokenFor(base, {
    grant_type: 'client_credentials',
    client_id: operatorApp.clientId,
    client_secret: operatorApp.clientSecret,
  });
  const call = (method: string, path: string, body?: unknown) => http(base, method, path, operator, body);
  const account = (await call('POST', '/admin/accounts', { name: `${name} Storage` })).body;
  const facility = (
    await call('POST', '/admin/facilities', {
      accountId: account.id,
      name: `${name} North`,
      timeZone: 'America/Denver',
    })
  ).body;
  const pmsApp = (await call('POST', '/admin/applications', { name: `${name} PMS` })).body;
  const key = (await call('POST', '/admin/account-keys', { accountId: account.id, clientId: pmsApp.clientId })).body;
  const gateway = (await call('POST', '/admin/gateways', { facilityId: facility.id })).body;
  const pms = await tokenFor(base, {
    grant_type: 'password',
    client_id: pmsApp.clientId,
    client_secret: pmsApp.clientSecret,
    username: key.apiKey,
    password: key.apiSecret,
  });
  return { operator, account, facility, gateway, pms };
}

/** `gatehouse simulate` as its own process, with its output kept. */
export function startSimulator(
  base: string,
  env: Record<string, string>,
  gateway: { clientId: string; clientSecret: string },
  args: string[],
) {
  const simulator = spawn(
    process.execPath,
    [
      BIN,
      'simulate',
      '--url',
      base,
      '--gateway',
      `${gateway.clientId}:${gateway.clientSecret}`,
      ...args,
      '--json',
      '--quiet',
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  simulator.stdout.on('data', (c) => (stdout += c));
  simulator.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => simulator.once('exit', (code) => resolve(code)));
  return {
    /** Stops it (SIGTERM) and resolves with its exit code and output. */
    async stop() {
      simulator.kill('SIGTERM');
      const code = await exited;
      return { code, stdout, stderr };
    },
  };
}
