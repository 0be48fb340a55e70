// The demo's simulated controllers each drift once (a visitor lost, a unit changed and a temporary
// code added at the controller); this watches the facilities' drift records through the PMS face
// and prints a line for each drift healed, so that one sees the service find and heal it by itself.
import type { GatehouseClient, Schemas } from '../../clients/typescript/index.ts';

type Drift = Schemas['Drift'];

/** One line about a healed drift: where, what differed, how it was healed and how fast. */
export function describeDrift(facility: { id: number; name: string }, drift: Drift): string {
  const what = drift.items
    .map((i) => `${i.kind} ${i.id} ${i.change === 'altered' ? `altered (${i.fields.join(', ')})` : i.change}`)
    .join(', ');
  const ms = Date.parse(drift.healedAt ?? drift.foundAt) - Date.parse(drift.foundAt);
  const commands = `${drift.corrections} corrective command${drift.corrections === 1 ? '' : 's'}`;
  return `Drift at ${facility.name}: ${what} — found and healed by ${commands} in ${ms} ms (GET /facilities/${facility.id}/drift)`;
}

export class DriftWatch {
  private timer: NodeJS.Timeout | undefined;
  private readonly told = new Set<string>();
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly pms: GatehouseClient,
    private readonly facilities: readonly { id: number; name: string }[],
    private readonly print: (line: string) => void,
    private readonly everyMs = 2000,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.reading = this.reading.then(() => this.read()).catch(() => {});
    }, this.everyMs);
  }

  /** Stops watching, after one last read (a drift healed since the last one is still told). */
  async stop(): Promise<void> {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.reading;
    await this.read().catch(() => {});
  }

  private async read(): Promise<void> {
    for (const facility of this.facilities) {
      const { data } = await this.pms.GET('/facilities/{facilityId}/drift', {
        params: { path: { facilityId: facility.id } },
      });
      for (const drift of data ?? []) {
        if (drift.status !== 'healed' || this.told.has(drift.id)) continue;
        this.told.add(drift.id);
        this.print(describeDrift(facility, drift));
      }
    }
  }
}
