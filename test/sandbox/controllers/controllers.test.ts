// Sandbox facilities' hosted controllers (issue 30 part B), on the real app listening on loopback: the claim
// job starts a sandbox's controller, which applies and acknowledges the PMS's commands and brings a seeded
// facility in sync through its digest; every control works (an event reported, the controller offline and
// back, a device offline, the next commands failed, a drift made and healed); an idle sandbox's controller
// stops; every bad input is named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { EntityId } from '../../../src/ids.ts';
import { CLAIM_CONTROLLERS_JOB } from '../../../src/sandbox/controllers/index.ts';
import { ok, typedClient } from '../../helpers/client.ts';
import { provisionAccount } from '../../helpers/tenants.ts';
import { until } from '../../helpers/until.ts';
import {
  type ControllerApp,
  makeSandbox,
  type Sandbox,
  seedFacility,
  setLastUse,
  startControllerApp,
} from './harness.ts';

let h: ControllerApp;
/** Each request a controller made: its facility (from its token), the route, when. */
const gatewayCalls: { facilityId: number; url: string; at: number }[] = [];

before(async () => {
  h = await startControllerApp({
    extend(app) {
      app.addHook('onRequest', async (request) => {
        if (!request.url.startsWith('/gateway/v1/')) return;
        const token = request.headers.authorization?.split(' ')[1]?.split('.')[1];
        if (!token) return;
        const claims = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { facility_id?: number };
        if (claims.facility_id) gatewayCalls.push({ facilityId: claims.facility_id, url: request.url, at: Date.now() });
      });
    },
  });
});
after(() => h?.close());

const pms = (sandbox: Sandbox) => typedClient(h.t, sandbox.token);
const path = (facilityId: EntityId) => ({ params: { path: { facilityId } } });

async function commandsOf(sandbox: Sandbox, facilityId: EntityId) {
  return ok(
    pms(sandbox).GET('/facilities/{facilityId}/commands', {
      params: { path: { facilityId }, query: { after: 0, limit: 1000 } },
    }),
  );
}

async function eventsOf(sandbox: Sandbox, facilityId: EntityId, eventType: number) {
  const page = await ok(
    pms(sandbox).GET('/gatewayevents/facilities/{facilityId}', {
      params: { path: { facilityId }, query: { eventTypes: [String(eventType)], pageSize: 1000 } },
    }),
  );
  return page.items;
}

async function driftsOf(sandbox: Sandbox, facilityId: EntityId) {
  return ok(
    pms(sandbox).GET('/facilities/{facilityId}/drift', { params: { path: { facilityId }, query: { limit: 100 } } }),
  );
}

/** A unit and a tenant with a gate code, through the PMS's API (each writes a command). */
async function addTenant(sandbox: Sandbox, facilityId: EntityId, n: number) {
  const unit = await ok(
    pms(sandbox).POST('/facilities/{facilityId}/units', { ...path(facilityId), body: { unitNumber: `T-${n}` } }),
    201,
  );
  return ok(
    pms(sandbox).POST('/facilities/{facilityId}/visitors', {
      ...path(facilityId),
      body: {
        unitId: unit.id,
        accessCode: String(5_100_000 + n),
        firstName: 'Pat',
        lastName: `Tenant ${n}`,
        isTenant: true,
      },
    }),
    201,
  );
}

const running = (facilityId: EntityId) => h.controllers.runner.controller(facilityId);

