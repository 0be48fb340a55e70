// GET /gateway/v1/commands: the controller's long poll — bad input, visibility, wake-ups (in this
// process; across instances on PostgreSQL), restart from after=0, graceful shutdown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { startServices } from '../../src/services.ts';
import { acknowledgeCommands } from '../../src/commands/acknowledge.ts';
import { onPostgres, startTestApp } from '../helpers/harness.ts';
import { bearer, gatewayToken, provisionAccount, tenantFixture } from '../helpers/tenants.ts';
import { pms, poll } from '../access-control/helpers.ts';

const site = tenantFixture({ facilities: 2, controllers: true });
const { t } = site;
const facilityA = () => site.account.facilities[0]!.id;
const facilityB = () => site.account.facilities[1]!.id;
const gatewayA = () => site.controllers[0]!;
const gatewayB = () => site.controllers[1]!;

describe('the command poll', () => {
  it('refuses wait=600, after=-1, limit=0 in one 400 naming each', async () => {
    const r = await poll(t, gatewayA(), '?wait=600&after=-1&limit=0');
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), ['after', 'limit', 'wait']);
    // In plain words, with the range the contract gives (issue 16).
    assert.deepEqual(
      Object.fromEntries(r.body.errors.map((e: { path: string; message: string }) => [e.path, e.message])),
      {
        wait: 'must be a whole number from 0 to 30',
        after: 'must be a whole number of at least 0',
        limit: 'must be a whole number from 1 to 1000',
      },
    );
    assert.equal((await poll(t, gatewayA(), '?wait=600')).status, 400);
    assert.equal((await poll(t, gatewayA(), '?after=-1')).status, 400);
    assert.equal((await poll(t, gatewayA(), '?wait=abc')).status, 400);
  });

  it('a PMS token on the gateway face is 403; no token is 401', async () => {
    assert.equal((await poll(t, site.account.token, '')).status, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: '/gateway/v1/commands' })).statusCode, 401);
  });

  it('a gateway token sees only its own facility’s commands; naming facility B with A’s token is 404', async () => {
    await pms(t, site.account.token, facilityB()).unit('ONLY-B');
    const a = await poll(t, gatewayA(), '?after=0');
    assert.equal(a.status, 200);
    assert.equal(JSON.stringify(a.body).includes('ONLY-B'), false);
    assert.equal((await poll(t, gatewayA(), `?facilityId=${facilityB()}`)).status, 404);
    assert.equal((await poll(t, gatewayA(), `?facilityId=${facilityA()}`)).status, 200);
    const b = await poll(t, gatewayB(), '?after=0');
    assert.ok(
      b.body.commands.some(
        (c: { payload: { unit?: { unitNumber: string } } }) => c.payload.unit?.unitNumber === 'ONLY-B',
      ),
    );
    // A's gateway token cannot use the PMS face of facility B (nor A).
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/facilities/${facilityB()}/commands`, headers: bearer(gatewayA()) }))
        .statusCode,
      403,
    );
  });

  it('delivers the facility’s commands in order with the gate codes in clear, on this channel only', async () => {
    const api = pms(t, site.account.token, facilityA());
    const unit = await api.unit('G1');
    const { visitor } = await api.visitor(unit.id, '004711');
    const r = await poll(t, gatewayA(), '?after=0&limit=1000');
    assert.equal(r.status, 200);
    assert.equal(r.headers['cache-control'], 'no-store');
    const sequences = r.body.commands.map((c: { sequence: number }) => c.sequence);
    assert.deepEqual(
      sequences,
      [...sequences].sort((x, y) => x - y),
    );
    const upsert = r.body.commands.find(
      (c: { type: string; payload: { visitor?: { id: number } } }) =>
        c.type === 'visitor.upsert' && c.payload.visitor?.id === visitor.id,
    );
    assert.deepEqual(Object.keys(upsert).sort(), ['createdAt', 'id', 'payload', 'sequence', 'type']);
    assert.equal(upsert.payload.visitor.accessCode, '004711');
    assert.equal('sealedAccessCode' in upsert.payload.visitor, false);
    assert.equal(t.logs.text.includes('004711'), false);
  });

  it('answers at once without wait, and {"commands": []} when a wait ends with none', async () => {
    const last = (await poll(t, gatewayA(), '?after=0&limit=1000')).body.commands.at(-1).sequence;
    const none = await poll(t, gatewayA(), `?after=${last}`);
    assert.deepEqual(none.body, { commands: [] });
    const waited = await poll(t, gatewayA(), `?after=${last}&wait=1`);
    assert.equal(waited.status, 200);
    assert.deepEqual(waited.body, { commands: [] });
  });

  it('a new command wakes a waiting poll at once', async () => {
    const last = (await poll(t, gatewayA(), '?after=0&limit=1000')).body.commands.at(-1).sequence;
    const waiting = poll(t, gatewayA(), `?after=${last}&wait=30`);
    await waitFor(async () => (await pollWaiters()) >= 1);
    const started = Date.now();
    await pms(t, site.account.token, facilityA()).unit('WAKE');
    const r = await waiting;
    assert.equal(r.body.commands.length, 1);
    assert.equal(r.body.commands[0].payload.unit.unitNumber, 'WAKE');
    assert.ok(Date.now() - started < 25_000, 'woken, not timed out');
  });

  it('a command for another facility does not answer the poll', async () => {
    const last = (await poll(t, gatewayA(), '?after=0&limit=1000')).body.commands.at(-1).sequence;
    const waiting = poll(t, gatewayA(), `?after=${last}&wait=2`);
    await waitFor(async () => (await pollWaiters()) >= 1);
    await pms(t, site.account.token, facilityB()).unit('NOT-FOR-A');
    assert.deepEqual((await waiting).body, { commands: [] });
  });

  it('a controller polling from after=0 after a restart gets every unacknowledged command again, acknowledged ones not', async () => {
    const first = (await poll(t, gatewayA(), '?after=0&limit=1000')).body.commands;
    assert.ok(first.length >= 3);
    const acked = first.slice(0, 2).map((c: { id: string }) => c.id);
    await t.services.database.db.transaction().execute((trx) => acknowledgeCommands(trx, facilityA(), acked));
    const again = (await poll(t, gatewayA(), '?after=0&limit=1000')).body.commands.map((c: { id: string }) => c.id);
    assert.deepEqual(
      again,
      first.slice(2).map((c: { id: string }) => c.id),
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
      const last = (await poll(t, gatewayA(), '?after=0&limit=1000')).body.commands.at(-1)?.sequence ?? 0;
      const waiting = pollApp.inject({
        method: 'GET',
        url: `/gateway/v1/commands?after=${last}&wait=30`,
        headers: bearer(gatewayA()),
      });
      await waitFor(async () => signals.waiting === 1);
      await pms(t, site.account.token, facilityA()).unit('CROSS');
      const r = (await waiting).json();
      assert.equal(r.commands.length, 1);
      assert.equal(r.commands[0].payload.unit.unitNumber, 'CROSS');
    } finally {
      await second?.close();
    }
  });

  it('shutdown answers waiting polls at once with {"commands": []}', async () => {
    const other = await startTestApp();
    const acc = await provisionAccount(other);
    const gw = await gatewayToken(other, acc.facilities[0]!.id);
    const waiting = other.app.inject({
      method: 'GET',
      url: '/gateway/v1/commands?after=0&wait=30',
      headers: bearer(gw.token),
    });
    const { signals } = other.services.commands;
    await waitFor(async () => signals.waiting === 1);
    const closing = other.close();
    const first = await Promise.race([waiting.then(() => 'poll answered'), closing.then(() => 'closed')]);
    assert.equal(first, 'poll answered', 'the poll ends when shutdown begins, not when its wait ends');
    const r = await waiting;
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { commands: [] });
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
