// After set-up the demo acts as the PMS now and then (every 20–40 s by default), so that the
// controllers' command queue keeps flowing while someone watches: a unit goes delinquent and pays
// up, a tenant moves into a vacant unit, a visitor's gate code changes, a unit is vacated. Each
// change goes through the PMS face with the typed client, like the demo's set-up, and so becomes a
// command the simulated controller fetches, applies and acknowledges.
//
// What to change is a pure choice over the facility as the API shows it (planPmsChange); the
// service stays the one record of units and visitors, so the demo keeps no copy that could drift.
import type { GatehouseClient, Schemas } from '../../clients/typescript/index.ts';
import { FIRST_NAMES, LAST_NAMES } from './data.ts';

type Unit = Pick<Schemas['Unit'], 'id' | 'unitNumber' | 'status'>;
type Visitor = Pick<Schemas['Visitor'], 'id' | 'name' | 'unitId' | 'isTenant' | 'isEnabled'>;

export type PmsChange =
  | { kind: 'delinquent'; unit: Unit; tenant?: string }
  | { kind: 'paid'; unit: Unit }
  | { kind: 'move-in'; unit: Unit; firstName: string; lastName: string; accessCode: string }
  | { kind: 'new-code'; visitor: Visitor; unitNumber: string; accessCode: string }
  | { kind: 'vacate'; unit: Unit; visitors: number };

/** A facility keeps at most this many delinquent units, and is vacated down to at most this many vacant ones. */
const MOST_DELINQUENT = 1;
const MOST_VACANT = 3;

/**
 * The next change a PMS might make at a facility, weighted so that the facility stays lively and
 * steady: a delinquent unit soon pays up, a vacant unit is soon rented again, and units are
 * vacated or fall behind only while few are. Null when nothing applies (a facility without units).
 * `accessCode` is the code a new tenant or a changed code gets (unique: the caller's sequence).
 */
export function planPmsChange(
  units: readonly Unit[],
  visitors: readonly Visitor[],
  accessCode: string,
  random: () => number,
): PmsChange | null {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const byStatus = (status: Unit['status']) => units.filter((u) => u.status === status);
  const rented = byStatus('Rented');
  const delinquent = byStatus('Delinquent');
  const vacant = byStatus('Vacant');
  const unitOf = new Map(units.map((u) => [u.id, u]));
  // A locked-out visitor keeps their code until their unit pays up: change only codes that open the gate.
  const changeable = visitors.filter(
    (v) => v.isEnabled && v.unitId !== null && unitOf.get(v.unitId)?.status === 'Rented',
  );
  const tenantOf = (unit: Unit) => visitors.find((v) => v.unitId === unit.id && v.isTenant)?.name;

  const choices: { weight: number; make: () => PmsChange }[] = [];
  if (delinquent.length > 0) choices.push({ weight: 3, make: () => ({ kind: 'paid', unit: pick(delinquent) }) });
  if (vacant.length > 0)
    choices.push({
      weight: 2,
      make: () => ({
        kind: 'move-in',
        unit: pick(vacant),
        firstName: pick(FIRST_NAMES),
        lastName: pick(LAST_NAMES),
        accessCode,
      }),
    });
  if (changeable.length > 0)
    choices.push({
      weight: 2,
      make: () => {
        const visitor = pick(changeable);
        return { kind: 'new-code', visitor, unitNumber: unitOf.get(visitor.unitId!)!.unitNumber, accessCode };
      },
    });
  if (rented.length > 0 && delinquent.length < MOST_DELINQUENT)
    choices.push({
      weight: 1,
      make: () => {
        const unit = pick(rented);
        return { kind: 'delinquent', unit, tenant: tenantOf(unit) };
      },
    });
  if (rented.length > 0 && vacant.length < MOST_VACANT)
    choices.push({
      weight: 1,
      make: () => {
        const unit = pick(rented);
        return { kind: 'vacate', unit, visitors: visitors.filter((v) => v.unitId === unit.id).length };
      },
    });
  if (choices.length === 0) return null;
  let at = random() * choices.reduce((sum, c) => sum + c.weight, 0);
  for (const choice of choices) {
    at -= choice.weight;
    if (at < 0) return choice.make();
  }
  return choices[choices.length - 1]!.make();
}

