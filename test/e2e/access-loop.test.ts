// "Done means" of issue 6, end to end against the real server process and the real simulator
// process: a unit and a tenant with a code created through the PMS face reach the simulated
// controller as a command, which it acknowledges; the tenant's code then produces Access Granted
// events that the PMS reads back through the event API; disabling the unit makes the same code
// produce Delinquent events.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import * as e2e from '../helpers/e2e.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

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

const http = (method: string, path: string, token: string | null, body?: unknown) =>
  e2e.http(server.url, method, path, token, body);

it('PMS change → command → simulated controller → acknowledgement → Access Granted events; disable → Delinquent events', async () => {
  const { facility, gateway, pms } = await e2e.provisionThroughAdmin(server.url, database, 'Loop');

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
  const simulator = e2e.startSimulator(server.url, database.env, gateway, [
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
  ]);
  let stopped: Awaited<ReturnType<typeof simulator.stop>>;
  try {
    // The controller receives the visitor's command and acknowledges it.
    const visitorCommand = await e2e.eventually('the visitor command to be acknowledged', async () => {
      const commands = (await http('GET', `/facilities/${facility.id}/commands?limit=1000`, pms)).body as any[];
      return commands.find(
        (c) => c.type === 'visitor.upsert' && c.payload.visitor.id === visitorId && c.status === 'acknowledged',
      );
    });
    assert.ok(visitorCommand.acknowledgedAt);

    // The tenant's code produces Access Granted events, read back by the PMS through the event API.
    const granted = await e2e.eventually('Access Granted events for the tenant', async () => {
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
    const disableCommand = await e2e.eventually('the disable command to be acknowledged', async () => {
      const commands = (await http('GET', `/facilities/${facility.id}/commands?limit=1000`, pms)).body as any[];
      return commands.find(
        (c) => c.type === 'unit.upsert' && c.payload.action === 'disable' && c.status === 'acknowledged',
      );
    });
    const delinquent = await e2e.eventually('Delinquent events for the tenant', async () => {
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
    stopped = await simulator.stop();
  }
  assert.equal(stopped.code, 0, stopped.stderr);
  const summary = JSON.parse(stopped.stdout);
  assert.ok(summary.commandsApplied >= 3, JSON.stringify(summary));
  assert.equal(summary.rejected, 0, JSON.stringify(summary));
  assert.ok(summary.eventsAccepted > 0);
});
