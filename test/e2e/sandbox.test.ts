// "Done means" of issue 30, end to end over real HTTP through the typed client: an integrator's account
// creates a sandbox (a small facility seeded), gets the sandbox's token, creates a visitor with a gate
// code and sees the command acknowledged by the controller the service simulates; triggers a door alarm
// and receives its signed webhook; takes the controller offline and sees the status list turn; deletes the
// sandbox and sees every row gone and its controller stopped. The clock is the test's (the status list's
// "silent for 2 minutes" without waiting 2 minutes); everything else is the running service.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import * as e2e from '../helpers/e2e.ts';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { sandboxRowsLeft } from '../helpers/sandboxes.ts';
import { provisionAccount } from '../helpers/tenants.ts';

const clock = new ManualClock();
let t: TestApp;
let base: string;
let receiver: Receiver;

before(async () => {
  t = await startTestApp({
    runJobs: true,
    clock,
    env: {
      RATE_LIMIT_PER_MINUTE: '100000',
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_SWEEP_MS: '250',
      // A token outlives an idle hour: the idle test's next request is made with the token it had.
      TOKEN_TTL_SECONDS: '10800',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  t.services.sandboxControllers.listening('127.0.0.1', port);
  base = `http://127.0.0.1:${port}`;
  receiver = await startReceiver();
});

after(async () => {
  await receiver.close();
  await t.services.sandboxControllers.close();
  const closing = t.app.close();
  t.app.server.closeAllConnections();
  await closing;
  await t.close();
});

it('a sandbox: seeded, a visitor’s command acknowledged by its simulated controller, a door alarm’s signed webhook, the controller offline in the status list, deleted with every row', async () => {
  const owner = await provisionAccount(t, { name: 'Integrator Storage' });
  const production = e2e.clientFor(base, owner.token);

  // Create and seed it; its account key's token through the owner's application.
  const sandbox = await e2e.ok(
    production.POST('/sandboxes', { body: { name: 'Integration tests', facilities: ['small'] } }),
    201,
  );
  assert.match(sandbox.credentials.accountKey.apiSecret, /^gh_sbs_/);
  const token = await e2e.tokenFor(base, {
    grant_type: 'password',
    client_id: owner.pms.clientId,
    client_secret: owner.pms.clientSecret,
    username: sandbox.credentials.accountKey.apiKey,
    password: sandbox.credentials.accountKey.apiSecret,
  });
  const client = e2e.clientFor(base, token);
  const facilityId = sandbox.facilities[0]!.id;
  const path = { facilityId };
  await e2e.eventually('the simulated controller runs', async () => {
    const controller = await e2e.ok(client.GET('/sandbox/facilities/{facilityId}/controller', { params: { path } }));
    return controller.running && controller.online;
  });

  // A visitor with a gate code on a vacant seeded unit: its command reaches the simulated gate and is acknowledged.
  const units = await e2e.ok(client.GET('/facilities/{facilityId}/units', { params: { path } }));
  const vacant = units.find((u) => u.status === 'Vacant');
  assert.ok(vacant, 'a seeded vacant unit');
  const visitor = await e2e.ok(
    client.POST('/facilities/{facilityId}/visitors', {
      params: { path },
      body: { unitId: vacant.id, accessCode: '4829173', firstName: 'Sam', lastName: 'Tester', isTenant: true },
    }),
    201,
  );
  const acknowledged = await e2e.eventually(
    'the visitor’s command acknowledged by the simulated controller',
    async () => {
      const commands = await e2e.ok(
        client.GET('/facilities/{facilityId}/commands', { params: { path, query: { after: 0, limit: 1000 } } }),
      );
      return commands.find(
        (c) =>
          c.type === 'visitor.upsert' &&
          (c.payload as { visitor?: { id: number } }).visitor?.id === visitor.visitor.id &&
          c.status === 'acknowledged',
      );
    },
  );
  assert.ok(acknowledged.acknowledgedAt);

  // A door alarm, triggered: its webhook arrives, signed with the subscription's secret.
  const subscription = await e2e.ok(
    client.POST('/webhooks/subscriptions', { body: { url: receiver.url, topics: ['gateway.events'] } }),
    201,
  );
  const details = `Door forced open at the back gate (${Date.now()})`;
  await e2e.ok(
    client.POST('/sandbox/facilities/{facilityId}/events', {
      params: { path },
      body: { eventType: 10, deviceId: 'kp-gate', details, data: { active: true } },
    }),
    202,
  );
  const delivery = await e2e.eventually('the door alarm’s webhook', async () =>
    receiver.received.find(
      (d) =>
        d.json.type === 'gateway.events' &&
        d.json.data.events.some(
          (e: { eventType: number; details: string }) => e.eventType === 10 && e.details === details,
        ),
    ),
  );
  new Webhook(subscription.secret).verify(delivery.body, delivery.headers as Record<string, string>);
  const alarm = delivery.json.data.events.find((e: { details: string }) => e.details === details);
  assert.equal(alarm.facilityId, facilityId);

  // The controller offline: silent for more than 2 minutes (the test's clock), the status list turns.
  const statusOf = async () => {
    const rows = await e2e.ok(client.GET('/facilities/statuslist'));
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.sandbox, true);
    return rows[0]!;
  };
  assert.equal((await statusOf()).gatewayStatus, 'ok');
  const offline = await e2e.ok(
    client.POST('/sandbox/facilities/{facilityId}/controller/offline', { params: { path } }),
  );
  assert.equal(offline.online, false);
  const turned = await e2e.eventually('the status list to turn', async () => {
    // A poll already on its way may still mark the controller heard: time moves on until nothing has.
    clock.advance(3 * 60_000);
    const row = await statusOf();
    return row.gatewayStatus === 'ok' ? null : row;
  });
  assert.match(turned.gatewayStatusMessage, /^Not heard from since /);

  // Deleted: every row gone, its controller stopped on this instance, its token refused.
  const ids = {
    account: sandbox.id,
    facilities: [facilityId],
    credentials: [] as string[],
  };
  const deleted = await production.DELETE('/sandboxes/{sandboxId}', { params: { path: { sandboxId: sandbox.id } } });
  assert.equal(deleted.response.status, 204);
  assert.deepEqual(await sandboxRowsLeft(t, ids), {}, 'every row of the sandbox is gone');
  await e2e.eventually(
    'the controller stopped',
    async () => t.services.sandboxControllers.runner.facilities.length === 0,
  );
  await e2e.eventually('the sandbox’s token refused', async () => {
    clock.advance(5_000); // the guard reads revocations (and deletions) every few seconds of the service's clock
    const { response } = await client.GET('/facilities/statuslist');
    return response.status === 401;
  });
});

it('an idle sandbox’s controller stops after an hour, and the next request with its token resumes it', async () => {
  const owner = await provisionAccount(t, { name: 'Idle Integrator' });
  const sandbox = await e2e.ok(
    e2e.clientFor(base, owner.token).POST('/sandboxes', { body: { name: 'Idle', facilities: ['small'] } }),
    201,
  );
  const client = e2e.clientFor(
    base,
    await e2e.tokenFor(base, {
      grant_type: 'password',
      client_id: owner.pms.clientId,
      client_secret: owner.pms.clientSecret,
      username: sandbox.credentials.accountKey.apiKey,
      password: sandbox.credentials.accountKey.apiSecret,
    }),
  );
  const facilityId = sandbox.facilities[0]!.id;
  const runs = () => t.services.sandboxControllers.runner.facilities.includes(facilityId);
  await e2e.eventually('the controller runs', async () => runs());

  clock.advance(61 * 60_000);
  await e2e.eventually('the idle sandbox’s controller stopped', async () => !runs(), 30_000);
  // Any request with the sandbox's token is a use: its controller is claimed again at once.
  await e2e.ok(client.GET('/sandbox/facilities/{facilityId}/controller', { params: { path: { facilityId } } }));
  await e2e.eventually('the controller resumed', async () => runs(), 20_000);
});