/** The change in a few words, for the demo's output. */
export function describePmsChange(change: PmsChange): string {
  switch (change.kind) {
    case 'delinquent':
      return `unit ${change.unit.unitNumber} is delinquent${change.tenant ? ` (${change.tenant} locked out)` : ''}`;
    case 'paid':
      return `unit ${change.unit.unitNumber} paid up (Rented again)`;
    case 'move-in':
      return `unit ${change.unit.unitNumber} rented to ${change.firstName} ${change.lastName} (new tenant)`;
    case 'new-code':
      return `${change.visitor.name} (unit ${change.unitNumber}) has a new gate code`;
    case 'vacate':
      return `unit ${change.unit.unitNumber} vacated (${change.visitors} visitor${change.visitors === 1 ? '' : 's'} removed)`;
  }
}

async function must<T>(what: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(error).slice(0, 200)}`);
  return data as T;
}

/** Makes the change through the PMS face: one call, so one command for the facility's controller. */
export async function applyPmsChange(pms: GatehouseClient, facilityId: number, change: PmsChange): Promise<void> {
  const unitPath = (unit: Unit) => ({ params: { path: { facilityId, unitId: unit.id } }, body: null });
  switch (change.kind) {
    case 'delinquent':
      await must('unit disable', pms.POST('/facilities/{facilityId}/units/{unitId}/disable', unitPath(change.unit)));
      return;
    case 'paid':
      await must('unit enable', pms.POST('/facilities/{facilityId}/units/{unitId}/enable', unitPath(change.unit)));
      return;
    case 'vacate':
      await must('unit vacate', pms.POST('/facilities/{facilityId}/units/{unitId}/vacate', unitPath(change.unit)));
      return;
    case 'move-in':
      await must(
        'visitor create',
        pms.POST('/facilities/{facilityId}/visitors', {
          params: { path: { facilityId } },
          body: {
            unitId: change.unit.id,
            accessCode: change.accessCode,
            firstName: change.firstName,
            lastName: change.lastName,
            isTenant: true,
          },
        }),
      );
      return;
    case 'new-code':
      await must(
        'visitor update',
        pms.POST('/facilities/{facilityId}/visitors/{visitorId}/update', {
          params: { path: { facilityId, visitorId: change.visitor.id } },
          body: { accessCode: change.accessCode },
        }),
      );
      return;
  }
}

export interface PmsActivityOptions {
  /** Mean seconds between changes; each wait is drawn from ⅔ to 4⁄3 of it (30 → 20–40 s). */
  everySeconds: number;
  /** Where each change's line goes. */
  print: (line: string) => void;
  random?: () => number;
}

/**
 * The demo's PMS at work: at random intervals, one change at a random facility. stop() cancels the
 * next change and waits for one under way, so the service can close after it without a call left
 * hanging. A refused change is printed and the activity goes on.
 */
export class PmsActivity {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Gate codes of this run's changes: 6 digits from 500000, above every code the set-up gives. */
  private codes = 500_000;
  private readonly random: () => number;
  changes = 0;
  failures = 0;

  constructor(
    private readonly pms: GatehouseClient,
    private readonly facilities: readonly { id: number; name: string }[],
    private readonly options: PmsActivityOptions,
  ) {
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (this.options.everySeconds > 0) this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
  }

  private schedule(): void {
    if (this.stopped) return;
    const wait = this.options.everySeconds * 1000 * (2 / 3 + (2 / 3) * this.random());
    this.timer = setTimeout(() => {
      this.current = this.changeOne().finally(() => this.schedule());
    }, wait);
  }

  private async changeOne(): Promise<void> {
    const facility = this.facilities[Math.floor(this.random() * this.facilities.length)]!;
    const path = { params: { path: { facilityId: facility.id } } };
    try {
      const [units, visitors] = await Promise.all([
        must('units', this.pms.GET('/facilities/{facilityId}/units', path)),
        must('visitors', this.pms.GET('/facilities/{facilityId}/visitors', path)),
      ]);
      const change = planPmsChange(units, visitors, String(++this.codes), this.random);
      if (!change) return;
      await applyPmsChange(this.pms, facility.id, change);
      this.changes++;
      this.options.print(`PMS change at ${facility.name}: ${describePmsChange(change)}`);
    } catch (error) {
      this.failures++;
      this.options.print(`PMS change at ${facility.name} failed: ${(error as Error).message}`);
    }
  }
}