describe('a sandbox facility’s hosted controller', () => {
  let sandbox: Sandbox;
  let facilityId: EntityId;

  before(async () => {
    sandbox = await makeSandbox(h);
    facilityId = sandbox.facilities[0]!.id;
  });

  it('is started by the claim job, with a credential of its own whose secret is sealed', async () => {
    // makeSandbox's transaction sent a claim; the job (one more, to be sure) starts it.
    await h.queue.send(CLAIM_CONTROLLERS_JOB, {});
    await until(() => running(facilityId)?.isOnline, 15_000);
    const row = await sql<{ client_id: string; sealed_secret: Buffer; leased_by: string }>`
      select client_id, sealed_secret, leased_by from sandbox_controllers where facility_id = ${facilityId}::int8`.execute(
      h.t.services.database.db,
    );
    assert.equal(row.rows[0]!.leased_by, h.controllers.runner.instance);
    assert.match(row.rows[0]!.client_id, /^[a-z]+_/);
    const view = await h.controllers.describe(facilityId);
    assert.deepEqual(view, {
      facilityId,
      online: true,
      activityPerHour: 30,
      offlineDevices: [],
      running: true,
      pendingActions: 0,
    });
    // Its first calls: a token, then its poll and its digest.
    await until(() => gatewayCalls.some((c) => c.facilityId === facilityId && c.url.startsWith('/gateway/v1/digest')));
  });

  it('applies a visitor the PMS created, and the command is acknowledged', async () => {
    const visitor = await addTenant(sandbox, facilityId, 1);
    const acknowledged = await until(async () => {
      const commands = await commandsOf(sandbox, facilityId);
      const mine = commands.filter((c) => c.type === 'visitor.upsert');
      return mine.length > 0 && mine.every((c) => c.status === 'acknowledged') ? mine : null;
    }, 15_000);
    assert.equal(acknowledged.length, 1);
    assert.equal((acknowledged[0]!.payload as { visitor: { id: number } }).visitor.id, visitor.visitor.id);
  });

  it('reports an event of any type with its optional fields, within about a second', async () => {
    const accepted = await h.controllers.reportEvent(facilityId, {
      eventType: 10,
      deviceId: 'door-7',
      deviceName: 'Back Door',
      details: 'Door forced open (triggered)',
      data: { active: true, zone: 'B' },
    });
    assert.ok(accepted.eventId);
    const started = Date.now();
    const [event] = await until(async () => {
      const events = await eventsOf(sandbox, facilityId, 10);
      return events.length > 0 ? events : null;
    }, 10_000);
    assert.ok(Date.now() - started < 5000, `reported after ${Date.now() - started} ms`);
    assert.equal(event!.deviceId, 'door-7');
    assert.equal(event!.deviceName, 'Back Door');
    assert.equal(event!.details, 'Door forced open (triggered)');
  });

  it('fails the next 2 commands when told (acknowledged as failed, with a reason), and applies the third', async () => {
    await h.controllers.failNextCommands(facilityId, { count: 2 });
    await until(async () => (await h.controllers.describe(facilityId)).pendingActions === 0);
    const before = (await commandsOf(sandbox, facilityId)).length;
    for (const n of [2, 3, 4]) await addTenant(sandbox, facilityId, n);
    // Two commands per tenant: the unit's (unit.upsert), the visitor's (visitor.upsert).
    const settled = await until(async () => {
      // The PMS's six; the drift face's corrections may follow them (see below).
      const commands = (await commandsOf(sandbox, facilityId)).slice(before, before + 6);
      return commands.length === 6 && commands.every((c) => c.status === 'acknowledged' || c.status === 'failed')
        ? commands
        : null;
    }, 15_000);
    const statuses = settled.map((c) => c.status);
    assert.deepEqual(statuses, ['failed', 'failed', 'acknowledged', 'acknowledged', 'acknowledged', 'acknowledged']);
    // What it failed to apply it lacks: its next digest finds it, and the drift face heals it.
    const drifts = await until(async () => {
      const all = await driftsOf(sandbox, facilityId);
      return all.length > 0 && all.every((d) => d.status === 'healed') ? all : null;
    }, 20_000);
    assert.ok(
      drifts[0]!.items.some((i) => i.kind === 'unit' && i.change === 'missing'),
      JSON.stringify(drifts[0]),
    );
  });

  it('makes a drift when told: found at its digest, and healed', async () => {
    const before = (await driftsOf(sandbox, facilityId)).length;
    await h.controllers.driftNow(facilityId, { loseVisitors: 1, alterUnits: 1, addVisitors: 0 });
    const drifts = await until(async () => {
      const all = await driftsOf(sandbox, facilityId);
      return all.length > before && all[0]!.healedAt !== null ? all : null;
    }, 20_000);
    const drift = drifts[0]!;
    const changes = drift.items.map((i) => `${i.kind} ${i.change}`).sort();
    assert.deepEqual(changes, ['unit altered', 'visitor missing'], JSON.stringify(drift));
    assert.equal(drift.corrections, 2);
    // The local change at the controller was reported too (event 28: a unit altered there).
    assert.ok((await eventsOf(sandbox, facilityId, 28)).length >= 1);
  });

  it('takes a device offline (event 11 stored, held offline at the site) and brings it back (event 12)', async () => {
    await h.controllers.setDeviceOnline(facilityId, false, { deviceId: 'kp-gate' });
    const [offline] = await until(async () => {
      const events = await eventsOf(sandbox, facilityId, 11);
      return events.length > 0 ? events : null;
    }, 10_000);
    assert.equal(offline!.deviceId, 'kp-gate');
    assert.deepEqual((await h.controllers.describe(facilityId)).offlineDevices, ['kp-gate']);
    const status = await ok(pms(sandbox).GET('/facilities/{facilityId}/status', path(facilityId)));
    assert.ok(status.devices.offline >= 1, JSON.stringify(status));
    await h.controllers.setDeviceOnline(facilityId, true, { deviceId: 'kp-gate' });
    await until(async () => (await eventsOf(sandbox, facilityId, 12)).some((e) => e.deviceId === 'kp-gate'), 10_000);
    assert.deepEqual((await h.controllers.describe(facilityId)).offlineDevices, []);
  });

  it('goes offline (no poll, batch or digest; last heard stays) and back online (heard again); events asked meanwhile are held', async () => {
    await h.controllers.setControllerOnline(facilityId, false);
    await until(() => !running(facilityId)?.isOnline);
    const heard = async () =>
      (
        await sql<{ polled: Date | null; received: Date | null }>`
          select last_polled_at as polled, last_event_received_at as received from facility_states
           where facility_id = ${facilityId}::int8`.execute(h.t.services.database.db)
      ).rows[0]!;
    const wentOffline = Date.now();
    const before = await heard();
    const held = await h.controllers.reportEvent(facilityId, { eventType: 1, details: 'said while offline' });
    // A poll mark is written at most every 30 s: longer than that, and nothing moved.
    await new Promise((resolve) => setTimeout(resolve, 31_000));
    assert.deepEqual(
      gatewayCalls.filter((c) => c.facilityId === facilityId && c.at > wentOffline + 500),
      [],
      'no call while offline',
    );
    assert.deepEqual(await heard(), before, 'last heard did not move');
    assert.equal((await h.controllers.describe(facilityId)).pendingActions, 1, 'the event is held');
    assert.equal((await eventsOf(sandbox, facilityId, 1)).length, 0);

    await h.controllers.setControllerOnline(facilityId, true);
    await until(async () => {
      const now = await heard();
      return now.polled !== null && (before.polled === null || now.polled > before.polled);
    }, 10_000);
    const [said] = await until(async () => {
      const events = await eventsOf(sandbox, facilityId, 1);
      return events.length > 0 ? events : null;
    }, 10_000);
    // Reported as having happened when it was asked for, not when it was sent.
    assert.ok(Math.abs(Date.parse(said!.occurredAt) - Date.parse(held.requestedAt)) < 1000, JSON.stringify(said));
  });
});

