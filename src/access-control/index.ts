// The access-control face: built once by the composition root (src/services.ts). It owns what its
// routes and the gateway's command poll share: the gate-code vault, the throttle of gate-code
// conflicts and the command wake-ups.
// The rest of the face, by the anatomy every face shares: routes/<resource>.ts (HTTP), one file
// per operation or close family (units.ts, visitors.ts, time-groups.ts, access-profiles.ts,
// refresh.ts, commands.ts, poll.ts, acknowledge.ts; every change through change.ts), the SQL in
// repository.ts and command-repository.ts, the pure rules in rules.ts, table types in tables.ts,
// jobs in jobs.ts.
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Db } from '../db/tables.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { EntityId } from '../ids.ts';
import type { InBatchTransaction } from '../events/index.ts';
import { acknowledgeCommands } from './acknowledge.ts';
import type { SharedState } from '../shared-state.ts';
import { CodeConflictThrottle } from './code-conflicts.ts';
import { type Change, inChange } from './change.ts';
import { openAccessCodeVault, type AccessCodeVault } from './codes.ts';
import { accessControlJobs } from './jobs.ts';
import { CommandSignals } from './signals.ts';

export type { Change } from './change.ts';
export { COMMAND_STATUSES, type CommandStatus, type CommandType } from './rules.ts';

/** What another face does when a controller polls for its commands (facility status: it was heard). */
export type WhenPolled = (facilityId: EntityId, now: number) => Promise<void>;

export interface AccessControlDeps {
  database: Database;
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'accessCodeKey' | 'accessCodeConflictsPerMinute'>;
  logger: Logger;
  /** Where the code-conflict counters live (Redis when configured). */
  sharedState: SharedState;
  clock: Clock;
  /** What other faces do at each poll, before it looks for commands (the composition root hands them in). */
  whenPolled: readonly WhenPolled[];
}

export interface AccessControl {
  db: Db;
  /** On PostgreSQL a command also runs pg_notify, for polls waiting on other instances. */
  notifyAcrossInstances: boolean;
  vault: AccessCodeVault;
  /** ACCESS_CODE_IN_USE answers per credential: audited, a few a minute (code-conflicts.ts). */
  codeConflicts: CodeConflictThrottle;
  signals: CommandSignals;
  whenPolled: readonly WhenPolled[];
  /**
   * One change of a facility: `work` runs in a transaction that writes its commands (unless
   * suppressed); the controller's waiting poll is woken once it commits.
   */
  inChange<T>(facilityId: EntityId, suppressCommands: boolean, work: (change: Change) => Promise<T>): Promise<T>;
  /**
   * What a controller's report does here, inside its batch's transaction (handed to the events face
   * by the composition root): the commands it received are acknowledged.
   */
  acknowledgeReceived: InBatchTransaction;
  jobs: JobDefinition[];
  /** Answers waiting polls at once (SIGTERM), before the HTTP server waits for them. */
  beginClosing(): void;
  close(): Promise<void>;
}

export async function createAccessControl({
  database,
  config,
  logger,
  sharedState,
  clock,
  whenPolled,
}: AccessControlDeps): Promise<AccessControl> {
  const postgres = database.kind === 'postgres';
  const signals = new CommandSignals(logger, postgres ? config.databaseUrl : null);
  const vault = await openAccessCodeVault(config, database.db);
  await signals.listen();
  const face: AccessControl = {
    db: database.db,
    notifyAcrossInstances: postgres,
    vault,
    codeConflicts: CodeConflictThrottle.create(sharedState, config.accessCodeConflictsPerMinute, clock),
    signals,
    whenPolled,
    inChange: (facilityId, suppressCommands, work) => inChange(face, facilityId, suppressCommands, work),
    async acknowledgeReceived(trx, batch) {
      if (batch.receivedCommandIds.length > 0)
        await acknowledgeCommands(trx, batch.facilityId, [...batch.receivedCommandIds]);
    },
    jobs: accessControlJobs({ db: database.db, logger }),
    beginClosing: () => signals.beginClosing(),
    close: () => signals.close(),
  };
  return face;
}

// The pure rules others apply as the controller would (the simulator).
export { isWithinTimeWindows, type TimeWindow, type UnitStatus } from './rules.ts';
