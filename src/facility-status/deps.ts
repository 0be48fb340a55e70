// What the facility-status face's operations work with. createFacilityStatus (index.ts) builds it
// once; every operation takes the parts it needs (a Pick of this), so its dependencies are in its
// signature.
import type { Clock } from '../clock.ts';
import type { Commands } from '../commands/index.ts';
import type { Db } from '../db/tables.ts';

export interface FacilityStatusDeps {
  db: Db;
  /** The time the status words are decided at (a test moves it). */
  clock: Clock;
  /**
   * Writes the remote actions' commands, in the transaction that decides them (the command queue's
   * door), and reads them back for the remote actions' results.
   */
  commands: Pick<Commands, 'inChange' | 'findCommands'>;
}
