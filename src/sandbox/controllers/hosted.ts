// One hosted controller: the simulator's SimulatedFacility, run in this process against the service's own
// address with the controller's own credential, and what the integrator's controls do to it. The
// controller's copy (units, visitors, the last sequence applied) outlives the simulated site: taking the
// controller offline stops the site (no polls, no batches, no digests) and bringing it back starts a new
// one from the same copy; a new activity rate does the same. A controller that starts empty says what it
// holds at once (its digest), and the drift face's corrections bring it in step with the PMS.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.ts';
import type { Credential, GatewayEvent } from '../../simulator/client.ts';
import type { ReceivedCommand, WritableState } from '../../simulator/controller.ts';
import { digestOf, emptyState, itemsOf } from '../../simulator/controller.ts';
import { makeDrift } from '../../simulator/drift.ts';
import { SimulatedFacility } from '../../simulator/facility.ts';
import { newOutboxStats } from '../../simulator/outbox.ts';
import { type ControllerAction, FAILED_ON_REQUEST, siteActivity } from './rules.ts';

/** What the integrator set and the controller follows until told otherwise (sandbox_controllers' columns). */
export interface StandingControls {
  online: boolean;
  activityPerHour: number;
  offlineDevices: readonly string[];
}

const COMMAND_RECEIVED = 3;
const DEVICE_OFFLINE = 11;
const DEVICE_ONLINE = 12;

/**
 * The simulated site with two things a hosted controller adds: commands it was told to fail (acknowledged
 * as failed, with a reason, instead of applied), and devices held offline until the integrator brings them
 * back (no keypad entries at them, health reports them offline).
 */
class HostedFacility extends SimulatedFacility {
  constructor(
    baseUrl: string,
    credential: Credential,
    activityPerHour: number,
    onProblem: (sentence: string) => void,
    /** Whether the next command fails (counting it down). */
    private readonly failing: () => boolean,
  ) {
    super(baseUrl, credential, siteActivity(activityPerHour), Math.random, newOutboxStats(), onProblem);
    if (!(this.devices instanceof Map)) throw new Error('the simulated site keeps no device map: see devices');
  }

  override apply(command: ReceivedCommand): void {
    if (!this.failing()) {
      super.apply(command);
      return;
    }
    this.lastSequence = Math.max(this.lastSequence, command.sequence);
    this.counters.commandsFailed += 1;
    this.report({
      eventType: COMMAND_RECEIVED,
      details: `Command ${command.sequence} (${command.type}) failed`,
      data: {
        commandId: command.id,
        sequence: command.sequence,
        type: command.type,
        result: 'failed',
        reason: FAILED_ON_REQUEST,
      },
    });
  }

  /** An event to send in the next batch (at once: it is urgent), as having happened at `at`. */
  report(fields: Omit<GatewayEvent, 'eventId' | 'occurredAt'> & { eventId?: string }, at = Date.now()): void {
    this.outbox.push({ eventId: randomUUID(), occurredAt: new Date(at).toISOString(), ...fields }, true);
  }

  /**
   * The site's devices and whether each is online. SimulatedFacility keeps this map to itself (its keypads,
   * doors and health read it); this is the one place a hosted controller reaches it. Should the simulator
   * offer `setDeviceOnline(deviceId, online)`, this getter goes.
   */
  private get devices(): Map<string, boolean> {
    return (this as unknown as { online: Map<string, boolean> }).online;
  }

  /** Holds the site's device offline (or brings it back); a device the site does not simulate is only reported. */
  holdDevice(deviceId: string, online: boolean): void {
    if (this.devices.has(deviceId)) this.devices.set(deviceId, online);
  }
}

export class HostedController {
  private site: HostedFacility | null = null;
  /** The copy and the last sequence applied, kept while the site is stopped. */
  private state: WritableState = emptyState();
  private lastSequence = 0;
  private failNext = 0;
  private controls: StandingControls;
  /** The devices held offline at the site when last told (those no longer listed are brought back). */
  private heldBefore = new Set<string>();
  /** This controller's own digest under way (at start, after a drift). */
  private syncing: Promise<void> | null = null;
  private readonly problems = new Set<string>();

  constructor(
    readonly facilityId: number,
    private readonly baseUrl: string,
    private readonly credential: Credential,
    controls: StandingControls,
    private readonly logger: Logger,
  ) {
    this.controls = { ...controls, offlineDevices: [...controls.offlineDevices] };
  }

  get isOnline(): boolean {
    return this.site !== null;
  }

