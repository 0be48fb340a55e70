// What access control's operations work with: the first argument of each, bound by createAccessControl
// (index.ts), so that an operation file needs neither the face nor the composition root.
import type { Commands } from '../commands/index.ts';
import type { Db } from '../db/tables.ts';
import type { CodeConflictThrottle } from './code-conflicts.ts';
import type { AccessCodeVault } from './codes.ts';

/** What the face's operations work with (the first argument of each, bound by createAccessControl). */
export interface AccessControlParts {
  db: Db;
  vault: AccessCodeVault;
  /** ACCESS_CODE_IN_USE answers per credential: audited, a few a minute (code-conflicts.ts). */
  codeConflicts: CodeConflictThrottle;
  commands: Pick<Commands, 'inChange'>;
}
