// One simulated facility: its gateway controller (long-polls commands, applies them to its copy,
// acknowledges each with an event 3) and its site — keypads where visitors type codes, unit doors,
// devices that drop off and come back, open hours, a health report. Decisions are the pure rules
// of decide.ts; randomness comes from a seeded generator, so a run can be repeated.
import type { EntityId } from '../ids.ts';
import { randomUUID } from 'node:crypto';
import { GatewayClient, HttpError, type Credential, type GatewayEvent } from './client.ts';
import { applyInPlace, digestOf, emptyState, itemsOf, type WritableState, type ReceivedCommand } from './controller.ts';
import {
  commandReports,
  decideEntry,
  doorOpened,
  EVENT,
  GATE,
  nextLockout,
  noLockout,
  openingChange,
  type Keypad,
  type KeypadLockout,
} from './decide.ts';
import { canDrift, type DriftPlan, makeDrift, randomDriftPlan } from './drift.ts';
import { describeFailure } from './failures.ts';
import { Outbox, type OutboxStats } from './outbox.ts';

export interface ActivityOptions {
  /** Codes typed per minute at this facility (all keypads). */
  entriesPerMinute: number;
  /** Share of attempts with a code nobody has (0–1). */
  wrongCodeShare: number;
  /** Share of grants after which the visitor opens their unit door (0–1). */
  doorAfterGrantShare: number;
  /** Unit doors opened without a grant (alarms), per hour. */
  doorAlarmsPerHour: number;
  /** Devices going offline, per hour. */
  deviceDropsPerHour: number;
  healthIntervalSeconds: number;
  pollWaitSeconds: number;
  batchSize: number;
  flushMs: number;
  /** Seconds between digests when nothing else makes one (SPEC §4.1: 900). */
  digestIntervalSeconds: number;
  /** Local changes at the controller (a visitor lost, a unit altered, a code added), per hour. */
  driftsPerHour: number;
  /** One drift to make as soon as the controller is in sync and holds enough (`--drift`), or null. */
  driftPlan: DriftPlan | null;
  /** Share of commands the controller fails to apply (acknowledged as failed, with a reason). */
  failShare: number;
}

export interface FacilityCounters {
  commandsApplied: number;
  commandsFailed: number;
  pollErrors: number;
  /** Digests sent, and how many of them the service found drift in (it queued corrections). */
  digests: number;
  driftsFound: number;
  localChanges: number;
  byType: Map<number, number>;
}

/** Commands a poll asks for; a shorter answer means the controller has caught up. */
const POLL_LIMIT = 100;

const KEYPADS: Keypad[] = [
  { id: 'kp-gate', name: 'Main Gate Keypad', area: 'gate' },
  { id: 'kp-building-a', name: 'Building A Door Keypad', area: 'building-a' },
];
const ALARM_BOARD = { id: 'alarm-board-1', name: 'Unit Alarm Board 1' };
const DEVICES = [...KEYPADS.map(({ id, name }) => ({ id, name })), ALARM_BOARD, GATE];