  /** Commands still to be failed on request. */
  get failing(): number {
    return this.failNext;
  }

  /** Starts the site when the controller is online; it then says what it holds. */
  start(): void {
    if (this.controls.online) this.startSite(true);
  }

  /** Stops the site, sending what it queued for at most `drainMs`; the copy is kept. */
  async stop(drainMs: number): Promise<void> {
    const site = this.site;
    if (!site) return;
    this.site = null;
    await site.stop(drainMs);
    await this.syncing;
    this.state = site.state;
    this.lastSequence = site.lastSequence;
  }

  /** The site's keypads, doors and health due by `now` (the runner's tick). */
  tick(now: number): void {
    this.site?.tick(now);
  }

  /** Follows the integrator's standing controls: online or not, the activity rate, the devices held offline. */
  async follow(controls: StandingControls, drainMs: number): Promise<void> {
    const before = this.controls;
    this.controls = { ...controls, offlineDevices: [...controls.offlineDevices] };
    if (!controls.online) return this.stop(drainMs);
    if (!this.site) return this.startSite(true);
    if (controls.activityPerHour !== before.activityPerHour) {
      // The site draws its next entry from its rate when it starts: a new rate is a new site, the same copy.
      await this.stop(drainMs);
      return this.startSite(false);
    }
    if (controls.offlineDevices.join('\n') !== before.offlineDevices.join('\n')) this.holdDevices(this.site);
  }

  /** Does what the integrator asked once (the runner takes actions only for an online controller). */
  act(action: ControllerAction, requestedAt: Date): void {
    const site = this.site;
    if (!site) throw new Error('an action reached a controller that is offline');
    switch (action.kind) {
      case 'event': {
        const { eventId, ...fields } = action.payload;
        // As a controller reports what happened while it was offline: when it happened.
        site.report({ eventId, ...fields }, requestedAt.getTime());
        if (fields.deviceId && (fields.eventType === DEVICE_OFFLINE || fields.eventType === DEVICE_ONLINE))
          site.holdDevice(fields.deviceId, fields.eventType === DEVICE_ONLINE);
        break;
      }
      case 'fail-next':
        this.failNext = action.payload.count;
        break;
      case 'drift': {
        const { state, events } = makeDrift(site.state, action.payload, Math.random);
        site.state = state;
        for (const event of events) site.report(event, requestedAt.getTime());
        this.sync(site);
        break;
      }
    }
  }

  private startSite(sayWhatItHolds: boolean): void {
    const site = new HostedFacility(
      this.baseUrl,
      this.credential,
      this.controls.activityPerHour,
      (sentence) => this.problem(sentence),
      () => {
        if (this.failNext <= 0) return false;
        this.failNext -= 1;
        return true;
      },
    );
    site.state = this.state;
    site.lastSequence = this.lastSequence;
    this.holdDevices(site);
    this.site = site;
    site.start();
    // The site's own digest waits for its first poll's answer (up to 30 s when no command waits).
    if (sayWhatItHolds) this.sync(site);
  }

  private holdDevices(site: HostedFacility): void {
    const offline = new Set(this.controls.offlineDevices);
    for (const deviceId of offline) site.holdDevice(deviceId, false);
    // A device brought back by a control whose event 12 is still on its way: online from now on.
    for (const deviceId of this.heldBefore) if (!offline.has(deviceId)) site.holdDevice(deviceId, true);
    this.heldBefore = offline;
  }

  /**
   * Says what the controller holds now (the two steps of SPEC §4.1), one digest at a time: the service
   * answers in sync, or queues the corrections its long poll then brings.
   */
  private sync(site: HostedFacility): void {
    if (this.syncing) return;
    this.syncing = (async () => {
      const answer = await site.client.digest({ appliedSequence: site.lastSequence, ...digestOf(site.state) });
      if (answer.status === 'differs' && answer.buckets)
        await site.client.digestItems({
          appliedSequence: site.lastSequence,
          ...itemsOf(site.state, answer.buckets),
        });
    })()
      .catch((error: unknown) => this.problem(`its digest failed (${(error as Error).message})`))
      .finally(() => {
        this.syncing = null;
      });
  }

  /** Each kind of failure once per controller, in words (never a secret: the simulator's sentences name the client id). */
  private problem(sentence: string): void {
    if (this.problems.has(sentence)) return;
    if (this.problems.size >= 20) this.problems.clear();
    this.problems.add(sentence);
    this.logger.warn({ facilityId: this.facilityId, problem: sentence }, 'sandbox controller: a call failed');
  }
}
