// The simulator: N simulated facilities against one service, a tick that drives their sites, and
// the live progress line (events sent, commands applied, errors).
import type { Credential } from './client.ts';
import { seededRandom, SimulatedFacility, type ActivityOptions } from './facility.ts';
import { newOutboxStats, type OutboxStats } from './outbox.ts';

export interface SimulatorOptions extends ActivityOptions {
  seed: number;
  tickMs: number;
}

export const DEFAULT_OPTIONS: SimulatorOptions = {
  entriesPerMinute: 12,
  wrongCodeShare: 0.1,
  doorAfterGrantShare: 0.5,
  doorAlarmsPerHour: 4,
  deviceDropsPerHour: 2,
  healthIntervalSeconds: 60,
  pollWaitSeconds: 30,
  batchSize: 200,
  flushMs: 1000,
  seed: 1,
  tickMs: 200,
};

export interface SimulatorSummary {
  facilities: number;
  commandsApplied: number;
  eventsGenerated: number;
  eventsAccepted: number;
  duplicates: number;
  rejected: number;
  dropped: number;
  retries: number;
  errors: number;
  queued: number;
  eventsByType: Record<string, number>;
  lastError: string | null;
}

export class Simulator {
  readonly facilities: SimulatedFacility[];
  readonly stats: OutboxStats = newOutboxStats();
  private pollErrors = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    baseUrl: string,
    credentials: Credential[],
    readonly options: SimulatorOptions = DEFAULT_OPTIONS,
  ) {
    const url = baseUrl.replace(/\/+$/, '');
    this.facilities = credentials.map(
      (credential, i) =>
        new SimulatedFacility(
          url,
          credential,
          options,
          seededRandom(options.seed * 7919 + i),
          this.stats,
          (message) => {
            this.pollErrors += 1;
            this.stats.lastError = message;
          },
        ),
    );
  }

  start(): void {
    for (const facility of this.facilities) facility.start();
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const facility of this.facilities) facility.tick(now);
    }, this.options.tickMs);
  }

  /** Stops polling and the sites, then sends what is queued (for at most drainMs). */
  async stop(drainMs = 10_000): Promise<SimulatorSummary> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.facilities.map((f) => f.stop(drainMs)));
    return this.summary();
  }

  summary(): SimulatorSummary {
    const byType: Record<string, number> = {};
    let generated = 0;
    for (const f of this.facilities) {
      for (const [type, n] of f.counters.byType) {
        byType[type] = (byType[type] ?? 0) + n;
        generated += n;
      }
    }
    return {
      facilities: this.facilities.length,
      commandsApplied: this.facilities.reduce((n, f) => n + f.counters.commandsApplied, 0),
      eventsGenerated: generated,
      eventsAccepted: this.stats.accepted,
      duplicates: this.stats.duplicates,
      rejected: this.stats.rejected,
      dropped: this.stats.dropped,
      retries: this.stats.retries,
      errors: this.stats.errors + this.pollErrors,
      queued: this.facilities.reduce((n, f) => n + f.outbox.queued, 0),
      eventsByType: byType,
      lastError: this.stats.lastError,
    };
  }

  /** One line: what was sent and applied, what is waiting, and whether the service answers. */
  progressLine(): string {
    const s = this.summary();
    const n = (value: number) => value.toLocaleString('en-US');
    const service =
      this.stats.serviceUp === null ? 'connecting' : this.stats.serviceUp ? 'service up' : 'service DOWN, retrying';
    const parts = [
      `${s.facilities} facilit${s.facilities === 1 ? 'y' : 'ies'}`,
      `${n(s.commandsApplied)} commands applied`,
      `${n(s.eventsAccepted)} events sent${s.duplicates ? ` (${n(s.duplicates)} dup)` : ''}`,
      `${n(s.queued)} queued`,
      `${n(s.errors)} errors${s.rejected ? `, ${n(s.rejected)} rejected` : ''}`,
      service,
    ];
    return parts.join(' · ');
  }
}
