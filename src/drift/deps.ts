// What the drift face's operations work with. createDrift (index.ts) builds it once; every operation
// takes the parts it needs (a Pick of this), so its dependencies are in its signature.
import type { Commands } from '../commands/index.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Correction, HeldUnit, HeldVisitor, ItemBuckets } from '../access-control/index.ts';
import type { Change } from '../commands/index.ts';

/** Access control's side of a comparison (handed in by the composition root). */
export interface ControllerCopy {
  /** The facility's live units and visitors as the controller should hold them (codes in clear, for hashing). */
  heldItems(
    db: Db,
    facilityId: EntityId,
    buckets: ItemBuckets | null,
  ): Promise<{ units: HeldUnit[]; visitors: HeldVisitor[] }>;
  /** Writes the commands that put the items back as the PMS has them; returns how many, and the last's sequence. */
  writeCorrection(
    change: Change,
    facilityId: EntityId,
    correction: Correction,
  ): Promise<{ written: number; lastSequence: number }>;
}

export interface DriftDeps {
  db: Db;
  commands: Pick<Commands, 'inChange'>;
  controllerCopy: ControllerCopy;
  /** The face's counters (gatehouse_drift_digests_total, gatehouse_drift_corrections_total). */
  counters: { digest(outcome: 'in-sync' | 'differs'): void; corrections(n: number): void };
}
