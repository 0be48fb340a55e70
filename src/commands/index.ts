// The command queue: built once by the composition root (src/services.ts). `createCommands`
// returns the queue's operations (each bound to the parts it works with), the hook through which a
// controller's report acknowledges commands, its job definitions, and close; routes/ serves the
// PMS's reads, and the gateway face's GET /gateway/v1/commands calls the poll.
//
//   queue        queue.ts: a change's transaction writes its commands (per-facility sequence), then
//                wakes the polls (access control's changes, facility status's remote actions)
//   poll         poll.ts: the controller's long poll — delivered, gate codes unsealed
//   acknowledge  acknowledge.ts: a controller's event 3 acknowledges (a part of the ingest's statement)
//   signals      signals.ts: the wake-ups, in-process and by LISTEN/NOTIFY across instances
//   reads        reads.ts: the PMS's list and read, gate codes left out
//   background   retention.ts (expiries recorded, old commands deleted), as jobs.ts defines them
// Pure rules (types, statuses, gate codes inside payloads) in rules.ts; the SQL in repository.ts.
import { Gauge, Histogram } from 'prom-client';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { BatchUpkeep } from '../events/index.ts';
import type { Metrics } from '../http/metrics.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { FactPosition } from '../db/horizon.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { acknowledgementOf } from './acknowledge.ts';
import type { CommandsDeps, WhenPolled } from './deps.ts';
import { type CommandFactScope, commandFactsSince, commandFactsAfter, commandFactsPast } from './facts.ts';
import { commandJobs } from './jobs.ts';
import { waitForCommands } from './poll.ts';
import { type Change, inChange } from './queue.ts';
import { findCommands, getCommand, listCommands } from './reads.ts';
import { purgeOldCommands, recordExpiredCommands } from './retention.ts';
import type { CodeUnsealer } from './rules.ts';
import { CommandSignals } from './signals.ts';

export type { WhenPolled } from './deps.ts';
export type { CommandFactScope, CommandStatusFact, CommandStatusPayload } from './facts.ts';
export type { DeliveredCommand, PollRequest } from './poll.ts';
export type { Change } from './queue.ts';
export type { CommandView } from './reads.ts';
export {
  COMMAND_LIFETIME_DAYS,
  COMMAND_RETENTION_DAYS,
  COMMAND_STATUSES,
  COMMAND_TYPES,
  type CodeUnsealer,
  type CommandStatus,
  type CommandType,
  sealedField,
} from './rules.ts';

export interface CommandsFaceDeps {
  database: Database;
  config: Pick<Config, 'databaseUrl'>;
  logger: Logger;
  /** Opens the gate codes sealed in payloads when a command is delivered (access control's vault). */
  codes: CodeUnsealer;
  /** What other faces do at each poll (facility status marks the controller heard). */
  whenPolled: readonly WhenPolled[];
  metrics: Metrics;
}

export async function createCommands({ database, config, logger, codes, whenPolled, metrics }: CommandsFaceDeps) {
  const postgres = database.kind === 'postgres';
  const signals = new CommandSignals(logger, postgres ? config.databaseUrl : null);
  new Gauge({
    name: 'gatehouse_gateway_command_polls_waiting',
    help: 'Controllers’ long polls for commands held open on this instance.',
    registers: [metrics.registry],
    collect() {
      this.set(signals.waiting);
    },
  });
  const deliveryLag = new Histogram({
    name: 'gatehouse_command_delivery_seconds',
    help: 'From a command’s creation (a PMS change) to its first delivery to the facility’s controller.',
    // A controller that holds its poll has a change in milliseconds; one that was offline, when it is back.
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: [metrics.registry],
  });
  await signals.listen();
  const deps: CommandsDeps = {
    db: database.db,
    notifyAcrossInstances: postgres,
    signals,
    codes,
    whenPolled,
    deliveryLag,
  };
  const bind =
    <A extends unknown[], R>(operation: (deps: CommandsDeps, ...args: A) => R) =>
    (...args: A): R =>
      operation(deps, ...args);
  /**
   * What a controller's report does here, in its batch's statement (handed to the events face by the
   * composition root): the commands it received (events of type 3) are acknowledged.
   */
  const acknowledgeReceived: BatchUpkeep = acknowledgementOf;
  return {
    /**
     * One change of a facility: `work` runs in a transaction that writes its commands (unless
     * suppressed); the controller's waiting polls are woken once it commits.
     */
    inChange: <T>(facilityId: EntityId, suppressCommands: boolean, work: (change: Change) => Promise<T>) =>
      inChange(deps, facilityId, suppressCommands, work),
    /** The controller's long poll (GET /gateway/v1/commands). */
    waitForCommands: bind(waitForCommands),
    // The PMS's reads.
    listCommands: bind(listCommands),
    getCommand: bind(getCommand),
    /** Some of a facility's commands by id (facility status reads its remote actions' results). */
    findCommands: bind(findCommands),
    acknowledgeReceived,
    /** Its published facts (command.status): commands settled after < txid <= upTo, for push. */
    facts: {
      factsSince: (after: number, upTo: number, scope: CommandFactScope, limit: number) =>
        commandFactsSince(deps.db, after, upTo, scope, limit),
      factsAfter: (positions: readonly FactPosition[]) => commandFactsAfter(deps.db, positions),
      past: commandFactsPast,
    },
    // What the jobs run (also run by tests at a chosen time).
    recordExpiredCommands: bind(recordExpiredCommands),
    purgeOldCommands: bind(purgeOldCommands),
    /** The wake-ups of waiting polls (how many wait: for metrics and tests). */
    signals,
    /** The face's background jobs, worked by the server's queue. */
    jobs: commandJobs(deps, logger) as JobDefinition[],
    /** Answers waiting polls at once (SIGTERM), before the HTTP server waits for them. */
    beginClosing: () => signals.beginClosing(),
    close: () => signals.close(),
  };
}

export type Commands = Awaited<ReturnType<typeof createCommands>>;
