// A controller's digest compared with what the PMS asked for (SPEC §4.1 "Drift"), in two steps a
// controller takes one after the other:
//   1. compareDigest: its bucket hashes against the PMS's; equal → in sync (an open drift is healed);
//      else the service names the buckets that differ.
//   2. compareItems: the items of those buckets (ids, hashes, fields but the code) against the PMS's;
//      what differs — leaving out items that a command not yet applied will change — is recorded as
//      the facility's drift and healed by exactly the commands that put those items back (an item
//      corrected in the open drift's last round, for a controller that has seen that round: again once
//      a digest interval has passed).
// Step 2 runs in one change of the command queue that holds the facility's command sequence, so no
// change of the PMS slips between the comparison and its corrections.
import { randomUUID } from 'node:crypto';
import { validationFailed } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import type { DriftDeps } from './deps.ts';
import * as repo from './repository.ts';
import {
  compareUnits,
  compareVisitors,
  differingBuckets,
  DIGEST_BUCKETS,
  DIGEST_INTERVAL_MINUTES,
  type DriftItem,
  hashedUnits,
  hashedVisitors,
  healOf,
  itemKey,
  itemsOutsideBuckets,
  type KindDigest,
  kindDigest,
  touchedBy,
  type UnitReport,
  type VisitorReport,
} from './rules.ts';

/** When the controller should send its next digest, unless it applies commands first. */
const nextDigestSeconds = DIGEST_INTERVAL_MINUTES * 60;

export interface DigestReport {
  /** The last command sequence the controller applied (its digest is of the state after it). */
  appliedSequence: number;
  units: KindDigest;
  visitors: KindDigest;
}

export type DigestAnswer =
  | { status: 'in-sync'; nextDigestSeconds: number }
  | { status: 'differs'; buckets: { units: number[]; visitors: number[] }; nextDigestSeconds: number };

/** Step 1: the controller's bucket hashes against the PMS's state. */
export async function compareDigest(
  { db, controllerCopy, counters }: Pick<DriftDeps, 'db' | 'controllerCopy' | 'counters'>,
  facilityId: EntityId,
  report: DigestReport,
): Promise<DigestAnswer> {
  const held = await controllerCopy.heldItems(db, facilityId, null);
  const units = differingBuckets(report.units, kindDigest(hashedUnits(held.units)));
  const visitors = differingBuckets(report.visitors, kindDigest(hashedVisitors(held.visitors)));
  if (units.length === 0 && visitors.length === 0) {
    counters.digest('in-sync');
    await repo.healOpenDrift(db, facilityId);
    return { status: 'in-sync', nextDigestSeconds };
  }
  counters.digest('differs');
  return { status: 'differs', buckets: { units, visitors }, nextDigestSeconds };
}

export interface ItemsReport {
  appliedSequence: number;
  /** The buckets these lists are complete for (those step 1 named). */
  buckets: { units: number[]; visitors: number[] };
  units: UnitReport[];
  visitors: VisitorReport[];
}

export type ItemsAnswer =
  | { status: 'in-sync' }
  | { status: 'correcting'; driftId: string; corrections: number; items: DriftItem[] };

/** Step 2: the items of the differing buckets; what differs is recorded and healed. */
export async function compareItems(
  { commands, controllerCopy, counters }: Pick<DriftDeps, 'commands' | 'controllerCopy' | 'counters'>,
  facilityId: EntityId,
  report: ItemsReport,
): Promise<ItemsAnswer> {
  const outside = itemsOutsideBuckets(report);
  if (outside.length > 0) throw validationFailed(outside);
  return commands.inChange(facilityId, false, async (change) => {
    await change.holdSequence();
    const touched = touchedBy(await change.unsettledAfter(report.appliedSequence));
    const held = await controllerCopy.heldItems(change.trx, facilityId, {
      of: DIGEST_BUCKETS,
      units: report.buckets.units,
      visitors: report.buckets.visitors,
    });
    const items = [
      ...(touched.allUnits ? [] : compareUnits(hashedUnits(held.units), report.units, touched.units)),
      ...(touched.allVisitors ? [] : compareVisitors(hashedVisitors(held.visitors), report.visitors, touched.visitors)),
    ];
    if (items.length === 0) return { status: 'in-sync' as const };
    const open = await repo.findOpenDrift(change.trx, facilityId, DIGEST_INTERVAL_MINUTES * 60);
    // Items of the open drift had their corrections in its last round. A controller that has seen that
    // round (applied or failed it) and still differs gets them again only once a digest interval has
    // passed — not after every digest; one that has not seen it (restored, restarted empty) at once.
    const backOff = open?.correctedRecently === true && report.appliedSequence >= open.correctedThrough;
    const known = new Set(open?.items.map(itemKey));
    const due = backOff ? items.filter((i) => !known.has(itemKey(i))) : items;
    if (open && due.length === 0) return { status: 'correcting' as const, driftId: open.id, corrections: 0, items };
    const driftId = open?.id ?? randomUUID();
    const written = await controllerCopy.writeCorrection(change, facilityId, {
      units: healOf('unit', due),
      visitors: healOf('visitor', due),
      driftId,
    });
    const corrected = new Set(due.map(itemKey));
    const recorded = [...(open?.items.filter((i) => !corrected.has(itemKey(i))) ?? []), ...due];
    await repo.recordFound(change.trx, facilityId, driftId, recorded, written);
    const corrections = written.written;
    counters.corrections(corrections);
    return { status: 'correcting' as const, driftId, corrections, items };
  });
}
