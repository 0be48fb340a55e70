// The simulated controller's own copy of its facility — units and visitors — and how a command
// changes it. Pure: applyCommand returns the next state and never touches the one given.
import type { EntityId } from '../ids.ts';
import type { UnitStatus, TimeWindow } from '../access-control/index.ts';
import {
  bucketOf,
  type Digest,
  hashedUnits,
  hashedVisitors,
  kindDigest,
  type UnitHeld,
  type VisitorHeld,
} from '../drift/index.ts';

export interface UnitCopy {
  id: EntityId;
  unitNumber: string;
  status: UnitStatus;
}

export interface VisitorCopy {
  id: EntityId;
  /** Null for a visitor without a unit (a facility-wide guest). */
  unitId: EntityId | null;
  unitNumber: string | null;
  firstName: string;
  lastName: string;
  isTenant: boolean;
  isEnabled: boolean;
  accessCode: string;
  timeGroup: { id: number; name: string; timeZone: string; windows: TimeWindow[] };
  accessProfile: { id: number; name: string; accessAreas: string[] | null };
}

export interface ControllerState {
  units: ReadonlyMap<EntityId, UnitCopy>;
  visitors: ReadonlyMap<EntityId, VisitorCopy>;
  /** The facility's time zone, learned from the time groups of its visitors (UTC until then). */
  timeZone: string;
  /** Emergency access (every gate open) and lockdown (every code refused), as last commanded. */
  emergency: boolean;
  lockdown: boolean;
}

export interface ReceivedCommand {
  id: string;
  sequence: number;
  type: string;
  payload: unknown;
}

export const emptyState = (): WritableState => ({
  units: new Map(),
  visitors: new Map(),
  timeZone: 'UTC',
  emergency: false,
  lockdown: false,
});

type Payload = {
  unit?: UnitCopy;
  units?: UnitCopy[];
  unitId?: EntityId;
  visitor?: VisitorCopy;
  visitors?: VisitorCopy[];
  visitorId?: EntityId;
  removedVisitorIds?: EntityId[];
  enabled?: boolean;
};

/** A controller's own copy, changed in place as it applies commands (the simulated facility keeps one). */
export interface WritableState extends ControllerState {
  units: Map<EntityId, UnitCopy>;
  visitors: Map<EntityId, VisitorCopy>;
}

/** The state after applying one command; an unknown command type changes nothing. */
export function applyCommand(state: ControllerState, command: ReceivedCommand): ControllerState {
  const next: WritableState = { ...state, units: new Map(state.units), visitors: new Map(state.visitors) };
  return applyInPlace(next, command) ? next : state;
}

/**
 * Applies one command to the copy itself (a controller applying thousands of commands does not copy
 * its whole state for each); returns whether the command changes state.
 */
export function applyInPlace(state: WritableState, command: ReceivedCommand): boolean {
  const p = (command.payload ?? {}) as Payload;
  const { units, visitors } = state;
  const putVisitor = (v: VisitorCopy) => {
    visitors.set(v.id, v);
    if (v.timeGroup?.timeZone) state.timeZone = v.timeGroup.timeZone;
  };
  switch (command.type) {
    case 'unit.upsert':
      if (p.unit) units.set(p.unit.id, p.unit);
      break;
    case 'unit.vacate':
      if (p.unit) {
        units.set(p.unit.id, p.unit);
        for (const [id, v] of visitors) if (v.unitId === p.unit.id) visitors.delete(id);
      }
      for (const id of p.removedVisitorIds ?? []) visitors.delete(id);
      break;
    case 'unit.delete':
      if (p.unitId) {
        units.delete(p.unitId);
        for (const [id, v] of visitors) if (v.unitId === p.unitId) visitors.delete(id);
      }
      break;
    case 'visitor.upsert':
      if (p.visitor) putVisitor(p.visitor);
      if (p.unit) units.set(p.unit.id, p.unit);
      break;
    case 'visitor.remove':
      if (p.visitorId) visitors.delete(p.visitorId);
      break;
    case 'units.refresh':
      units.clear();
      for (const u of p.units ?? []) units.set(u.id, u);
      break;
    case 'visitors.refresh':
      visitors.clear();
      for (const v of p.visitors ?? []) putVisitor(v);
      break;
    case 'emergency.set':
      state.emergency = p.enabled === true;
      break;
    case 'lockdown.set':
      state.lockdown = p.enabled === true;
      break;
    default:
      // action-group.run changes no state: the gate moves, the controller reports it (decide.ts).
      return false;
  }
  return true;
}

/** The enabled visitor whose code this is, if any (codes are unique among enabled visitors). */
export function visitorByCode(state: ControllerState, code: string): VisitorCopy | undefined {
  for (const v of state.visitors.values()) if (v.isEnabled && v.accessCode === code) return v;
  return undefined;
}

// ---- what the controller says it holds (SPEC §4.1 "Drift"; the rules are src/drift's) ----

const heldUnits = (state: ControllerState): UnitHeld[] =>
  [...state.units.values()].map((u) => ({ id: u.id, unitNumber: u.unitNumber, status: u.status }));
const heldVisitors = (state: ControllerState): VisitorHeld[] =>
  [...state.visitors.values()].map((v) => ({
    id: v.id,
    unitId: v.unitId,
    isEnabled: v.isEnabled,
    timeGroupId: v.timeGroup.id,
    accessProfileId: v.accessProfile.id,
    accessCode: v.accessCode,
  }));

/** The digest of the controller's copy: 64 bucket hashes per kind, whatever the facility's size. */
export function digestOf(state: ControllerState): Digest {
  return {
    units: kindDigest(hashedUnits(heldUnits(state))),
    visitors: kindDigest(hashedVisitors(heldVisitors(state))),
  };
}

/** The items of the buckets the service asked for: ids, hashes and fields, never a gate code. */
export function itemsOf(state: ControllerState, buckets: { units: number[]; visitors: number[] }) {
  const units = new Set(buckets.units);
  const visitors = new Set(buckets.visitors);
  return {
    buckets,
    units: hashedUnits(heldUnits(state).filter((u) => units.has(bucketOf(u.id)))),
    visitors: hashedVisitors(heldVisitors(state).filter((v) => visitors.has(bucketOf(v.id)))).map(
      ({ accessCode: _code, ...rest }) => rest,
    ),
  };
}
