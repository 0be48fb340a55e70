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
import { listAccessProfiles } from './access-profiles.ts';
import { CodeConflictThrottle } from './code-conflicts.ts';
import { listCodeReads } from './code-reads.ts';
import { heldItems, writeCorrection } from './controller-copy.ts';
import type { AccessCodeVault } from './codes.ts';
import type { AccessControlParts } from './deps.ts';
import { facilityByPropertyNumber, listFacilities } from './facilities.ts';
import { refresh } from './refresh.ts';
import { seedInitialState } from './seed.ts';
import { listTimeGroups } from './time-groups.ts';
import { actOnUnit, createUnit, getUnit, listUnits } from './units.ts';
import {
  accessCodeFault,
  createVisitor,
  getVisitor,
  listUnitVisitors,
  listVisitors,
  removeVisitor,
  switchVisitorAccess,
  updateVisitor,
} from './visitors.ts';

export { type AccessCodeVault, openAccessCodeVault } from './codes.ts';
// A new facility's bulk seeding, for the command line (which builds no face).
export { type SeedCounts, seedInitialState } from './seed.ts';
export type { Correction, HeldUnit, HeldVisitor, ItemBuckets, KindCorrection } from './controller-copy.ts';

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

export type AccessControl = ReturnType<typeof createAccessControl>;

/** The face: its parts, and its operations bound to them (what its routes call). */
export function createAccessControl({ database, config, sharedState, clock, vault, commands }: AccessControlDeps) {
  const parts: AccessControlParts = {
    db: database.db,
    vault,
    codeConflicts: CodeConflictThrottle.create(sharedState, config.accessCodeConflictsPerMinute, clock),
    commands,
  };
  const { db } = parts;
  const withParts =
    <A extends unknown[], R>(operation: (parts: AccessControlParts, ...args: A) => R) =>
    (...args: A): R =>
      operation(parts, ...args);
  const withDb =
    <A extends unknown[], R>(operation: (db: Db, ...args: A) => R) =>
    (...args: A): R =>
      operation(db, ...args);
  return {
    ...parts,
    // The facilities a PMS sees (SPEC §4).
    listFacilities: withDb(listFacilities),
    facilityByPropertyNumber: withDb(facilityByPropertyNumber),
    // Units.
    listUnits: withDb(listUnits),
    getUnit: withDb(getUnit),
    createUnit: withParts(createUnit),
    actOnUnit: withParts(actOnUnit),
    // Visitors (tenants and guests with gate codes).
    listVisitors: withParts(listVisitors),
    listUnitVisitors: withParts(listUnitVisitors),
    getVisitor: withParts(getVisitor),
    createVisitor: withParts(createVisitor),
    updateVisitor: withParts(updateVisitor),
    removeVisitor: withParts(removeVisitor),
    switchVisitorAccess: withParts(switchVisitorAccess),
    accessCodeFault: withParts(accessCodeFault),
    // A full refresh of what the controller holds.
    refresh: withParts(refresh),
    // A new facility's units and visitors, in bulk and without commands (a sandbox's seeded facilities).
    seedInitialState: withParts(seedInitialState),
    // Reads of the facility's settings, and the operator's audit of gate-code reads.
    listTimeGroups: withDb(listTimeGroups),
    listAccessProfiles: withDb(listAccessProfiles),
    listCodeReads: withDb(listCodeReads),
    // What the controller should hold, and the commands that put it back (the drift face's comparison).
    controllerCopy: { heldItems: withParts(heldItems), writeCorrection },
  };
}

// The pure rules others apply as the controller would (the simulator).
export { isWithinTimeWindows, type TimeWindow, type UnitStatus } from './rules.ts';
