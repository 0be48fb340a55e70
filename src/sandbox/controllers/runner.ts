// The controllers this instance runs. The claim job hands it controllers no one runs (their leases claimed
// for it in one bounded statement); it runs each in-process against its own listening address, follows
// the integrator's controls (read every half second: one statement by primary key over its own
// controllers, and the actions waiting for those online), renews its leases (a third of a lease apart),
// stops a controller whose sandbox fell idle (releasing it in the same statement) or that another
// instance now holds, and at shutdown stops them all and releases its leases, so that another instance
// takes them at once.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/tables.ts';
import type { EntityId } from '../../ids.ts';
import type { Logger } from '../../logger.ts';
import type { Sealer } from '../../sealed.ts';
import { HostedController, type StandingControls } from './hosted.ts';
import * as repository from './repository.ts';
import { activeSince, type ControllerAction, LEASE_MS } from './rules.ts';

export interface RunnerSettings {
  /** How long a lease lasts; renewed every third of it. */
  leaseMs: number;
  /** Controllers one claim takes at most. */
  claimLimit: number;
  /** Controllers this instance runs at most. */
  capacity: number;
  /** How often the controls are read. */
  controlsEveryMs: number;
  /** How often the simulated sites' keypads, doors and outboxes are driven. */
  tickMs: number;
  /** How long a stopping controller may take to send what it queued. */
  drainMs: number;
}

export const DEFAULT_RUNNER_SETTINGS: RunnerSettings = {
  leaseMs: LEASE_MS,
  claimLimit: 50,
  capacity: 500,
  controlsEveryMs: 500,
  tickMs: 200,
  drainMs: 2000,
};

/** Actions taken in one read; more wait for the next (half a second later). */
const ACTIONS_PER_READ = 500;

/** The binding of a hosted controller's sealed secret: its facility and its credential. */
export const secretBinding = (facilityId: EntityId, credentialId: string) =>
  `sandbox controller ${facilityId} ${credentialId}`;

export interface RunnerParts {
  db: Db;
  clock: Clock;
  logger: Logger;
  sealer: Sealer;
  /** Asks for a claim soon, on whichever instance takes the job (after this one released its controllers). */
  wakeClaims: () => Promise<void>;
}

export class ControllerRunner {
  /** This instance, as its leases name it. */
  readonly instance = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly settings: RunnerSettings;
  private readonly running = new Map<EntityId, HostedController>();
  private baseUrl: string | null = null;
  private stopping: Promise<void> | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  /**
   * The work on the running controllers — a claim, the controls' read, the leases' renewal — one at a time,
   * so that a controller is never started by one while another stops it.
   */
  private work: Promise<unknown> = Promise.resolve();
  /** Which periodic work is queued or under way (a slow database does not pile them up). */
  private readonly due = new Set<'follow' | 'renew'>();
  private readonly problems = new Set<string>();

  constructor(
    private readonly parts: RunnerParts,
    settings: Partial<RunnerSettings> = {},
  ) {
    this.settings = { ...DEFAULT_RUNNER_SETTINGS, ...settings };
  }

  /** The controllers running here (facility ids), for a look. */
  get facilities(): EntityId[] {
    return [...this.running.keys()];
  }

  controller(facilityId: EntityId): HostedController | undefined {
    return this.running.get(facilityId);
  }

