// "Done means" of issue 6, end to end against the real server process and the real simulator
// process: a unit and a tenant with a code created through the PMS face reach the simulated
// controller as a command, which it acknowledges; the tenant's code then produces Access Granted
// events that the PMS reads back through the event API; disabling the unit makes the same code
// produce Delinquent events.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { BIN, runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';

let database: TestDatabase;
let server: ServerProcess;
before(async () => {
  database = await createTestDatabase();
  server = await startServerProcess({ ...database.env, RATE_LIMIT_PER_MINUTE: '100000' });
});
after(async () => {
  await server?.kill('SIGKILL');
  await database.drop();
});

async function http(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(server.url + path, {
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

async function tokenFor(form: Record<string, string>): Promise<string> {
  const response = await fetch(`${server.url}/auth/token`, { method: 'POST', body: new URLSearchParams(form) });
  const body = (await response.json()) as { access_token: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

async function eventually<T>(
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

it('PMS change → command → simulated controller → acknowledgement → Access Granted events; disable → Delinquent events', async () => {
  // Provisioning: an operator application from the command line, the rest through the admin routes.
  const operatorApp = JSON.parse(
    (await runCli(['admin', 'app', 'create', '--name', 'E2E operator', '--operator'], database.env)).stdout,
  );
  const operator = await tokenFor({
    grant_type: 'client_credentials',
    client_id: operatorApp.clientId,
    client_secret: operatorApp.clientSecret,
  });
  const account = (await http('POST', '/admin/accounts', operator, { name: 'Loop Storage' })).body;
  const facility = (
    await http('POST', '/admin/facilities', operator, {
      accountId: account.id,
      name: 'Loop North',
      timeZone: 'America/Denver',
    })
  ).body;
  const pmsApp = (await http('POST', '/admin/applications', operator, { name: 'Loop PMS' })).body;
  const key = (
    await http('POST', '/admin/account-keys', operator, { accountId: account.id, clientId: pmsApp.clientId })
  ).body;
  const gateway = (await http('POST', '/admin/gateways', operator, { facilityId: facility.id })).body;
  const pms = await tokenFor({
    grant_type: 'password',
    client_id: pmsApp.clientId,
    client_secret: pmsApp.clientSecret,
    username: key.apiKey,
    password: key.apiSecret,
  });

  // The PMS creates a unit and a tenant with a code.
  const unit = await http('POST', `/facilities/${facility.id}/units`, pms, { unitNumber: 'A-101' });
  assert.equal(unit.status, 201);
  const created = await http('POST', `/facilities/${facility.id}/visitors`, pms, {
    unitId: unit.body.id,
    accessCode: '4321',
    firstName: 'Dana',
    lastName: 'Loop',
    isTenant: true,
  });
  assert.equal(created.status, 201);
  const visitorId = created.body.visitor.id;

  // The simulated controller, as its own process: typing codes fast, nothing but valid codes.
  const simulator = spawn(
    process.execPath,
    [
      BIN,
      'simulate',
      '--url',
      server.url,
      '--gateway',
      `${gateway.clientId}:${gateway.clientSecret}`,
      '--rate',
      '240',
      '--wrong-code-share',
      '0',
      '--door-alarms',
      '0',
      '--device-drops',
      '0',
      '--flush-ms',
      '200',
      '--json',
      '--quiet',
    ],
    { env: { ...process.env, ...database.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let simOut = '';
  let simErr = '';
  simulator.stdout.on('data', (c) => (simOut += c));
  simulator.stderr.on('data', (c) => (simErr += c));
  const simExited = new Promise<number | null>((resolve) => simulator.once('exit', (code) => resolve(code)));
  try {
    // The controller receives the visitor's command and acknowledges it.
    const visitorCommand = await eventually('the visitor command to be acknowledged', async () => {
      const commands = (await http('GET', `/facilities/${facility.id}/commands?limit=1000`, pms)).body as any[];
      return commands.find(
        (c) => c.type === 'visitor.upsert' && c.payload.visitor.id === visitorId && c.status === 'acknowledged',
      );
    });
    assert.ok(visitorCommand.acknowledgedAt);

    // The tenant's code produces Access Granted events, read back by the PMS through the event API.
    const granted = await eventually('Access Granted events for the tenant', async () => {
      const page = (await http('GET', `/gatewayevents/facilities/${facility.id}?eventTypes=18&pageSize=100`, pms)).body;
      const mine = (page?.items ?? []).filter((e: any) => e.visitorId === visitorId);
      return mine.length >= 2 ? mine : null;
    });
    assert.equal(granted[0].visitorName, 'Dana Loop');
    assert.equal(granted[0].unitNumber, 'A-101');
    assert.equal(granted[0].eventTypeName, 'Access Granted');
    const ack = (await http('GET', `/gatewayevents/facilities/${facility.id}?eventTypes=3&pageSize=100`, pms)).body
      .items;
    assert.ok(
      ack.some((e: any) => e.data?.commandId === visitorCommand.id),
      'the acknowledgement is an event 3 with data.commandId',
    );

    // Disabling the unit makes the same code produce Delinquent events.
    const disabled = await http('POST', `/facilities/${facility.id}/units/${unit.body.id}/disable`, pms);
    assert.equal(disabled.body.status, 'Delinquent');
    const disableCommand = await eventually('the disable command to be acknowledged', async () => {
      const commands = (await http('GET', `/facilities/${facility.id}/commands?limit=1000`, pms)).body as any[];
      return commands.find(
        (c) => c.type === 'unit.upsert' && c.payload.action === 'disable' && c.status === 'acknowledged',
      );
    });
    const delinquent = await eventually('Delinquent events for the tenant', async () => {
      const page = (await http('GET', `/gatewayevents/facilities/${facility.id}?eventTypes=17&pageSize=100`, pms)).body;
      const mine = (page?.items ?? []).filter((e: any) => e.visitorId === visitorId);
      return mine.length >= 2 ? mine : null;
    });
    assert.equal(delinquent[0].eventTypeName, 'Delinquent');
    // Every grant came before the controller applied the disable, every Delinquent after it.
    const allGranted = (
      await http('GET', `/gatewayevents/facilities/${facility.id}?eventTypes=18&pageSize=10000`, pms)
    ).body.items.filter((e: any) => e.visitorId === visitorId);
    const lastGrant = Math.max(...allGranted.map((e: any) => Date.parse(e.occurredAt)));
    const firstDelinquent = Math.min(...delinquent.map((e: any) => Date.parse(e.occurredAt)));
    assert.ok(lastGrant < firstDelinquent, 'no grant after the first Delinquent');
    assert.ok(lastGrant <= Date.parse(disableCommand.acknowledgedAt));
    // The code is never stored in clear with the events.
    assert.equal(JSON.stringify([granted, delinquent]).includes('4321'), false);
  } finally {
    simulator.kill('SIGTERM');
  }
  assert.equal(await simExited, 0, simErr);
  const summary = JSON.parse(simOut);
  assert.ok(summary.commandsApplied >= 3, simOut);
  assert.equal(summary.rejected, 0, simOut);
  assert.ok(summary.eventsAccepted > 0);
});