describe('a seeded facility', () => {
  /** Seeded while its sandbox is idle (no controller yet), then used: its controller starts empty. */
  async function seededSandbox(units: number, visitors: number) {
    const sandbox = await makeSandbox(h, 1, new Date(h.t.services.clock.now() - 2 * 3_600_000));
    const facilityId = sandbox.facilities[0]!.id;
    await seedFacility(h.t, facilityId, units, visitors);
    await setLastUse(h.t, sandbox.accountId, new Date(h.t.services.clock.now()));
    await h.queue.send(CLAIM_CONTROLLERS_JOB, {});
    return { sandbox, facilityId };
  }

  /** Settled: the drift its empty start opened is healed, and every corrective command is acknowledged. */
  async function settles(sandbox: Sandbox, facilityId: EntityId) {
    const drifts = await until(async () => {
      const all = await driftsOf(sandbox, facilityId);
      const status = await ok(pms(sandbox).GET('/facilities/{facilityId}/status', path(facilityId)));
      // The acknowledgements may follow the digest that healed the drift by a batch or two.
      return all.length > 0 && all.every((d) => d.healedAt !== null) && status.commands.pending === 0 ? all : null;
    }, 60_000);
    assert.equal(drifts.length, 1, JSON.stringify(drifts));
    return { drift: drifts[0]!, commands: await commandsOf(sandbox, facilityId) };
  }

  it('its empty controller is brought in sync by its digest, item by item (200 units, 150 visitors)', async () => {
    const { sandbox, facilityId } = await seededSandbox(200, 150);
    const { drift, commands } = await settles(sandbox, facilityId);
    // Each item missing at the controller, corrected by a command of its own (at most 256 of a kind).
    assert.equal(drift.items.length, 350);
    assert.equal(drift.corrections, 350);
    assert.ok(commands.every((c) => c.status === 'acknowledged'));
  });

  it('the 5,000-unit size (3,000 visitors) is brought in sync by one refresh of each kind', async (t) => {
    const started = Date.now();
    const { sandbox, facilityId } = await seededSandbox(5000, 3000);
    const { drift, commands } = await settles(sandbox, facilityId);
    t.diagnostic(`5,000 units and 3,000 visitors in sync ${Date.now() - started} ms after the claim`);
    assert.equal(drift.corrections, 2);
    assert.deepEqual(commands.map((c) => [c.type, c.status]).sort(), [
      ['units.refresh', 'acknowledged'],
      ['visitors.refresh', 'acknowledged'],
    ]);
  });
});

