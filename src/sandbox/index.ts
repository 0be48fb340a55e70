// The sandbox face (issue 30): an integrator's accounts of their own, owned by a production account.
// A sandbox is an `accounts` row with an owner (`sandbox_of`), so every isolation rule — keyed by
// account — holds for it by construction; its credentials carry their own prefixes and its tokens a
// `sandbox` claim (tenancy and auth mark them). Built once by the composition root, handed tenancy's
// operations (bound to the creation's transaction) and access control's bulk seeding.
// The rest of the face: sandboxes.ts (the operations), rules.ts (pure: limit, sizes, expiry), the SQL
// in repository.ts, its job in jobs.ts, routes/ (the account's /sandboxes and the operator's).
import type { AccessControl } from '../access-control/index.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { Tenancy } from '../tenancy/index.ts';
import type { Db } from '../db/tables.ts';
import type { SandboxParts } from './deps.ts';
import type { SandboxControllers } from './controllers/index.ts';
import { sandboxJobs } from './jobs.ts';
import {
  createSandbox,
  deleteExpiredSandboxes,
  deleteSandbox,
  getSandbox,
  listSandboxes,
  recordSandboxUse,
} from './sandboxes.ts';

export interface SandboxDeps {
  database: Pick<Database, 'db'>;
  clock: Clock;
  logger: Logger;
  /** Tenancy bound to a transaction (createTenancy): a sandbox's key, facilities and controllers commit with it. */
  tenancyIn: (trx: Db) => Pick<Tenancy, 'createAccountKey' | 'createFacility' | 'createGatewayCredential'>;
  accessControl: Pick<AccessControl, 'seedInitialState'>;
  /** Part B: each seeded facility's hosted controller, made in the creation's transaction. */
  controllers: Pick<SandboxControllers, 'add' | 'resumeSoon'>;
}

/** The face: its operations bound to its parts, and its job. */
export function createSandboxes({ database, clock, logger, tenancyIn, accessControl, controllers }: SandboxDeps) {
  const parts: SandboxParts = {
    db: database.db,
    clock,
    logger,
    tenancyIn,
    seedInitialState: accessControl.seedInitialState,
    addController: controllers.add,
    resumeControllers: controllers.resumeSoon,
    lastUses: new Map(),
  };
  const withParts =
    <A extends unknown[], R>(operation: (parts: SandboxParts, ...args: A) => R) =>
    (...args: A): R =>
      operation(parts, ...args);
  return {
    create: withParts(createSandbox),
    list: withParts(listSandboxes),
    get: withParts(getSandbox),
    delete: withParts(deleteSandbox),
    deleteExpired: withParts(deleteExpiredSandboxes),
    /** A sandbox was used: a token issued to its credential, a request with its key's token (at most a write a minute). */
    recordUse: withParts(recordSandboxUse),
    jobs: sandboxJobs(parts),
  };
}
export type Sandboxes = ReturnType<typeof createSandboxes>;
export { ownerOf } from './sandboxes.ts';
export type { CreatedSandbox, CreateSandboxInput, SandboxView } from './sandboxes.ts';
export { DELETE_EXPIRED_SANDBOXES_JOB } from './jobs.ts';
export { FACILITY_SIZES, FACILITY_SIZE_NAMES, SANDBOX_KEEP_DAYS, SANDBOX_LIMIT } from './rules.ts';
export {
  CLAIM_CONTROLLERS_JOB,
  createSandboxControllers,
  ownAddress,
  type SandboxControllers,
} from './controllers/index.ts';
