// The PMS of the fleet-scale benchmark: changes units and visitors across the fleet at a steady
// rate, each facility in turn (never two changes of one facility at once), each change marked
// (pmsk<n>: a unit's number, a visitor's first name) so that the controller can tell when its
// command has arrived. Per facility the changes go: create a unit, create a tenant on it, change
// the tenant's name and gate code, then a new unit.
import { Pool } from 'undici';
import { count, now, sleep, type Tally } from './clock.ts';

export interface Change {
  facilityId: number;
  kind: 'unit' | 'visitor' | 'visitor-update';
  sentAt: number;
  answeredAt: number;
  status: number;
}

interface FacilityTurn {
  id: number;
  busy: boolean;
  step: 0 | 1 | 2;
  unitId: number | null;
  visitorId: number | null;
}

export class PmsDriver {
  /** Mark → the change that carries it. */
  readonly changes = new Map<string, Change>();
  readonly statuses: Tally = {};
  readonly refusals: string[] = [];
  private readonly pool: Pool;
  private readonly turns: FacilityTurn[];
  private next = 0;
  private marks = 0;
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    baseUrl: string,
    private readonly token: string,
    facilityIds: number[],
  ) {
    this.pool = new Pool(baseUrl, { connections: 16, pipelining: 1, keepAliveTimeout: 60_000 });
    // Shuffled: consecutive changes land on facilities of different controller processes.
    const shuffled = [...facilityIds];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    this.turns = shuffled.map((id) => ({ id, busy: false, step: 0, unitId: null, visitorId: null }));
  }

  /** Starts `perSecond` changes a second (open loop: one is started on time whatever the last one does). */
  start(perSecond: number) {
    this.running = true;
    const began = now();
    this.loop = (async () => {
      for (let n = 0; this.running; n++) {
        await sleep(began + (n * 1000) / perSecond - now());
        if (!this.running) break;
        const turn = this.pick();
        if (!turn) continue;
        const work = this.change(turn);
        this.inFlight.add(work);
        void work.finally(() => this.inFlight.delete(work));
      }
    })();
  }

  /** Stops; resolves once every change on its way is answered. */
  async stop() {
    this.running = false;
    await this.loop;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async close() {
    await this.stop();
    await this.pool.close();
  }

  private pick(): FacilityTurn | null {
    for (let tries = 0; tries < this.turns.length; tries++) {
      const turn = this.turns[this.next++ % this.turns.length]!;
      if (!turn.busy) return turn;
    }
    return null;
  }

  private async change(turn: FacilityTurn) {
    turn.busy = true;
    const n = this.marks++;
    const mark = `pmsk${n}`;
    const code = String(10_000_000 + n);
    const base = `/facilities/${turn.id}`;
    const [kind, path, body]: [Change['kind'], string, object] =
      turn.step === 0
        ? ['unit', `${base}/units`, { unitNumber: mark }]
        : turn.step === 1
          ? [
              'visitor',
              `${base}/visitors`,
              { unitId: turn.unitId, accessCode: code, firstName: mark, lastName: 'Bench', isTenant: true },
            ]
          : ['visitor-update', `${base}/visitors/${turn.visitorId}/update`, { firstName: mark, accessCode: code }];
    const sentAt = now();
    let status = 0;
    try {
      const response = await this.pool.request({
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      status = response.statusCode;
      const text = await response.body.text();
      if (status === 200 || status === 201) {
        const answer = JSON.parse(text);
        if (turn.step === 0) turn.unitId = answer.id;
        if (turn.step === 1) turn.visitorId = answer.visitor.id;
        turn.step = turn.step === 2 ? 0 : ((turn.step + 1) as 1 | 2);
      } else if (this.refusals.length < 5) this.refusals.push(`${status} ${path} ${text.slice(0, 300)}`);
    } catch {
      status = 0;
    }
    count(this.statuses, status);
    if (status === 200 || status === 201)
      this.changes.set(mark, { facilityId: turn.id, kind, sentAt, answeredAt: now(), status });
    turn.busy = false;
  }
}
