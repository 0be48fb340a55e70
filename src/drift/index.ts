// The drift face (SPEC §4.1 "Drift"): built once by the composition root (src/services.ts). It
// compares a controller's digest of what it holds with what the PMS asked for, narrows a difference
// down to the items, queues exactly the commands that heal it (through the command queue's door,
// with access control's payloads), records each drift and publishes it (facility.drift).
//
//   digest   digest.ts: the two steps of a comparison (the gateway face's POST /gateway/v1/digest…)
//   records  records.ts: the PMS's read of a facility's drifts, and their retention (jobs.ts)
//   facts    facts.ts: drifts found and healed, for push
// Pure rules (the digest, the comparison, the heal) in rules.ts; the SQL in repository.ts.
import { Counter } from 'prom-client';
import type { Database } from '../db/database.ts';
import type { FactPosition } from '../db/horizon.ts';
import type { Metrics } from '../http/metrics.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { Commands } from '../commands/index.ts';
import type { ControllerCopy, DriftDeps } from './deps.ts';
import { compareDigest, compareItems } from './digest.ts';
import { type DriftFactScope, driftFactsAfter, driftFactsPast, driftFactsSince } from './facts.ts';
import { driftJobs } from './jobs.ts';
import { listDrifts, purgeHealedDrifts } from './records.ts';

export type { DigestAnswer, DigestReport, ItemsAnswer, ItemsReport } from './digest.ts';
export type { DriftFact, DriftFactScope, DriftPayload } from './facts.ts';
export type { DriftView } from './records.ts';
export type { ControllerCopy } from './deps.ts';
// The pure rules the simulated controller computes its digest with.
export {
  bucketOf,
  DIGEST_BUCKETS,
  DIGEST_INTERVAL_MINUTES,
  type Digest,
  type DriftItem,
  hashedUnits,
  hashedVisitors,
  kindDigest,
  type UnitHeld,
  type VisitorHeld,
} from './rules.ts';

export interface DriftFaceDeps {
  database: Database;
  logger: Logger;
  metrics: Metrics;
  commands: Pick<Commands, 'inChange'>;
  /** Access control's side: what the controller should hold, and the commands that put it back. */
  controllerCopy: ControllerCopy;
}

export function createDrift({ database, logger, metrics, commands, controllerCopy }: DriftFaceDeps) {
  const digests = new Counter({
    name: 'gatehouse_drift_digests_total',
    help: 'Controllers’ digests compared, by outcome (in-sync, differs).',
    labelNames: ['outcome'],
    registers: [metrics.registry],
  });
  const corrections = new Counter({
    name: 'gatehouse_drift_corrections_total',
    help: 'Corrective commands queued to heal drift.',
    registers: [metrics.registry],
  });
  const deps: DriftDeps = {
    db: database.db,
    commands,
    controllerCopy,
    counters: {
      digest: (outcome) => digests.inc({ outcome }),
      corrections: (n) => corrections.inc(n),
    },
  };
  const bind =
    <A extends unknown[], R>(operation: (deps: DriftDeps, ...args: A) => R) =>
    (...args: A): R =>
      operation(deps, ...args);
  return {
    /** Step 1 of a comparison: the controller's bucket hashes (POST /gateway/v1/digest). */
    compareDigest: bind(compareDigest),
    /** Step 2: the items of the differing buckets; drift recorded and healed (POST /gateway/v1/digest/items). */
    compareItems: bind(compareItems),
    /** The PMS's read of a facility's drifts. */
    listDrifts: bind(listDrifts),
    /** Its published facts (facility.drift): drifts found or healed after < txid <= upTo, for push. */
    facts: {
      factsSince: (after: number, upTo: number, scope: DriftFactScope, limit: number) =>
        driftFactsSince(deps.db, after, upTo, scope, limit),
      factsAfter: (positions: readonly FactPosition[]) => driftFactsAfter(deps.db, positions),
      past: driftFactsPast,
    },
    purgeHealedDrifts: bind(purgeHealedDrifts),
    jobs: driftJobs(deps, logger) as JobDefinition[],
  };
}

export type Drift = ReturnType<typeof createDrift>;
