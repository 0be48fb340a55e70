// The leases of hosted controllers: two runners — two instances of the service on one PostgreSQL database
// (on the embedded database, which one process holds, two runners in one process) — never run the same
// controller at once; when one stops, the other takes its controllers over within a lease; a lease held
// by an instance that died is taken once it runs out, and not before.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../../src/app.ts';
import type { EntityId } from '../../../src/ids.ts';
import { CLAIM_CONTROLLERS_JOB } from '../../../src/sandbox/controllers/index.ts';
import { claimControllers, releaseLeases } from '../../../src/sandbox/controllers/repository.ts';
import { activeSince } from '../../../src/sandbox/controllers/rules.ts';
import { createLogger } from '../../../src/logger.ts';
import { startServices } from '../../../src/services.ts';
import { LogCapture, onPostgres, type TestApp } from '../../helpers/harness.ts';
import { until } from '../../helpers/until.ts';
import {
  type ControllerApp,
  type Hosted,
  hostControllers,
  makeSandbox,
  setLastUse,
  startControllerApp,
  TEST_RUNNER,
} from './harness.ts';

const LEASE_MS = TEST_RUNNER.leaseMs!;
let h: ControllerApp;
let second: TestApp | null = null;
let b: Hosted;

/** Another instance of the service on the same database (its own pool, job queue, HTTP listener). */
async function anotherInstance(t: TestApp): Promise<TestApp> {
  const logs = new LogCapture();
  const services = await startServices(t.config, createLogger(t.config, logs), {
    role: 'owner',
    command: 'test',
    runJobs: false,
  });
  const app = await buildApp(services);
  await app.ready();
  return {
    app,
    services,
    config: t.config,
    logs,
    async close() {
      await app.close();
      await services.close();
    },
  };
}

before(async () => {
  h = await startControllerApp({}, { ...TEST_RUNNER, claimLimit: 2 });
  if (onPostgres) {
    second = await anotherInstance(h.t);
    b = await hostControllers(second, { ...TEST_RUNNER, claimLimit: 2 });
  } else {
    b = await hostControllers(h.t, { ...TEST_RUNNER, claimLimit: 2 }, h.url);
  }
});
after(async () => {
  await b?.controllers.close();
  await b?.queue.stop();
  if (second) {
    const closing = second.app.close();
    second.app.server.closeAllConnections();
    await closing;
    await second.close();
  }
  await h?.close();
});

const db = () => h.t.services.database.db;
const leases = async (ids: EntityId[]) =>
  new Map(
    (
      await sql<{ facility_id: EntityId; leased_by: string | null }>`
        select facility_id, leased_by from sandbox_controllers where facility_id = any(${ids}::int8[])`.execute(db())
    ).rows.map((r) => [r.facility_id, r.leased_by]),
  );

it('two runners claiming at once never run the same controller; one stopped, the other takes its controllers within a lease', async () => {
  // Made idle (their creation's claim takes none), then used: the two runners' claims meet.
  const long = new Date(h.t.services.clock.now() - 2 * 3_600_000);
  const sandbox = await makeSandbox(h, 3, long);
  const other = await makeSandbox(h, 2, long);
  const ids = [...sandbox.facilities, ...other.facilities].map((f) => f.id);
  for (const s of [sandbox, other]) await setLastUse(h.t, s.accountId, new Date(h.t.services.clock.now()));
  const a = h.controllers.runner;
  // Both at once, twice each: each claim takes rows the other is not taking (skip locked).
  await Promise.all([a.claim(), b.controllers.runner.claim(), a.claim(), b.controllers.runner.claim()]);
  await until(() => a.facilities.length + b.controllers.runner.facilities.length === ids.length, 10_000);
  const checkDisjoint = async () => {
    const onA = new Set(a.facilities);
    const onB = new Set(b.controllers.runner.facilities);
    assert.deepEqual(
      [...onA].filter((id) => onB.has(id)),
      [],
      'run by both',
    );
    const rows = await leases(ids);
    for (const id of onA) assert.equal(rows.get(id), a.instance);
    for (const id of onB) assert.equal(rows.get(id), b.controllers.runner.instance);
  };
  await checkDisjoint();
  assert.ok(b.controllers.runner.facilities.length > 0 && a.facilities.length > 0, 'both run some');
  // Over a few renewals (a third of a lease each) and the claim job's runs, still none run twice.
  for (let i = 0; i < 10; i++) {
    await h.queue.send(CLAIM_CONTROLLERS_JOB, {});
    await new Promise((resolve) => setTimeout(resolve, 400));
    await checkDisjoint();
  }
  const moved = b.controllers.runner.facilities;
  const stoppedAt = Date.now();
  await b.controllers.close();
  await until(() => moved.every((id) => a.controller(id)?.isOnline), LEASE_MS * 2);
  const tookMs = Date.now() - stoppedAt;
  assert.ok(tookMs < LEASE_MS, `taken over after ${tookMs} ms (lease ${LEASE_MS} ms)`);
  const rows = await leases(ids);
  for (const id of ids) assert.equal(rows.get(id), a.instance);
});

it('a lease held by an instance that died is taken once it runs out, not before', async () => {
  const sandbox = await makeSandbox(h);
  const facilityId = sandbox.facilities[0]!.id;
  // An instance claimed it and died (it never renews, never releases).
  const lease = await sql<{ until: Date }>`
    update sandbox_controllers set leased_by = 'dead-instance', lease_until = now() + interval '2 seconds'
     where facility_id = ${facilityId}::int8 returning lease_until as until`.execute(db());
  const runsOut = lease.rows[0]!.until.getTime();
  await h.controllers.runner.claim();
  assert.equal(h.controllers.runner.controller(facilityId), undefined, 'not taken while its lease holds');
  await until(
    async () => {
      await h.controllers.runner.claim();
      return h.controllers.runner.controller(facilityId)?.isOnline;
    },
    10_000,
    200,
  );
  assert.ok(Date.now() >= runsOut - 50, 'taken after the lease ran out');
  assert.equal((await leases([facilityId])).get(facilityId), h.controllers.runner.instance);
});

it('claims at the same moment take disjoint controllers (for update skip locked), however many ask', async () => {
  const long = new Date(h.t.services.clock.now() - 2 * 3_600_000);
  const sandboxes = [await makeSandbox(h, 3, long), await makeSandbox(h, 3, long)];
  const ids = sandboxes.flatMap((s) => s.facilities.map((f) => f.id));
  for (const s of sandboxes) await setLastUse(h.t, s.accountId, new Date(h.t.services.clock.now()));
  const probes = Array.from({ length: 8 }, (_, i) => `probe-${i}`);
  const since = activeSince(h.t.services.clock.now());
  // Each asks for all of them at once, on a connection of its own (PostgreSQL: the pool's; embedded: one at a time).
  const claimed = await Promise.all(probes.map((probe) => claimControllers(db(), probe, 100, since, 60_000)));
  const mine = claimed.map((rows) => rows.map((r) => r.facility_id).filter((id) => ids.includes(id)));
  const all = mine.flat();
  assert.equal(new Set(all).size, all.length, `a controller claimed twice: ${JSON.stringify(mine)}`);
  const rows = await leases(ids);
  mine.forEach((claimedIds, i) => {
    for (const id of claimedIds) assert.equal(rows.get(id), probes[i]);
  });
  for (const probe of probes) await releaseLeases(db(), probe);
});