/** mulberry32: a small, fast, seeded generator. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

export class SimulatedFacility {
  state: WritableState = emptyState();
  lastSequence = 0;
  readonly client: GatewayClient;
  readonly outbox: Outbox;
  readonly counters: FacilityCounters = {
    commandsApplied: 0,
    commandsFailed: 0,
    pollErrors: 0,
    digests: 0,
    driftsFound: 0,
    localChanges: 0,
    byType: new Map(),
  };
  private readonly lockouts = new Map<string, KeypadLockout>();
  private readonly online = new Map<string, boolean>(DEVICES.map((d) => [d.id, true]));
  private readonly lastGrant = new Map<EntityId, number>();
  private readonly timers: { at: number; run: () => void }[] = [];
  private isOpen: boolean | null = null;
  private nextEntryAt: number;
  private nextHealthAt: number;
  private lastHealthAt = Date.now();
  private readonly abort = new AbortController();
  private polling: Promise<void> | null = null;
  /** The digest under way, whether one is wanted (connected, caught up, changed locally), and when one is due. */
  private syncing: Promise<void> | null = null;
  private syncWanted = false;
  private nextDigestAt = Number.POSITIVE_INFINITY;
  private digestsRefused = false;
  private driftPlan: DriftPlan | null;
  /**
   * The service refused this controller's credential itself (its token request answered 400, 401,
   * 403 or 404): trying again cannot help until someone fixes the credential or the URL.
   */
  refused = false;

  constructor(
    baseUrl: string,
    credential: Credential,
    private readonly options: ActivityOptions,
    private readonly random: () => number,
    stats: OutboxStats,
    /** Told of each failure, in words (failures.ts). */
    private readonly onProblem: (sentence: string) => void,
  ) {
    this.client = new GatewayClient(baseUrl, credential);
    this.outbox = new Outbox(
      (events) => this.client.sendEvents(events),
      {
        batchSize: options.batchSize,
        flushMs: options.flushMs,
        maxQueued: 50_000,
        onFailure: (error) => this.failed(error),
      },
      stats,
    );
    const now = Date.now();
    this.nextEntryAt = now + this.interval(options.entriesPerMinute / 60);
    this.nextHealthAt = now + options.healthIntervalSeconds * 1000 * this.random();
    this.driftPlan = options.driftPlan;
  }

  start(): void {
    this.polling ??= this.pollCommands();
  }

  async stop(drainMs: number): Promise<void> {
    this.abort.abort();
    await this.polling;
    await this.syncing;
    await this.outbox.drain(Date.now() + drainMs);
  }

  // ---- the command loop ----

  private async pollCommands(): Promise<void> {
    let backoff = 500;
    // A full page may have more behind it: the next poll then answers at once instead of waiting.
    let full = false;
    // Commands applied since its last digest (or none sent yet): the next time it catches up, it says what it holds.
    let changed = true;
    while (!this.abort.signal.aborted) {
      try {
        const commands = await this.client.commands(
          this.lastSequence,
          full ? 0 : this.options.pollWaitSeconds,
          POLL_LIMIT,
          this.abort.signal,
        );
        for (const command of commands) this.apply(command);
        full = commands.length === POLL_LIMIT;
        changed ||= commands.length > 0;
        // Connected, or caught up after applying commands: say what it holds (SPEC §4.1).
        if (!full && changed) {
          this.syncWanted = true;
          changed = false;
        }
        backoff = 500;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.counters.pollErrors += 1;
        this.failed(error);
        await sleep(
          error instanceof HttpError && error.retryAfterMs !== null ? error.retryAfterMs : backoff,
          this.abort.signal,
        );
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  private failed(error: unknown): void {
    if (error instanceof HttpError && error.call === 'token' && [400, 401, 403, 404].includes(error.status))
      this.refused = true;
    this.onProblem(describeFailure(error, this.client.baseUrl, this.client.clientId));
  }

  /**
   * Applies a command to the controller's copy and acknowledges it (event 3 with data.commandId) — or,
   * for a share of them (`failShare`), fails to apply it and acknowledges it as failed, with a reason.
   */
  apply(command: ReceivedCommand): void {
    this.lastSequence = Math.max(this.lastSequence, command.sequence);
    if (this.options.failShare > 0 && this.random() < this.options.failShare) {
      this.counters.commandsFailed += 1;
      const reason = 'Simulated failure: the keypad controller did not accept the change';
      this.emit(
        {
          eventType: EVENT.COMMAND_RECEIVED,
          details: `Command ${command.sequence} (${command.type}) failed`,
          data: { commandId: command.id, sequence: command.sequence, type: command.type, result: 'failed', reason },
        },
        Date.now(),
        true,
      );
      return;
    }
    applyInPlace(this.state, command);
    this.counters.commandsApplied += 1;
    this.emit(
      {
        eventType: EVENT.COMMAND_RECEIVED,
        details: `Command ${command.sequence} (${command.type}) applied`,
        data: { commandId: command.id, sequence: command.sequence, type: command.type },
      },
      Date.now(),
      true,
    );
    for (const report of commandReports(command)) this.emit(report, Date.now(), true);
  }

  // ---- what it holds, told to the service (SPEC §4.1 "Drift") ----

  /** A digest when one is wanted or due, one at a time. */
  private maybeSync(now: number): void {
    if (this.syncing || this.digestsRefused || !(this.syncWanted || now >= this.nextDigestAt)) return;
    this.syncWanted = false;
    this.syncing = this.sync()
      .catch((error) => {
        if (error instanceof HttpError && error.call === 'digest' && error.status === 404) this.digestsRefused = true;
        this.failed(error);
        // Try again at the next poll's end or in a minute.
        this.nextDigestAt = Date.now() + 60_000;
      })
      .finally(() => {
        this.syncing = null;
      });
  }

  /** Its digest; the items of the buckets that differ when asked; a planned drift once it is in sync. */
  private async sync(): Promise<void> {
    const answer = await this.client.digest({ appliedSequence: this.lastSequence, ...digestOf(this.state) });
    this.counters.digests += 1;
    // The service says when; a controller told to digest more often (--digest-interval) does.
    const seconds = Math.min(answer.nextDigestSeconds, this.options.digestIntervalSeconds);
    this.nextDigestAt = Date.now() + seconds * 1000;
    if (answer.status === 'differs' && answer.buckets) {
      const items = await this.client.digestItems({
        appliedSequence: this.lastSequence,
        ...itemsOf(this.state, answer.buckets),
      });
      if (items.status === 'correcting') this.counters.driftsFound += 1;
    } else if (answer.status === 'in-sync' && this.driftPlan && canDrift(this.state, this.driftPlan)) {
      this.drift(this.driftPlan, Date.now());
      this.driftPlan = null;
    }
  }

  /** A local change: the copy drifts from the PMS; what a person did is reported; a digest follows. */
  private drift(plan: DriftPlan, now: number): void {
    const { state, events } = makeDrift(this.state, plan, this.random);
    this.state = state;
    this.counters.localChanges += 1;
    for (const event of events) this.emit(event, now, true);
    this.syncWanted = true;
  }

  // ---- the site ----

  /** Everything due by `now`: keypad entries, doors, devices, open hours, health; then the outbox. */
  tick(now: number): void {
    const opening = openingChange(this.isOpen, this.state.timeZone, now);
    this.isOpen = opening.isOpen;
    if (opening.eventType !== null)
      this.emit({ eventType: opening.eventType, details: opening.isOpen ? 'Facility opened' : 'Facility closed' }, now);

    while (this.nextEntryAt <= now) {
      this.entry(this.nextEntryAt);
      this.nextEntryAt += this.interval(this.options.entriesPerMinute / 60);
    }
    if (this.chance(this.options.doorAlarmsPerHour / 3600, now, 'door alarm')) this.openDoor(now, undefined);
    if (this.chance(this.options.deviceDropsPerHour / 3600, now, 'device drop')) this.dropDevice(now);
    if (this.chance(this.options.driftsPerHour / 3600, now, 'local change'))
      this.drift(randomDriftPlan(this.random), now);
    this.runTimers(now);
    this.maybeSync(now);
    if (now >= this.nextHealthAt) this.health(now);
    this.outbox.maybeFlush(now);
  }

  private readonly startedAt = Date.now();
  private readonly chanceClock = new Map<string, number>();

  /** Whether a Poisson event of `ratePerSecond` happened since this kind was last checked. */
  private chance(ratePerSecond: number, now: number, kind: string): boolean {
    const last = this.chanceClock.get(kind) ?? this.startedAt;
    this.chanceClock.set(kind, now);
    const seconds = Math.max(0, now - last) / 1000;
    return ratePerSecond > 0 && this.random() < 1 - Math.exp(-ratePerSecond * seconds);
  }

  private interval(ratePerSecond: number): number {
    if (ratePerSecond <= 0) return Number.POSITIVE_INFINITY;
    return (-Math.log(1 - this.random()) / ratePerSecond) * 1000;
  }

  private pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.random() * items.length)];
  }

  private entry(at: number): void {
    const keypad = this.pick(KEYPADS.filter((k) => this.online.get(k.id)));
    if (!keypad) return;
    const visitors = [...this.state.visitors.values()];
    let code: string;
    if (visitors.length === 0 || this.random() < this.options.wrongCodeShare) {
      if (visitors.length === 0 && this.options.wrongCodeShare === 0) return;
      code = this.wrongCode();
    } else {
      code = this.pick(visitors)!.accessCode;
    }
    const lockout = this.lockouts.get(keypad.id) ?? noLockout;
    const decision = decideEntry(this.state, keypad, code, at, lockout);
    this.lockouts.set(keypad.id, nextLockout(lockout, decision.eventType, at));
    this.emit(
      {
        eventType: decision.eventType,
        deviceId: keypad.id,
        deviceName: keypad.name,
        ...(decision.unitId ? { unitId: decision.unitId } : {}),
        ...(decision.visitorId ? { visitorId: decision.visitorId } : {}),
        codeEntered: code,
        details: decision.details,
      },
      at,
    );
    if (decision.eventType === EVENT.ACCESS_GRANTED && decision.unitId) {
      const unitId = decision.unitId;
      this.lastGrant.set(unitId, at);
      if (this.random() < this.options.doorAfterGrantShare)
        this.later(at + 2000 + this.random() * 6000, () => this.openDoor(Date.now(), unitId));
    }
  }

  private wrongCode(): string {
    for (;;) {
      const code = String(Math.floor(this.random() * 1_000_000)).padStart(6, '0');
      if (![...this.state.visitors.values()].some((v) => v.isEnabled && v.accessCode === code)) return code;
    }
  }

  private openDoor(at: number, unitId: EntityId | undefined): void {
    if (!this.online.get(ALARM_BOARD.id)) return;
    const id = unitId ?? this.pick([...this.state.units.keys()]);
    if (!id) return;
    const unit = this.state.units.get(id);
    const eventType = doorOpened(this.lastGrant.get(id), at);
    const alarm = eventType === EVENT.UNIT_DOOR_ALARM;
    const name = unit ? `Unit ${unit.unitNumber}` : 'Unit';
    const board = { deviceId: ALARM_BOARD.id, deviceName: ALARM_BOARD.name, unitId: id };
    this.emit(
      {
        eventType,
        ...board,
        details: alarm ? `${name} door opened without access: alarm` : `${name} door opened`,
        ...(alarm ? { data: { active: true } } : {}),
      },
      at,
    );
    this.later(at + 5000 + this.random() * 15_000, () => {
      const closedAt = Date.now();
      this.emit({ eventType: EVENT.UNIT_DOOR_CLOSED, ...board, details: `${name} door closed` }, closedAt);
      // The door is shut again: the alarm clears (SPEC §5, data.active false).
      if (alarm)
        this.emit(
          {
            eventType: EVENT.UNIT_DOOR_ALARM,
            ...board,
            details: `${name} door alarm cleared`,
            data: { active: false },
          },
          closedAt,
        );
    });
  }

  private dropDevice(at: number): void {
    const device = this.pick(DEVICES.filter((d) => this.online.get(d.id)));
    if (!device) return;
    this.online.set(device.id, false);
    this.emit(
      {
        eventType: EVENT.DEVICE_OFFLINE,
        deviceId: device.id,
        deviceName: device.name,
        details: `${device.name} missed its heartbeats`,
      },
      at,
    );
    this.later(at + 20_000 + this.random() * 100_000, () => {
      this.online.set(device.id, true);
      this.emit(
        {
          eventType: EVENT.DEVICE_ONLINE,
          deviceId: device.id,
          deviceName: device.name,
          details: `${device.name} is communicating again`,
        },
        Date.now(),
      );
    });
  }

  private health(now: number): void {
    const counts = this.counters.byType;
    this.emit(
      {
        eventType: EVENT.HEALTH_STATUS,
        details: 'Controller health',
        data: {
          devices: DEVICES.map((d) => ({ id: d.id, name: d.name, online: this.online.get(d.id) })),
          units: this.state.units.size,
          visitors: this.state.visitors.size,
          lastSequence: this.lastSequence,
          granted: counts.get(EVENT.ACCESS_GRANTED) ?? 0,
          denied: [15, 16, 17, 19, 24].reduce((n, t) => n + (counts.get(t) ?? 0), 0),
          sinceSeconds: Math.round((now - this.lastHealthAt) / 1000),
        },
      },
      now,
    );
    this.lastHealthAt = now;
    this.nextHealthAt = now + this.options.healthIntervalSeconds * 1000;
  }

  private later(at: number, run: () => void): void {
    this.timers.push({ at, run });
  }

  private runTimers(now: number): void {
    const due = this.timers.filter((t) => t.at <= now);
    if (due.length === 0) return;
    for (const t of due) this.timers.splice(this.timers.indexOf(t), 1);
    for (const t of due) t.run();
  }

  private emit(fields: Omit<GatewayEvent, 'eventId' | 'occurredAt'>, at: number, urgent = false): void {
    this.counters.byType.set(fields.eventType, (this.counters.byType.get(fields.eventType) ?? 0) + 1);
    this.outbox.push({ eventId: randomUUID(), occurredAt: new Date(at).toISOString(), ...fields }, urgent);
  }
}
