// "Done means" of issue 6, end to end against the real server process and the real simulator
// process: a unit and a tenant with a code created through the PMS face reach the simulated
// controller as a command, which it acknowledges; the tenant's code then produces Access Granted
// events that the PMS reads back through the event API; disabling the unit makes the same code
// produce Delinquent events.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as e2e from '../helpers/e2e.ts';
import { realServer } from '../helpers/server.ts';

const served = realServer({ RATE_LIMIT_PER_MINUTE: '100000' }, { signal: 'SIGKILL' });

it('PMS change → command → simulated controller → acknowledgement → Access Granted events; disable → Delinquent events', async () => {
  const { facility, gateway, pms } = await e2e.provisionThroughAdmin(served.url, served.database, 'Loop');
  const client = e2e.clientFor(served.url, pms);
  const facilityId = facility.id;
  const commands = () =>
    e2e.ok(
      client.GET('/facilities/{facilityId}/commands', { params: { path: { facilityId }, query: { limit: 1000 } } }),
    );
  const events = (eventType: number, pageSize: number) =>
    e2e.ok(
      client.GET('/gatewayevents/facilities/{facilityId}', {
        params: { path: { facilityId }, query: { eventTypes: [String(eventType)], pageSize } },
      }),
    );

  // The PMS creates a unit and a tenant with a code.
  const unit = await e2e.ok(
    client.POST('/facilities/{facilityId}/units', { params: { path: { facilityId } }, body: { unitNumber: 'A-101' } }),
    201,
  );
  const created = await e2e.ok(
    client.POST('/facilities/{facilityId}/visitors', {
      params: { path: { facilityId } },
      body: { unitId: unit.id, accessCode: '4321', firstName: 'Dana', lastName: 'Loop', isTenant: true },
    }),
    201,
  );
  const visitorId = created.visitor.id;

  // The simulated controller, as its own process: typing codes fast, nothing but valid codes.
  const simulator = e2e.startSimulator(served.url, served.database.env, gateway, [
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
      return (await commands()).find(
        (c) =>
          c.type === 'visitor.upsert' && (c.payload as any).visitor.id === visitorId && c.status === 'acknowledged',
      );
    });
    assert.ok(visitorCommand.acknowledgedAt);

    // The tenant's code produces Access Granted events, read back by the PMS through the event API.
    const granted = await e2e.eventually('Access Granted events for the tenant', async () => {
      const mine = (await events(18, 100)).items.filter((e) => e.visitorId === visitorId);
      return mine.length >= 2 ? mine : null;
    });
    assert.equal(granted[0]!.visitorName, 'Dana Loop');
    assert.equal(granted[0]!.unitNumber, 'A-101');
    assert.equal(granted[0]!.eventTypeName, 'Access Granted');
    const ack = (await events(3, 100)).items;
    assert.ok(
      ack.some((e) => e.data?.commandId === visitorCommand.id),
      'the acknowledgement is an event 3 with data.commandId',
    );

    // Disabling the unit makes the same code produce Delinquent events.
    const disabled = await e2e.ok(
      client.POST('/facilities/{facilityId}/units/{unitId}/disable', {
        params: { path: { facilityId, unitId: unit.id } },
        body: {},
      }),
    );
    assert.equal(disabled.status, 'Delinquent');
    const disableCommand = await e2e.eventually('the disable command to be acknowledged', async () => {
      return (await commands()).find(
        (c) => c.type === 'unit.upsert' && (c.payload as any).action === 'disable' && c.status === 'acknowledged',
      );
    });
    const delinquent = await e2e.eventually('Delinquent events for the tenant', async () => {
      const mine = (await events(17, 100)).items.filter((e) => e.visitorId === visitorId);
      return mine.length >= 2 ? mine : null;
    });
    assert.equal(delinquent[0]!.eventTypeName, 'Delinquent');
    // Every grant came before the controller applied the disable, every Delinquent after it.
    const allGranted = (await events(18, 10000)).items.filter((e) => e.visitorId === visitorId);
    const lastGrant = Math.max(...allGranted.map((e) => Date.parse(e.occurredAt)));
    const firstDelinquent = Math.min(...delinquent.map((e) => Date.parse(e.occurredAt)));
    assert.ok(lastGrant < firstDelinquent, 'no grant after the first Delinquent');
    assert.ok(lastGrant <= Date.parse(disableCommand.acknowledgedAt!));
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
