// GET /gateway/v1/commands: the controller's long poll — bad input, visibility, wake-ups (in this
// process; across instances on PostgreSQL), restart from after=0, graceful shutdown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { startServices } from '../../src/services.ts';
import { acknowledgeCommands } from '../../src/commands/acknowledge.ts';
import { onPostgres, startTestApp } from '../helpers/harness.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { gatewayToken, provisionAccount, tenantFixture } from '../helpers/tenants.ts';
import { call, pms, poll, polled } from '../access-control/helpers.ts';

const site = tenantFixture({ facilities: 2, controllers: true });
const { t } = site;
const facilityA = () => site.account.facilities[0]!.id;
const facilityB = () => site.account.facilities[1]!.id;
const gatewayA = () => site.controllers[0]!;
const gatewayB = () => site.controllers[1]!;

describe('the command poll', () => {
  it('refuses wait=600, after=-1, limit=0 in one 400 naming each', async () => {
    const r = await refused(poll(t, gatewayA(), { wait: 600, after: -1, limit: 0 }), 400);
    assert.deepEqual(r.errors?.map((e) => e.path).sort(), ['after', 'limit', 'wait']);
    // In plain words, with the range the contract gives (issue 16).
    assert.deepEqual(Object.fromEntries(r.errors?.map((e) => [e.path, e.message]) ?? []), {
      wait: 'must be a whole number from 0 to 30',
      after: 'must be a whole number of at least 0',
      limit: 'must be a whole number from 1 to 1000',
    });
    await refused(poll(t, gatewayA(), { wait: 600 }), 400);
    await refused(poll(t, gatewayA(), { after: -1 }), 400);
    // Not a number at all: raw, as the typed client sends numbers only.
    assert.equal((await call(t, gatewayA(), 'GET', '/gateway/v1/commands?wait=abc')).status, 400);
  });

  it('a PMS token on the gateway face is 403; no token is 401', async () => {
    await refused(poll(t, site.account.token), 403);
    await refused(typedClient(t).GET('/gateway/v1/commands'), 401);
  });

  it('a gateway token sees only its own facility’s commands; naming facility B with A’s token is 404', async () => {
    await pms(t, site.account.token, facilityB()).unit('ONLY-B');
    const a = await polled(t, gatewayA(), { after: 0 });
    assert.equal(JSON.stringify(a).includes('ONLY-B'), false);
    await refused(poll(t, gatewayA(), { facilityId: facilityB() }), 404);
    await ok(poll(t, gatewayA(), { facilityId: facilityA() }), 200);
    const b = await polled(t, gatewayB(), { after: 0 });
    assert.ok(b.some((c) => unitNumberOf(c) === 'ONLY-B'));
    // A's gateway token cannot use the PMS face of facility B (nor A).
    const facility = { params: { path: { facilityId: facilityB() } } };
    await refused(typedClient(t, gatewayA()).GET('/facilities/{facilityId}/commands', facility), 403);
  });

  it('delivers the facility’s commands in order with the gate codes in clear, on this channel only', async () => {
    const api = pms(t, site.account.token, facilityA());
    const unit = await api.unit('G1');
    const { visitor } = await api.visitor(unit.id, '004711');
    const { data, response } = await poll(t, gatewayA(), { after: 0, limit: 1000 });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const commands = data?.commands ?? [];
    const sequences = commands.map((c) => c.sequence);
    assert.deepEqual(
      sequences,
      [...sequences].sort((x, y) => x - y),
    );
    const upsert = commands.find((c) => c.type === 'visitor.upsert' && payloadOf(c).visitor?.id === visitor.id);
    assert.ok(upsert, JSON.stringify(commands));
    assert.deepEqual(Object.keys(upsert).sort(), ['createdAt', 'id', 'payload', 'sequence', 'type']);
    const delivered = payloadOf(upsert).visitor!;
    assert.equal(delivered.accessCode, '004711');
    assert.equal('sealedAccessCode' in delivered, false);
    assert.equal(t.logs.text.includes('004711'), false);
  });

  it('answers at once without wait, and {"commands": []} when a wait ends with none', async () => {
    const last = await lastSequence();
    assert.deepEqual(await ok(poll(t, gatewayA(), { after: last }), 200), { commands: [] });
    assert.deepEqual(await ok(poll(t, gatewayA(), { after: last, wait: 1 }), 200), { commands: [] });
  });

  it('a new command wakes a waiting poll at once', async () => {
    const waiting = polled(t, gatewayA(), { after: await lastSequence(), wait: 30 });
    await waitFor(async () => (await pollWaiters()) >= 1);
    const started = Date.now();
    await pms(t, site.account.token, facilityA()).unit('WAKE');
    const woken = await waiting;
    assert.equal(woken.length, 1);
    assert.equal(unitNumberOf(woken[0]!), 'WAKE');
    assert.ok(Date.now() - started < 25_000, 'woken, not timed out');
  });

  it('a command for another facility does not answer the poll', async () => {
    const waiting = ok(poll(t, gatewayA(), { after: await lastSequence(), wait: 2 }), 200);
    await waitFor(async () => (await pollWaiters()) >= 1);
    await pms(t, site.account.token, facilityB()).unit('NOT-FOR-A');
    assert.deepEqual(await waiting, { commands: [] });
  });

  it('a controller polling from after=0 after a restart gets every unacknowledged command again, acknowledged ones not', async () => {
    const first = await polled(t, gatewayA(), { after: 0, limit: 1000 });
    assert.ok(first.length >= 3);
    const acked = first.slice(0, 2).map((c) => c.id);
    await t.services.database.db.transaction().execute((trx) => acknowledgeCommands(trx, facilityA(), acked));
    const again = (await polled(t, gatewayA(), { after: 0, limit: 1000 })).map((c) => c.id);
    assert.deepEqual(
      again,
      first.slice(2).map((c) => c.id),
    );
  });
});

