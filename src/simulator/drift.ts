// How a simulated controller drifts from the PMS, as real ones do: a restored backup loses visitors,
// a person at the controller's web interface changes a unit or adds a temporary code (reporting events
// 28 and 27, as a controller does). Pure: each function returns the next state and the events to
// report; randomness is the caller's seeded generator.
import type { EntityId } from '../ids.ts';
import type { ControllerState, UnitCopy, VisitorCopy, WritableState } from './controller.ts';

/** Events a local change reports (SPEC §7). */
export const LOCAL_EVENT = { TEMPORARY_CODE_ADDED: 27, VISITOR_STATUS_CHANGED: 28 } as const;

/** A drift to make at once: so many visitors lost, units altered, visitors added. */
export interface DriftPlan {
  loseVisitors: number;
  alterUnits: number;
  addVisitors: number;
}

export interface LocalEvent {
  eventType: number;
  unitId?: EntityId;
  visitorId?: EntityId;
  details: string;
}

/** Ids of visitors added at the controller: far above any the service gives (it never reuses one). */
const LOCAL_IDS_FROM = 2_000_000_000;

/** "lose-visitors=5,alter-units=3,add-visitors=1" → the plan; a part left out is 0. */
export function parseDriftPlan(text: string): DriftPlan {
  const plan: DriftPlan = { loseVisitors: 0, alterUnits: 0, addVisitors: 0 };
  const keys: Record<string, keyof DriftPlan> = {
    'lose-visitors': 'loseVisitors',
    'alter-units': 'alterUnits',
    'add-visitors': 'addVisitors',
  };
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=');
    const key = keys[name ?? ''];
    const n = Number(value);
    if (!key || !Number.isSafeInteger(n) || n < 0)
      throw new Error(`"${part}" is not one of lose-visitors=<n>, alter-units=<n>, add-visitors=<n>`);
    plan[key] = n;
  }
  return plan;
}

/** Whether the controller holds enough to make the plan (else it waits for the PMS's data). */
export const canDrift = (state: ControllerState, plan: DriftPlan) =>
  state.visitors.size >= Math.max(plan.loseVisitors, plan.addVisitors > 0 ? 1 : 0) &&
  state.units.size >= plan.alterUnits;

/** `n` distinct items drawn from `items`. */
function draw<T>(items: readonly T[], n: number, random: () => number): T[] {
  const pool = [...items];
  const drawn: T[] = [];
  while (drawn.length < n && pool.length > 0) drawn.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return drawn;
}

const otherStatus = (unit: UnitCopy): UnitCopy['status'] => (unit.status === 'Rented' ? 'Delinquent' : 'Rented');

/** The state after the plan, and the events a person's changes report (a lost visitor reports nothing). */
export function makeDrift(
  state: ControllerState,
  plan: DriftPlan,
  random: () => number,
): { state: WritableState; events: LocalEvent[] } {
  const units = new Map(state.units);
  const visitors = new Map(state.visitors);
  const events: LocalEvent[] = [];
  for (const lost of draw([...visitors.values()], plan.loseVisitors, random)) visitors.delete(lost.id);
  for (const unit of draw([...units.values()], plan.alterUnits, random)) {
    const status = otherStatus(unit);
    units.set(unit.id, { ...unit, status });
    events.push({
      eventType: LOCAL_EVENT.VISITOR_STATUS_CHANGED,
      unitId: unit.id,
      details: `Unit ${unit.unitNumber} set to ${status} at the controller`,
    });
  }
  const model = [...state.visitors.values()][0];
  for (let i = 0; i < plan.addVisitors && model; i++) {
    const id = LOCAL_IDS_FROM + Math.floor(random() * 1_000_000_000);
    const added: VisitorCopy = {
      ...model,
      id,
      firstName: 'Temporary',
      lastName: 'Code',
      accessCode: localCode(visitors, random),
    };
    visitors.set(id, added);
    events.push({
      eventType: LOCAL_EVENT.TEMPORARY_CODE_ADDED,
      visitorId: id,
      details: 'Temporary code added at the controller',
    });
  }
  return { state: { ...state, units, visitors }, events };
}

/** A random local change (for --drift-rate): one of losing a visitor, altering a unit, adding a visitor. */
export function randomDriftPlan(random: () => number): DriftPlan {
  const pick = Math.floor(random() * 3);
  return { loseVisitors: pick === 0 ? 1 : 0, alterUnits: pick === 1 ? 1 : 0, addVisitors: pick === 2 ? 1 : 0 };
}

function localCode(visitors: ReadonlyMap<EntityId, VisitorCopy>, random: () => number): string {
  for (;;) {
    const code = String(Math.floor(random() * 100_000_000)).padStart(8, '0');
    if (![...visitors.values()].some((v) => v.accessCode === code)) return code;
  }
}
