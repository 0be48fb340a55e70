// The access-control face: built once by the composition root (src/services.ts). It owns the
// gate-code vault (opened by the root first: the command queue unseals the codes it delivers), the
// throttle of gate-code conflicts (code-conflicts.ts), and writes every change's command through the
// command queue's door (src/commands).
// The rest of the face, by the anatomy every face shares: routes/<resource>.ts (HTTP), one file
// per operation or close family (units.ts, visitors.ts, time-groups.ts, access-profiles.ts,
// refresh.ts, code-reads.ts, code-conflicts.ts, facilities.ts; every change through change.ts), the
// SQL in repository.ts, the pure rules in rules.ts, table types in tables.ts.
import type { Clock } from '../clock.ts';
import type { Commands } from '../commands/index.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Db } from '../db/tables.ts';
import type { SharedState } from '../shared-state.ts';
import { CodeConflictThrottle } from './code-conflicts.ts';
import type { AccessCodeVault } from './codes.ts';

export { type AccessCodeVault, openAccessCodeVault } from './codes.ts';

export interface AccessControlDeps {
  database: Database;
  config: Pick<Config, 'accessCodeConflictsPerMinute'>;
  /** Where the code-conflict counters live (Redis when configured). */
  sharedState: SharedState;
  clock: Clock;
  /** The gate-code vault: codes sealed at rest, checked for uniqueness by keyed hash. */
  vault: AccessCodeVault;
  /** Writes each change's command (the command queue's door). */
  commands: Pick<Commands, 'inChange'>;
}

export interface AccessControl {
  db: Db;
  vault: AccessCodeVault;
  /** ACCESS_CODE_IN_USE answers per credential: audited, a few a minute (code-conflicts.ts). */
  codeConflicts: CodeConflictThrottle;
  commands: Pick<Commands, 'inChange'>;
}

export function createAccessControl({
  database,
  config,
  sharedState,
  clock,
  vault,
  commands,
}: AccessControlDeps): AccessControl {
  return {
    db: database.db,
    vault,
    codeConflicts: CodeConflictThrottle.create(sharedState, config.accessCodeConflictsPerMinute, clock),
    commands,
  };
}

// The pure rules others apply as the controller would (the simulator).
export { isWithinTimeWindows, type TimeWindow, type UnitStatus } from './rules.ts';