describe('idle', () => {
  it('a sandbox last used 61 minutes ago has no running controller; used again, it resumes', async () => {
    const sandbox = await makeSandbox(h);
    const facilityId = sandbox.facilities[0]!.id;
    await h.queue.send(CLAIM_CONTROLLERS_JOB, {});
    await until(() => running(facilityId)?.isOnline, 15_000);
    await setLastUse(h.t, sandbox.accountId, new Date(h.t.services.clock.now() - 61 * 60_000));
    // Its next renewal (a third of a lease) stops it and releases its lease; no claim takes it.
    await until(() => !running(facilityId), 10_000);
    await h.queue.send(CLAIM_CONTROLLERS_JOB, {});
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(running(facilityId), undefined);
    const view = await h.controllers.describe(facilityId);
    assert.equal(view.running, false);

    await setLastUse(h.t, sandbox.accountId, new Date(h.t.services.clock.now()));
    await h.controllers.resumeSoon();
    await until(() => running(facilityId)?.isOnline, 15_000);
  });
});

describe('bad input', () => {
  let facilityId: EntityId;
  before(async () => {
    facilityId = (await makeSandbox(h)).facilities[0]!.id;
  });

  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => assert.fail('it was accepted'),
      (e: { status: number; code: string; errors: { path: string; message: string }[] }) => e,
    );
    return { status: error.status, code: error.code, paths: error.errors.map((e) => e.path) };
  };

  it('an event: an unknown type names eventType; every bad field is named', async () => {
    assert.deepEqual(await refusal(h.controllers.reportEvent(facilityId, { eventType: 999 })), {
      status: 400,
      code: 'VALIDATION_FAILED',
      paths: ['eventType'],
    });
    assert.deepEqual(
      await refusal(
        h.controllers.reportEvent(facilityId, {
          eventType: '18',
          deviceId: '',
          unitId: -1,
          visitorId: 'x',
          details: 'x'.repeat(4001),
          data: [1],
          colour: 'red',
        }),
      ),
      {
        status: 400,
        code: 'VALIDATION_FAILED',
        paths: ['eventType', 'deviceId', 'unitId', 'visitorId', 'details', 'data', 'colour'],
      },
    );
  });

  it('fail next: 0 to 1000; activity: 0 to 3600; a drift: its parts 0 to 100, not all 0; a device: its id', async () => {
    for (const count of [-1, 1001, 2.5, '3', undefined])
      assert.deepEqual((await refusal(h.controllers.failNextCommands(facilityId, { count }))).paths, ['count']);
    for (const activityPerHour of [-1, 3601, null])
      assert.deepEqual((await refusal(h.controllers.setActivity(facilityId, { activityPerHour }))).paths, [
        'activityPerHour',
      ]);
    assert.deepEqual((await refusal(h.controllers.driftNow(facilityId, { loseVisitors: 101, alterUnits: -1 }))).paths, [
      'loseVisitors',
      'alterUnits',
    ]);
    assert.deepEqual(
      (await refusal(h.controllers.driftNow(facilityId, { loseVisitors: 0, alterUnits: 0, addVisitors: 0 }))).paths,
      ['loseVisitors'],
    );
    assert.deepEqual((await refusal(h.controllers.setDeviceOnline(facilityId, false, {}))).paths, ['deviceId']);
    // The edges are accepted.
    await h.controllers.failNextCommands(facilityId, { count: 1000 });
    await h.controllers.failNextCommands(facilityId, { count: 0 });
    await h.controllers.setActivity(facilityId, { activityPerHour: 0 });
    await h.controllers.setActivity(facilityId, { activityPerHour: 3600 });
  });

  it('a facility without a hosted controller (production) is not found', async () => {
    const production = (await makeProduction()).facilities[0]!.id;
    for (const call of [
      () => h.controllers.reportEvent(production, { eventType: 10 }),
      () => h.controllers.failNextCommands(production, { count: 1 }),
      () => h.controllers.driftNow(production),
      () => h.controllers.setDeviceOnline(production, false, { deviceId: 'kp-gate' }),
      () => h.controllers.setControllerOnline(production, false),
      () => h.controllers.setActivity(production, { activityPerHour: 1 }),
      () => h.controllers.describe(production),
    ])
      assert.deepEqual(await refusal(call()), { status: 404, code: 'NOT_FOUND', paths: [] });
  });
});

const makeProduction = () => provisionAccount(h.t, { name: 'Production Co' });