describe('instances', () => {
  it(`a command written on one instance wakes a poll waiting on another (${onPostgres ? 'PostgreSQL LISTEN/NOTIFY' : 'embedded: the same instance'})`, async () => {
    // On PostgreSQL: a second instance (own services, own app) on the same database and data directory.
    const second = onPostgres ? await startSecondInstance() : null;
    try {
      const pollApp = second?.app ?? t.app;
      const { signals } = (second?.services ?? t.services).commands;
      const query = { after: await lastSequence(), wait: 30 };
      const waiting = ok(typedClient(pollApp, gatewayA()).GET('/gateway/v1/commands', { params: { query } }), 200);
      await waitFor(async () => signals.waiting === 1);
      await pms(t, site.account.token, facilityA()).unit('CROSS');
      const { commands } = await waiting;
      assert.equal(commands.length, 1);
      assert.equal(unitNumberOf(commands[0]!), 'CROSS');
    } finally {
      await second?.close();
    }
  });

  it('shutdown answers waiting polls at once with {"commands": []}', async () => {
    const other = await startTestApp();
    const acc = await provisionAccount(other);
    const gw = await gatewayToken(other, acc.facilities[0]!.id);
    const waiting = poll(other, gw.token, { after: 0, wait: 30 });
    const { signals } = other.services.commands;
    await waitFor(async () => signals.waiting === 1);
    const closing = other.close();
    const first = await Promise.race([waiting.then(() => 'poll answered'), closing.then(() => 'closed')]);
    assert.equal(first, 'poll answered', 'the poll ends when shutdown begins, not when its wait ends');
    assert.deepEqual(await ok(waiting, 200), { commands: [] });
    await closing;
  });
});

async function startSecondInstance() {
  const services = await startServices(t.config, createLogger({ logLevel: 'warn' }), {
    role: 'owner',
    command: 'test-second',
    runJobs: false,
  });
  const app = await buildApp(services);
  await app.ready();
  return {
    app,
    services,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

/** What a delivered command carries, as far as these tests read it (the document leaves payloads open). */
interface DeliveredPayload {
  unit?: { unitNumber: string };
  visitor?: { id: number; accessCode?: string };
}
const payloadOf = (command: { payload?: unknown }) => command.payload as DeliveredPayload;
const unitNumberOf = (command: { payload?: unknown }) => payloadOf(command).unit?.unitNumber;

/** The sequence of facility A's last command so far (0: none). */
async function lastSequence(): Promise<number> {
  return (await polled(t, gatewayA(), { after: 0, limit: 1000 })).at(-1)?.sequence ?? 0;
}

async function pollWaiters(): Promise<number> {
  return t.services.commands.signals.waiting;
}

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
