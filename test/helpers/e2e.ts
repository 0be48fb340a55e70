// What the end-to-end tests against the real server process share: the typed client with the
// contract check, tokens, waiting for something to come true, and a tenant provisioned the way an
// operator does it.
import { spawn } from 'node:child_process';
import {
  createGatehouseClient,
  type GatehouseClient,
  type paths,
  requestToken,
} from '../../clients/typescript/index.ts';
import { ok } from './client.ts';
import { contractMiddleware } from './contract.ts';
import type { TestDatabase } from './harness.ts';
import { BIN, runCli } from './process.ts';

export { ok };

type TokenGrant = NonNullable<paths['/auth/token']['post']['requestBody']>['content']['application/json'];

/**
 * The typed client of the server at `base` (clients/typescript), with `token` as its bearer token;
 * every answer it receives is checked against the API description the server serves (contract.ts):
 * an undocumented status, media type or field fails the test.
 */
export function clientFor(base: string, token?: string | null): GatehouseClient {
  const client = createGatehouseClient({ baseUrl: base, ...(token ? { token } : {}) });
  client.use(contractMiddleware(base));
  return client;
}

/** An access token from the server's token endpoint, through the typed client. */
export async function tokenFor(base: string, grant: TokenGrant): Promise<string> {
  return (await requestToken(clientFor(base), grant)).access_token;
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
  const admin = clientFor(base, operator);
  const account = await ok(admin.POST('/admin/accounts', { body: { name: `${name} Storage` } }), 201);
  const facility = await ok(
    admin.POST('/admin/facilities', {
      body: { accountId: account.id, name: `${name} North`, timeZone: 'America/Denver' },
    }),
    201,
  );
  const pmsApp = await ok(admin.POST('/admin/applications', { body: { name: `${name} PMS` } }), 201);
  const key = await ok(
    admin.POST('/admin/account-keys', { body: { accountId: account.id, clientId: pmsApp.clientId } }),
    201,
  );
  const gateway = await ok(admin.POST('/admin/gateways', { body: { facilityId: facility.id } }), 201);
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