  /** Begins running controllers, which reach the service at `baseUrl` (its own listening address). */
  start(baseUrl: string): void {
    if (this.baseUrl !== null || this.stopping) return;
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    const every = (ms: number, work: () => void) => {
      const timer = setInterval(work, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.settings.tickMs, () => {
      const now = Date.now();
      for (const controller of this.running.values()) controller.tick(now);
    });
    every(this.settings.controlsEveryMs, () => this.periodically('follow', () => this.follow()));
    every(Math.max(100, Math.floor(this.settings.leaseMs / 3)), () => this.periodically('renew', () => this.renew()));
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const next = this.work.then(task, task);
    this.work = next.catch(() => undefined);
    return next;
  }

  private periodically(kind: 'follow' | 'renew', task: () => Promise<void>): void {
    if (this.due.has(kind)) return;
    this.due.add(kind);
    void this.exclusive(task).finally(() => this.due.delete(kind));
  }

  /**
   * Claims controllers no one runs for this instance and starts them (the claim job). Before the instance
   * listens it claims none; while it stops it refuses (the job is retried, by another instance).
   */
  claim(): Promise<number> {
    if (this.stopping) return Promise.reject(new Error('this instance is stopping: another claims the controllers'));
    if (this.baseUrl === null) return Promise.resolve(0);
    return this.exclusive(() => this.claimNow());
  }

  private async claimNow(): Promise<number> {
    if (this.stopping) return 0;
    const room = Math.min(this.settings.claimLimit, this.settings.capacity - this.running.size);
    const rows = await repository.claimControllers(
      this.parts.db,
      this.instance,
      room,
      activeSince(this.parts.clock.now()),
      this.settings.leaseMs,
    );
    let started = 0;
    for (const row of rows) {
      // A controller this instance runs already (its lease ran out while this one was held up): kept.
      if (this.running.has(row.facility_id)) continue;
      let clientSecret: string;
      try {
        clientSecret = this.parts.sealer.unseal(secretBinding(row.facility_id, row.credential_id), row.sealed_secret);
      } catch {
        // Sealed under another key (the code key changed): this instance cannot run it.
        this.parts.logger.error(
          { facilityId: row.facility_id },
          'sandbox controller: its credential cannot be opened with this instance’s key; left unrun',
        );
        await repository.releaseLeases(this.parts.db, this.instance, [row.facility_id]);
        continue;
      }
      const controller = new HostedController(
        row.facility_id,
        this.baseUrl!,
        { clientId: row.client_id, clientSecret },
        standing(row),
        this.parts.logger,
      );
      this.running.set(row.facility_id, controller);
      controller.start();
      started++;
    }
    if (started > 0) this.parts.logger.info({ instance: this.instance, started }, 'sandbox controllers started');
    return started;
  }

  /** The controls of the controllers running here, followed; the actions waiting for the online ones, done. */
  private async follow(): Promise<void> {
    if (this.running.size === 0 || this.stopping) return;
    try {
      const ids = [...this.running.keys()];
      const rows = new Map((await repository.controlsOf(this.parts.db, ids)).map((r) => [r.facility_id, r]));
      for (const id of ids) {
        const row = rows.get(id);
        // Deleted with its sandbox, or run by another instance since this one's lease ran out.
        if (!row || row.leased_by !== this.instance) await this.drop(id);
        else await this.running.get(id)?.follow(standing(row), this.settings.drainMs);
      }
      const ready = [...rows.values()]
        .filter((r) => r.pending && r.online && this.running.get(r.facility_id)?.isOnline)
        .map((r) => r.facility_id);
      for (const action of await repository.takeActions(this.parts.db, ready, ACTIONS_PER_READ)) {
        const controller = this.running.get(action.facility_id);
        if (!controller?.isOnline) continue;
        controller.act({ kind: action.kind, payload: action.payload } as ControllerAction, action.requested_at);
      }
    } catch (error) {
      this.problem('the controls could not be read', error);
    }
  }

  /** Renews the leases of the controllers running here; stops those of idle sandboxes and those no longer its own. */
  private async renew(): Promise<void> {
    if (this.running.size === 0 || this.stopping) return;
    try {
      const ids = [...this.running.keys()];
      const answers = await repository.renewLeases(
        this.parts.db,
        this.instance,
        ids,
        activeSince(this.parts.clock.now()),
        this.settings.leaseMs,
      );
      const kept = new Set(answers.filter((a) => a.kept).map((a) => a.facility_id));
      const idle = ids.filter((id) => !kept.has(id));
      for (const id of idle) await this.drop(id);
      if (idle.length > 0) this.parts.logger.info({ stopped: idle }, 'sandbox controllers stopped: idle or taken over');
    } catch (error) {
      this.problem('the leases could not be renewed', error);
    }
  }

  private async drop(facilityId: EntityId): Promise<void> {
    const controller = this.running.get(facilityId);
    this.running.delete(facilityId);
    await controller?.stop(this.settings.drainMs);
  }

  /**
   * Stops every controller (each sends what it queued, briefly), releases this instance's leases and asks
   * for a claim, so that another instance runs them at once (a rolling restart moves them). Once.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const timer of this.timers.splice(0)) clearInterval(timer);
      await this.work;
      const controllers = [...this.running.values()];
      this.running.clear();
      await Promise.allSettled(controllers.map((c) => c.stop(this.settings.drainMs)));
      try {
        const released = await repository.releaseLeases(this.parts.db, this.instance);
        if (released > 0) {
          this.parts.logger.info({ instance: this.instance, released }, 'sandbox controllers released');
          await this.parts.wakeClaims();
        }
      } catch (error) {
        // Their leases run out by themselves: another instance claims them then.
        this.problem('the leases could not be released', error);
      }
    })();
    return this.stopping;
  }

  private problem(what: string, error: unknown): void {
    const key = `${what}: ${(error as Error).message}`;
    if (this.problems.has(key)) return;
    if (this.problems.size >= 20) this.problems.clear();
    this.problems.add(key);
    this.parts.logger.warn({ err: error }, `sandbox controllers: ${what}`);
  }
}

const standing = (row: {
  online: boolean;
  activity_per_hour: number;
  offline_devices: readonly string[];
}): StandingControls => ({
  online: row.online,
  activityPerHour: row.activity_per_hour,
  offlineDevices: row.offline_devices,
});
