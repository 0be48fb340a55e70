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
  digestIntervalSeconds: 900,
  driftsPerHour: 0,
  driftPlan: null,
  failShare: 0,
  seed: 1,
  tickMs: 200,
};

export interface SimulatorSummary {
  facilities: number;
  commandsApplied: number;
  /** Commands acknowledged as failed (--fail-rate). */
  commandsFailed: number;
  /** Digests sent, those the service found drift in, and local changes made (--drift-rate, --drift). */
  digests: number;
  driftsFound: number;
  localChanges: number;
  eventsGenerated: number;
  eventsAccepted: number;
  duplicates: number;
  rejected: number;
  dropped: number;
  retries: number;
  errors: number;
  queued: number;
  eventsByType: Record<string, number>;
  /** Requests the service answered with success (tokens, command polls, batches): 0 means nothing worked. */
  requestsAnswered: number;
  lastError: string | null;
}

export class Simulator {
  readonly facilities: SimulatedFacility[];
  readonly stats: OutboxStats = newOutboxStats();
  /** Each distinct failure, in words, in the order first seen. */
  readonly problems = new Set<string>();
  /** Told of a failure the first time it is seen (the command line prints it). */
  onProblem: (sentence: string) => void = () => {};
  private timer: NodeJS.Timeout | null = null;

  constructor(
    baseUrl: string,
    credentials: Credential[],
    readonly options: SimulatorOptions = DEFAULT_OPTIONS,
  ) {
    const url = baseUrl.replace(/\/+$/, '');
    this.facilities = credentials.map(
      (credential, i) =>
        new SimulatedFacility(url, credential, options, seededRandom(options.seed * 7919 + i), this.stats, (sentence) =>
          this.report(sentence),
        ),
    );
  }

  private report(sentence: string): void {
    this.stats.lastError = sentence;
    if (this.problems.has(sentence)) return;
    this.problems.add(sentence);
    this.onProblem(sentence);
  }

  /** Requests the service answered with success so far, over every controller. */
  get answered(): number {
    return this.facilities.reduce((n, f) => n + f.client.answered, 0);
  }

  /** Nothing ever worked and every controller's credential was refused: running on cannot help. */
  get hopeless(): boolean {
    return this.answered === 0 && this.facilities.every((f) => f.refused);
  }

  start(): void {
    for (const facility of this.facilities) facility.start();
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const facility of this.facilities) facility.tick(now);
    }, this.options.tickMs);
  }

  /**
   * Stops polling and the sites, then sends what is queued (for at most drainMs) — unless the
   * service never answered with success: then waiting would only delay the failure.
   */
  async stop(drainMs = 10_000): Promise<SimulatorSummary> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const drain = this.answered === 0 ? 0 : drainMs;
    await Promise.all(this.facilities.map((f) => f.stop(drain)));
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
      commandsApplied: this.sum('commandsApplied'),
      commandsFailed: this.sum('commandsFailed'),
      digests: this.sum('digests'),
      driftsFound: this.sum('driftsFound'),
      localChanges: this.sum('localChanges'),
      eventsGenerated: generated,
      eventsAccepted: this.stats.accepted,
      duplicates: this.stats.duplicates,
      rejected: this.stats.rejected,
      dropped: this.stats.dropped,
      retries: this.stats.retries,
      errors: this.stats.errors + this.facilities.reduce((n, f) => n + f.counters.pollErrors, 0),
      requestsAnswered: this.answered,
      queued: this.facilities.reduce((n, f) => n + f.outbox.queued, 0),
      eventsByType: byType,
      lastError: this.stats.lastError,
    };
  }

  private sum(counter: 'commandsApplied' | 'commandsFailed' | 'digests' | 'driftsFound' | 'localChanges'): number {
    return this.facilities.reduce((n, f) => n + f.counters[counter], 0);
  }

  /** One line: what was sent and applied, what is waiting, and whether the service answers. */
  progressLine(): string {
    const s = this.summary();
    const n = (value: number) => value.toLocaleString('en-US');
    const service =
      this.stats.serviceUp === null ? 'connecting' : this.stats.serviceUp ? 'service up' : 'service DOWN, retrying';
    const parts = [
      `${s.facilities} facilit${s.facilities === 1 ? 'y' : 'ies'}`,
      `${n(s.commandsApplied)} commands applied${s.commandsFailed ? ` (${n(s.commandsFailed)} failed)` : ''}`,
      ...(s.driftsFound ? [`${n(s.driftsFound)} drifts found`] : []),
      `${n(s.eventsAccepted)} events sent${s.duplicates ? ` (${n(s.duplicates)} dup)` : ''}`,
      `${n(s.queued)} queued`,
      `${n(s.errors)} errors${s.rejected ? `, ${n(s.rejected)} rejected` : ''}`,
      service,
    ];
    return parts.join(' · ');
  }
}
