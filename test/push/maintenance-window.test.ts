// The facility.status webhook carries `maintenance` (issue 28): when a maintenance window starts the
// gateway and device parts change to it, and back when it ends — signed deliveries to a real receiver,
// the service's clock moved through the window instead of waiting.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { operatorToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { until } from '../helpers/until.ts';

const MIN = 60_000;
let t: TestApp;
let clock: ManualClock;
let account: ProvisionedAccount;
let r: Receiver;
let secret: string;

before(async () => {
  clock = new ManualClock();
  t = await startTestApp({
    clock,
    runJobs: true,
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_SWEEP_MS: '100' },
  });
  account = await provisionAccount(t, { facilities: 1 });
  r = await startReceiver();
  const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
    token: account.token,
    body: { url: r.url, topics: ['facility.status'] },
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  secret = answer.body.secret;
});
after(async () => {
  await r.close();
  await t.close();
});

/** The verified facility.status payloads received so far: [component, previousStatus, status, message]. */
const changes = () =>
  r.received
    .filter((d) => d.json.type === 'facility.status')
    .map((d) => {
      new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
      return d.json.data as { component: string; previousStatus: string | null; status: string; message: string };
    });

it('tells subscribers of the change to maintenance when a window starts, and back when it ends', async () => {
  const facilityId = account.facilities[0]!.id;
  // The job runs every minute at the service's clock; the test also records at once rather than wait for it.
  const record = () => t.services.facilityStatus.recordStatusChanges(clock.now());
  await record();
  await until(() => changes().length >= 4); // the first words: gateway error (never connected), the rest ok
  const operator = await operatorToken(t);
  const window = await inject(t.app, 'POST', `/admin/facilities/${facilityId}/maintenance-windows`, {
    token: operator,
    body: {
      startsAt: new Date(clock.now() + 5 * MIN).toISOString(),
      endsAt: new Date(clock.now() + 20 * MIN).toISOString(),
      reason: 'Keypad firmware',
    },
  });
  assert.equal(window.status, 201, JSON.stringify(window.body));
  const end = (window.body.endsAt as string).replace('.000Z', 'Z');

  clock.advance(6 * MIN);
  await record();
  const started = await until(() => {
    const found = changes().filter((c) => c.status === 'maintenance');
    return found.length >= 2 ? found : undefined;
  });
  assert.deepEqual(
    started.map((c) => [c.component, c.previousStatus, c.status]),
    [
      ['gateway', 'error', 'maintenance'],
      ['device', 'ok', 'maintenance'],
    ],
  );
  assert.equal(started[1]!.message, `Maintenance until ${end} (Keypad firmware): no devices reported yet.`);

  clock.advance(15 * MIN);
  await record();
  const ended = await until(() => {
    const found = changes().filter((c) => c.previousStatus === 'maintenance');
    return found.length >= 2 ? found : undefined;
  });
  assert.deepEqual(
    ended.map((c) => [c.component, c.status]),
    [
      ['gateway', 'error'],
      ['device', 'ok'],
    ],
  );
});
