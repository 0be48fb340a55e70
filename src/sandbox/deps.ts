// What the sandbox face's operations work with: the first argument of each, bound by createSandboxes (index.ts).
import type { AccessControl } from '../access-control/index.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import type { Tenancy } from '../tenancy/index.ts';

export interface SandboxParts {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Tenancy's operations inside a sandbox's creation (its transaction): the account key, facilities, controllers. */
  tenancyIn: (trx: Db) => Pick<Tenancy, 'createAccountKey' | 'createFacility' | 'createGatewayCredential'>;
  /** Access control's bulk seeding of a new facility, in the creation's transaction. */
  seedInitialState: AccessControl['seedInitialState'];
  /** Asks for the controllers' claim at once (a sandbox used again after idling: they resume within seconds). */
  resumeControllers: () => Promise<void>;
  /** Makes a seeded facility's hosted controller (part B, src/sandbox/controllers/), in the creation's transaction. */
  addController: (trx: Db, facilityId: EntityId) => Promise<void>;
  /** The last use recorded of each sandbox (epoch ms), so that a token a minute writes once. */
  lastUses: Map<EntityId, number>;
}
