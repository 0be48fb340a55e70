// The hosted controllers' harness: the test app, listening on loopback, with the controllers' room built
// on it as the composition root builds it (its claim job worked by a job queue of its own, its runner
// pointed at the app's address), and sandboxes made as part A makes them: an account with an owner and a
// last use, facilities, each with its hosted controller.
import type { EntityId } from '../../../src/ids.ts';
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { JobQueue } from '../../../src/jobs/queue.ts';
import {
  createSandboxControllers,
  type RunnerSettings,
  type SandboxControllers,
} from '../../../src/sandbox/controllers/index.ts';
import { createTenancy } from '../../../src/tenancy/index.ts';
import { type TestApp, type TestAppOptions, startTestApp } from '../../helpers/harness.ts';
import { type ProvisionedAccount, provisionAccount } from '../../helpers/tenants.ts';

/** Short leases and quick reads, so that a test sees in seconds what the service does in its own time. */
export const TEST_RUNNER: Partial<RunnerSettings> = { leaseMs: 3000, controlsEveryMs: 200, tickMs: 100, drainMs: 1000 };

export type Hosted = Awaited<ReturnType<typeof hostControllers>>;

export interface ControllerApp {
  t: TestApp;
  url: string;
  controllers: SandboxControllers;
  queue: JobQueue;
  close(): Promise<void>;
}

/**
 * Part A's columns (migration 0017: accounts.sandbox_of, accounts.last_used_at), for as long as this branch
 * runs without it; once 0017 is applied they exist and this does nothing.
 */
export async function ensureSandboxColumns(t: TestApp): Promise<void> {
  await sql`alter table accounts add column if not exists sandbox_of bigint references accounts (id) on delete cascade,
                                 add column if not exists last_used_at timestamptz`.execute(t.services.database.db);
}

/**
 * The room on an app, which it makes listen on loopback — or, given `url`, another room on an app that
 * listens already (a second runner in the same process).
 */
export async function hostControllers(t: TestApp, settings: Partial<RunnerSettings> = TEST_RUNNER, listening?: string) {
  let url = listening;
  if (!url) {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }
  const { services } = t;
  const queue = new JobQueue(services.database.pool, services.logger, { supervise: true });
  const controllers = createSandboxControllers({
    database: services.database,
    clock: services.clock,
    logger: services.logger,
    jobs: queue,
    sealer: services.accessControl.vault.sealerFor('sandbox controller secret'),
    tenancyIn: createTenancy,
    runner: settings,
  });
  await queue.start(controllers.jobs);
  controllers.runner.start(url);
  return { url, controllers, queue };
}

export async function startControllerApp(
  options: TestAppOptions = {},
  settings: Partial<RunnerSettings> = TEST_RUNNER,
): Promise<ControllerApp> {
  const t = await startTestApp({ ...options, env: { RATE_LIMIT_PER_MINUTE: '100000', ...options.env } });
  await ensureSandboxColumns(t);
  const hosted = await hostControllers(t, settings);
  return {
    t,
    ...hosted,
    async close() {
      await hosted.controllers.close();
      await hosted.queue.stop();
      // The controllers' connections to the app (undici keeps some open, a few never used): the server
      // (src/server.ts) ends those at its close; this app is closed here, so here too.
      const closing = t.app.close();
      t.app.server.closeAllConnections();
      await closing;
      await t.close();
    },
  };
}

export interface Sandbox extends ProvisionedAccount {
  ownerId: EntityId;
}

/**
 * A sandbox account (an owner, a last use: now by the service's clock unless said), its facilities each with
 * a hosted controller.
 */
export async function makeSandbox(
  h: Pick<ControllerApp, 't' | 'controllers'>,
  facilities = 1,
  lastUsedAt = new Date(h.t.services.clock.now()),
): Promise<Sandbox> {
  const { t } = h;
  const owner = await t.services.tenancy.createAccount({ name: 'Integrator Co' });
  const account = await provisionAccount(t, { facilities, name: 'Sandbox' });
  const db = t.services.database.db;
  await sql`update accounts set sandbox_of = ${owner.id}::int8, last_used_at = ${lastUsedAt}
             where id = ${account.accountId}::int8`.execute(db);
  for (const facility of account.facilities)
    await db.transaction().execute((trx) => h.controllers.add(trx, facility.id));
  return { ...account, ownerId: owner.id };
}

/** The sandbox's last use, as part A's guard records it. */
export async function setLastUse(t: TestApp, accountId: EntityId, at: Date): Promise<void> {
  await sql`update accounts set last_used_at = ${at} where id = ${accountId}::int8`.execute(t.services.database.db);
}

/**
 * A facility's initial state written in bulk, without a command (as part A seeds a sandbox's facility):
 * `units` units, the first `visitors` of them Rented with a tenant holding a gate code, sealed and digested
 * like every code.
 */
export async function seedFacility(t: TestApp, facilityId: EntityId, units: number, visitors: number) {
  const db = t.services.database.db;
  const vault = t.services.accessControl.vault;
  const numbers = Array.from({ length: units }, (_, i) => `S-${String(i + 1).padStart(5, '0')}`);
  const unitRows = await sql<{ id: EntityId }>`
    insert into units (facility_id, unit_number, status)
    select ${facilityId}::int8, n.unit_number, case when n.ord <= ${visitors}::int then 'Rented' else 'Vacant' end
      from unnest(${numbers}::text[]) with ordinality as n(unit_number, ord)
     order by n.ord
    returning id`.execute(db);
  const unitIds = unitRows.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  const drawn = await sql<{ id: string }>`
    select nextval(pg_get_serial_sequence('visitors', 'id')) as id from generate_series(1, ${visitors}::int)`.execute(
    db,
  );
  const ids = drawn.rows.map((r) => Number(r.id));
  const codes = new Set<string>();
  while (codes.size < visitors) codes.add(String(randomInt(1_000_000, 9_999_999)));
  const list = [...codes];
  await sql`
    insert into visitors (id, facility_id, unit_id, first_name, last_name, is_tenant, time_group_id, access_profile_id,
                          access_code_digest, access_code_sealed)
    select v.id, ${facilityId}::int8, v.unit_id, 'Seeded', 'Tenant', true,
           (select id from time_groups where facility_id = ${facilityId}::int8 and is_default),
           (select id from access_profiles where facility_id = ${facilityId}::int8 and is_default),
           v.digest, v.sealed
      from unnest(${ids}::int8[], ${unitIds.slice(0, visitors)}::int8[], ${list.map((c) => vault.digest(facilityId, c))}::bytea[],
                  ${list.map((c, i) => vault.seal(ids[i]!, c))}::bytea[]) as v(id, unit_id, digest, sealed)`.execute(
    db,
  );
}
