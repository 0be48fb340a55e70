// Sandbox controllers (issue 30, part B): each sandbox facility's gateway controller, simulated inside the
// service by the simulator's SimulatedFacility, run by the instance that holds its lease, against that
// instance's own listening address, with a gateway credential of its own. Built once by the composition
// root; the sandbox face's door (src/sandbox/index.ts) shows it to the rest.
//
// The room: controls.ts (the integrator's controls, and the controller's making), runner.ts (the
// controllers this instance runs: claims, controls, leases), hosted.ts (one controller: the simulated site
// and what the controls do to it), rules.ts (pure), repository.ts (the SQL), jobs.ts (the claim), tables.ts.
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import type { Db } from '../../db/tables.ts';
import { type JobQueue, sqlRunner } from '../../jobs/queue.ts';
import type { Logger } from '../../logger.ts';
import type { Sealer } from '../../sealed.ts';
import type { Tenancy } from '../../tenancy/index.ts';
import {
  addController,
  type ControlParts,
  describeController,
  driftNow,
  failNextCommands,
  reportEvent,
  setActivity,
  setControllerOnline,
  setDeviceOnline,
} from './controls.ts';
import { CLAIM_CONTROLLERS_JOB, controllerJobs } from './jobs.ts';
import * as repository from './repository.ts';
import { ownAddress } from './rules.ts';
import { ControllerRunner, type RunnerSettings } from './runner.ts';

export interface SandboxControllerDeps {
  database: Pick<Database, 'db'>;
  clock: Clock;
  logger: Logger;
  jobs: Pick<JobQueue, 'send'>;
  /** Seals each hosted controller's secret (access control's vault: `sealerFor('sandbox controller secret')`). */
  sealer: Sealer;
  /** Tenancy bound to a transaction (createTenancy): a controller's credential commits with its row. */
  tenancyIn: (trx: Db) => Pick<Tenancy, 'createGatewayCredential'>;
  /** The runner's timings (tests shorten the lease); the defaults are the service's. */
  runner?: Partial<RunnerSettings>;
}

export function createSandboxControllers({
  database,
  clock,
  logger,
  jobs,
  sealer,
  tenancyIn,
  runner: settings,
}: SandboxControllerDeps) {
  const parts: ControlParts = {
    db: database.db,
    clock,
    sealer,
    tenancyIn,
    sendClaim: async (trx) => {
      await jobs.send(CLAIM_CONTROLLERS_JOB, {}, {}, sqlRunner(trx));
    },
  };
  const runner = new ControllerRunner(
    {
      db: database.db,
      clock,
      logger,
      sealer,
      wakeClaims: async () => {
        await jobs.send(CLAIM_CONTROLLERS_JOB, {});
      },
    },
    settings,
  );
  const withParts =
    <A extends unknown[], R>(operation: (parts: ControlParts, ...args: A) => R) =>
    (...args: A): R =>
      operation(parts, ...args);
  return {
    /** Makes a sandbox facility's hosted controller, in the sandbox's creation (its transaction). */
    add: withParts(addController),
    describe: withParts(describeController),
    reportEvent: withParts(reportEvent),
    setControllerOnline: withParts(setControllerOnline),
    setDeviceOnline: withParts(setDeviceOnline),
    driftNow: withParts(driftNow),
    failNextCommands: withParts(failNextCommands),
    setActivity: withParts(setActivity),
    /** Whether a gateway credential (its id) is a hosted controller's: its tokens are no use of the sandbox. */
    isHostedCredential: (credentialId: string) => repository.isHostedCredential(database.db, credentialId),
    /** Asks for a claim soon (a sandbox used again after idling: its controllers resume within seconds). */
    resumeSoon: async () => {
      await jobs.send(CLAIM_CONTROLLERS_JOB, {}, { singletonKey: 'resume', singletonSeconds: 2 });
    },
    /** This instance's controllers (what runs here, for a look). */
    runner,
    /** The instance listens (HOST, and the port it got): its controllers reach it there, from now on. */
    listening: (host: string, port: number) => runner.start(ownAddress(host, port)),
    jobs: controllerJobs(() => runner.claim()),
    /** Stops this instance's controllers and releases their leases, once (the drain, then the close). */
    close: () => runner.stop(),
  };
}
export type SandboxControllers = ReturnType<typeof createSandboxControllers>;
export type { ActionAccepted, ControllerView } from './controls.ts';
export { ownAddress } from './rules.ts';
export type { RunnerSettings } from './runner.ts';
export { CLAIM_CONTROLLERS_JOB } from './jobs.ts';
export type { SandboxControllerTables } from './tables.ts';
