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
import type { SharedState } from '../shared-state.ts';
import { CodeConflictThrottle } from './code-conflicts.ts';
import { openAccessCodeVault, type AccessCodeVault } from './codes.ts';
import { accessControlJobs } from './jobs.ts';
import { PollMarks } from './reported-state.ts';
import { CommandSignals } from './signals.ts';

export interface AccessControlDeps {
  database: Database;
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'accessCodeKey' | 'accessCodeConflictsPerMinute'>;
  logger: Logger;
  /** Where the code-conflict counters live (Redis when configured). */
  sharedState: SharedState;
  clock: Clock;
}

export interface AccessControl {
  db: Db;
  /** On PostgreSQL a command also runs pg_notify, for polls waiting on other instances. */
  notifyAcrossInstances: boolean;
  vault: AccessCodeVault;
  /** ACCESS_CODE_IN_USE answers per credential: audited, a few a minute (code-conflicts.ts). */
  codeConflicts: CodeConflictThrottle;
  signals: CommandSignals;
  /** Marks the controller heard when it polls (the gateway part of the facility status). */
  pollMarks: PollMarks;
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
}: AccessControlDeps): Promise<AccessControl> {
  const postgres = database.kind === 'postgres';
  const signals = new CommandSignals(logger, postgres ? config.databaseUrl : null);
  const vault = await openAccessCodeVault(config, database.db);
  await signals.listen();
  return {
    db: database.db,
    notifyAcrossInstances: postgres,
    vault,
    codeConflicts: CodeConflictThrottle.create(sharedState, config.accessCodeConflictsPerMinute, clock),
    signals,
    pollMarks: new PollMarks(database.db),
    jobs: accessControlJobs({ db: database.db, logger }),
    beginClosing: () => signals.beginClosing(),
    close: () => signals.close(),
  };
}
