// The facility status rules of SPEC §4.1, as pure functions: what a batch of a controller's events
// says about its facility (the reported state), which status word each part of the facility shows,
// whether a remote switch (emergency, lockdown) needs a new command, and the maintenance windows
// (issue 28: which one is underway, what a new one may be). Ingest, the status routes, the
// status-change job and the simulator decide through these; they are tested without I/O.

/** Event types the reported state follows (SPEC §7). */
export const STATUS_EVENTS = {
  doorAlarm: 10,
  deviceOffline: 11,
  deviceOnline: 12,
  tamper: 26,
  actionGroupLog: 29,
  emergency: 31,
  lockdown: 32,
  unitDoorAlarm: 35,
  deviceDetected: 36,
  deviceComponentStatus: 37,
  devicePairing: 38,
} as const;

export const ALARM_EVENT_TYPES: readonly number[] = [
  STATUS_EVENTS.doorAlarm,
  STATUS_EVENTS.tamper,
  STATUS_EVENTS.unitDoorAlarm,
];
/** The types whose data carries a flag the state reads (active, enabled, paired). */
export const STATUS_DATA_EVENT_TYPES: readonly number[] = [
  ...ALARM_EVENT_TYPES,
  STATUS_EVENTS.emergency,
  STATUS_EVENTS.lockdown,
  STATUS_EVENTS.devicePairing,
];
const ALARM_NAMES: Record<number, string> = { 10: 'Door alarm', 26: 'Tamper', 35: 'Unit door alarm' };

/** Thresholds of the status words (SPEC §4.1). */
export const GATEWAY_OK_MS = 2 * 60_000;
export const GATEWAY_WARNING_MS = 15 * 60_000;
export const COMMAND_WARNING_MS = 5 * 60_000;
export const COMMAND_ERROR_MS = 60 * 60_000;

// ---- the reported state, from a batch of stored events ----

/** A stored event as the reported state reads it. */
export interface ReportedEvent {
  eventType: number;
  /** Epoch ms, as stored (ingest has already replaced a time far ahead of the clock). */
  occurredAt: number;
  deviceId: string | null;
  deviceName: string | null;
  unitId: number | null;
  /** The event's data object (parsed), or null. */
  data: Record<string, unknown> | null;
}

export interface DeviceReport {
  deviceId: string;
  /** The newest name the batch gave the device (null: none). */
  name: string | null;
  lastEventType: number;
  lastEventAt: number;
  /** From the newest 11/12 of the batch: offline or not, and when (null: the batch says nothing). */
  offline: { value: boolean; at: number } | null;
  /** From the newest 36/38: paired or not ("removed"), and when. */
  paired: { value: boolean; at: number } | null;
}

export interface AlarmReport {
  eventType: number;
  /** What raised it: `device:<id>`, `unit:<id>`, or `facility` when the event names neither. */
  source: string;
  deviceId: string | null;
  deviceName: string | null;
  unitId: number | null;
  active: boolean;
  at: number;
}

export interface SwitchReport {
  enabled: boolean;
  at: number;
}

export interface BatchReport {
  devices: DeviceReport[];
  alarms: AlarmReport[];
  emergency: SwitchReport | null;
  lockdown: SwitchReport | null;
}

/**
 * A flag of an event's data: true or false as sent; absent or not a boolean reads as true — an
 * alarm event without `data.active` is an alarm that appeared, an emergency or lockdown event
 * without `data.enabled` reports the mode as entered (the event's name says so).
 */
export function eventFlag(data: Record<string, unknown> | null, name: string): boolean {
  const value = data?.[name];
  return typeof value === 'boolean' ? value : true;
}

/**
 * When an event counts for the reported state: its occurredAt, but never later than when it was
 * received. Ingest already replaces a time more than 5 minutes ahead; this keeps a device whose
 * clock runs a few minutes fast from outranking what the service hears next.
 */
export const reportedAt = (occurredAt: number, receivedAt: number) => Math.min(occurredAt, receivedAt);

const newer = <T extends { at: number }>(current: T | null, next: T): T =>
  current === null || next.at >= current.at ? next : current;

/** What a batch says, reduced to one report per device, alarm and switch (the newest wins). */
export function reduceBatch(events: readonly ReportedEvent[], receivedAt: number): BatchReport {
  const devices = new Map<string, DeviceReport>();
  const alarms = new Map<string, AlarmReport>();
  let emergency: SwitchReport | null = null;
  let lockdown: SwitchReport | null = null;
  for (const event of events) {
    const at = reportedAt(event.occurredAt, receivedAt);
    const type = event.eventType;
    if (event.deviceId !== null) {
      let device = devices.get(event.deviceId);
      if (!device) {
        device = {
          deviceId: event.deviceId,
          name: event.deviceName,
          lastEventType: type,
          lastEventAt: at,
          offline: null,
          paired: null,
        };
        devices.set(event.deviceId, device);
      } else if (at >= device.lastEventAt) {
        device.lastEventType = type;
        device.lastEventAt = at;
        device.name = event.deviceName ?? device.name;
      } else {
        device.name ??= event.deviceName;
      }
      if (type === STATUS_EVENTS.deviceOffline || type === STATUS_EVENTS.deviceOnline)
        device.offline = newer(device.offline, { value: type === STATUS_EVENTS.deviceOffline, at });
      if (type === STATUS_EVENTS.deviceDetected) device.paired = newer(device.paired, { value: true, at });
      if (type === STATUS_EVENTS.devicePairing)
        device.paired = newer(device.paired, { value: eventFlag(event.data, 'paired'), at });
    }
    if (ALARM_EVENT_TYPES.includes(type)) {
      const source =
        type === STATUS_EVENTS.unitDoorAlarm && event.unitId !== null
          ? `unit:${event.unitId}`
          : event.deviceId !== null
            ? `device:${event.deviceId}`
            : 'facility';
      const key = `${type} ${source}`;
      const report: AlarmReport = {
        eventType: type,
        source,
        deviceId: event.deviceId,
        deviceName: event.deviceName,
        unitId: event.unitId,
        active: eventFlag(event.data, 'active'),
        at,
      };
      alarms.set(key, newer(alarms.get(key) ?? null, report));
    }
    if (type === STATUS_EVENTS.emergency)
      emergency = newer(emergency, { enabled: eventFlag(event.data, 'enabled'), at });
    if (type === STATUS_EVENTS.lockdown) lockdown = newer(lockdown, { enabled: eventFlag(event.data, 'enabled'), at });
  }
  return { devices: [...devices.values()], alarms: [...alarms.values()], emergency, lockdown };
}

/** What this instance last wrote of a facility's reported state (see reported-state.ts). */
export interface WrittenState {
  heardAt: number;
  devices: Map<string, WrittenDevice>;
}

type WrittenDevice = { type: number; name: string | null; at: number };

/**
 * Whether a device's report changes its stored row: a word on being online or paired, a device not
 * written yet, or a newer last event of another type or name, or `stepMs` past the one written
 * (its last event is kept to that step). The upkeep's statement says the same in SQL.
 */
export function deviceReportWrites(d: DeviceReport, last: WrittenDevice | undefined, stepMs: number): boolean {
  return (
    last === undefined ||
    d.offline !== null ||
    d.paired !== null ||
    (d.lastEventAt > last.at &&
      (d.lastEventType !== last.type || (d.name !== null && d.name !== last.name) || d.lastEventAt > last.at + stepMs))
  );
}

/**
 * Whether a batch's report would change what is stored, given what this instance last wrote: any
 * alarm or switch does, so does a device row that changes (deviceReportWrites), or last heard
 * `stepMs` past the one written.
 */
export function reportShows(
  report: BatchReport,
  receivedAt: number,
  written: WrittenState | undefined,
  stepMs: number,
) {
  if (report.emergency || report.lockdown || report.alarms.length > 0 || !written) return true;
  if (receivedAt > written.heardAt + stepMs) return true;
  return report.devices.some((d) => deviceReportWrites(d, written.devices.get(d.deviceId), stepMs));
}

// ---- the status words ----

/**
 * The status words, by rank: `maintenance` (a window the operator scheduled is underway) outranks
 * ok and is outranked by a real warning or error — an alarm, or changes not reaching the site, still
 * show over it.
 */
export const STATUS_WORDS = ['ok', 'maintenance', 'warning', 'error'] as const;
export type StatusWord = (typeof STATUS_WORDS)[number];
export interface Status {
  status: StatusWord;
  message: string;
}

/** What the status of one facility is decided from (read in one query: status-repository.ts). */
export interface StatusFacts {
  lastEventReceivedAt: number | null;
  lastPolledAt: number | null;
  deviceCount: number;
  /** Names (or ids, when unnamed) of paired devices whose last 11/12 said offline. */
  offlineDevices: string[];
  /** "Door alarm at Gate 1", … */
  activeAlarms: string[];
  emergencyReported: boolean | null;
  lockdownReported: boolean | null;
  /** Commands neither acknowledged nor expired, and the oldest one's creation (epoch ms). */
  pendingCommands: number;
  oldestPendingAt: number | null;
  /** The facility's maintenance windows not over when read (the current and the future ones). */
  maintenanceWindows: MaintenanceWindowTimes[];
  /** The controller's drift from the PMS not yet healed (src/drift): when found, how many items. */
  openDrift: { foundAt: number; items: number } | null;
}

export interface FacilityStatuses {
  gateway: Status;
  device: Status;
  alarm: Status;
  pmsInterface: Status;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const list = (names: readonly string[], most = 5) =>
  names.length <= most ? names.join(', ') : `${names.slice(0, most).join(', ')} and ${names.length - most} more`;

/** When the controller was last heard from: its last events or its last poll, whichever is later. */
export function lastHeard(facts: Pick<StatusFacts, 'lastEventReceivedAt' | 'lastPolledAt'>): number | null {
  const { lastEventReceivedAt: events, lastPolledAt: poll } = facts;
  if (events === null) return poll;
  return poll === null ? events : Math.max(events, poll);
}

/**
 * During a maintenance window a part that would be ok, warning or error for the controller's or the
 * devices' sake says `maintenance` instead: the operator said they would be offline. The message
 * names the window's end and reason, then what the part would otherwise say.
 */
function duringMaintenance(status: Status, window: MaintenanceWindowTimes | null): Status {
  if (window === null) return status;
  const note = `Maintenance until ${iso(effectiveEnd(window))}${window.reason ? ` (${window.reason})` : ''}`;
  return { status: 'maintenance', message: `${note}: ${status.message[0]!.toLowerCase()}${status.message.slice(1)}` };
}

export function gatewayStatus(facts: StatusFacts, now: number): Status {
  return duringMaintenance(controllerStatus(facts, now), maintenanceAt(facts.maintenanceWindows, now));
}

function controllerStatus(facts: StatusFacts, now: number): Status {
  const heard = lastHeard(facts);
  if (heard === null) return { status: 'error', message: 'The gateway controller has never connected.' };
  const silent = now - heard;
  if (silent <= GATEWAY_OK_MS) return { status: 'ok', message: `Connected; last heard at ${iso(heard)}.` };
  return {
    status: silent <= GATEWAY_WARNING_MS ? 'warning' : 'error',
    message: `Not heard from since ${iso(heard)}.`,
  };
}

export function deviceStatus(facts: StatusFacts, now: number): Status {
  return duringMaintenance(devicesStatus(facts), maintenanceAt(facts.maintenanceWindows, now));
}

function devicesStatus(facts: StatusFacts): Status {
  if (facts.offlineDevices.length > 0) {
    const n = facts.offlineDevices.length;
    return { status: 'error', message: `${n} device${n === 1 ? '' : 's'} offline: ${list(facts.offlineDevices)}.` };
  }
  if (facts.deviceCount === 0) return { status: 'ok', message: 'No devices reported yet.' };
  return { status: 'ok', message: `All ${facts.deviceCount} devices online.` };
}

export function alarmStatus(facts: StatusFacts): Status {
  if (facts.activeAlarms.length > 0) {
    const n = facts.activeAlarms.length;
    return { status: 'error', message: `${n} active alarm${n === 1 ? '' : 's'}: ${list(facts.activeAlarms)}.` };
  }
  const modes = [
    ...(facts.emergencyReported ? ['Emergency access is on'] : []),
    ...(facts.lockdownReported ? ['The facility is locked down'] : []),
  ];
  if (modes.length > 0) return { status: 'warning', message: `${modes.join('; ')}.` };
  return { status: 'ok', message: 'No active alarms.' };
}

/** Whether changes reach the site: commands acknowledged in time, and what the controller holds agreeing with the PMS. */
export function pmsInterfaceStatus(facts: StatusFacts, now: number): Status {
  const commands = commandsStatus(facts, now);
  if (facts.openDrift === null) return commands;
  const n = facts.openDrift.items;
  const drift = `The controller has differed from the PMS since ${iso(facts.openDrift.foundAt)} (${n} item${n === 1 ? '' : 's'}); corrections are on their way.`;
  // A drift is a warning; commands that are not reaching the site stay the error they are.
  if (commands.status === 'error') return { status: 'error', message: `${commands.message} ${drift}` };
  return { status: 'warning', message: commands.status === 'warning' ? `${commands.message} ${drift}` : drift };
}

function commandsStatus(facts: StatusFacts, now: number): Status {
  if (facts.oldestPendingAt === null || facts.pendingCommands === 0)
    return { status: 'ok', message: 'Every change has reached the site.' };
  const age = now - facts.oldestPendingAt;
  const n = facts.pendingCommands;
  const what = `${n} command${n === 1 ? '' : 's'} not yet acknowledged, the oldest since ${iso(facts.oldestPendingAt)}.`;
  if (age > COMMAND_ERROR_MS) return { status: 'error', message: `Changes are not reaching the site: ${what}` };
  if (age > COMMAND_WARNING_MS) return { status: 'warning', message: `Changes are slow to reach the site: ${what}` };
  return { status: 'ok', message: `${what.slice(0, -1)}; within the usual delay.` };
}

export function facilityStatuses(facts: StatusFacts, now: number): FacilityStatuses {
  return {
    gateway: gatewayStatus(facts, now),
    device: deviceStatus(facts, now),
    alarm: alarmStatus(facts),
    pmsInterface: pmsInterfaceStatus(facts, now),
  };
}

const RANK = Object.fromEntries(STATUS_WORDS.map((word, rank) => [word, rank])) as Record<StatusWord, number>;

/** The facility's overall word: the worst part's, with the messages of every part at that level. */
export function overallStatus(statuses: FacilityStatuses): Status {
  const parts: Status[] = Object.values(statuses);
  const worst = parts.reduce<StatusWord>((w, s) => (RANK[s.status] > RANK[w] ? s.status : w), 'ok');
  if (worst === 'ok') return { status: 'ok', message: 'Everything is working.' };
  return {
    status: worst,
    message: parts
      .filter((s) => s.status === worst)
      .map((s) => s.message)
      .join(' '),
  };
}

/** "Door alarm at Gate 1", "Unit door alarm at unit 104", "Tamper". */
export function alarmLabel(alarm: {
  eventType: number;
  deviceName: string | null;
  deviceId: string | null;
  unitNumber: string | null;
}): string {
  const name = ALARM_NAMES[alarm.eventType] ?? `Alarm ${alarm.eventType}`;
  if (alarm.eventType === STATUS_EVENTS.unitDoorAlarm && alarm.unitNumber) return `${name} at unit ${alarm.unitNumber}`;
  const where = alarm.deviceName ?? alarm.deviceId;
  return where ? `${name} at ${where}` : name;
}

// ---- remote switches ----

export type FacilitySwitch = 'emergency' | 'lockdown';

/**
 * Whether asking for `requested` needs a command. Asking again for what is already asked for
 * sends nothing new (200 with the command underway, or with none when the controller already
 * reports it) — a repeat of an action in effect answers the current state (SPEC §4). It does send
 * one when the controller's report disagrees and nothing is underway: the request is then the
 * operator's way to put the site right.
 */
export function needsSwitchCommand(state: {
  requested: boolean;
  desired: boolean | null;
  reported: boolean | null;
  /** The newest command for this switch is neither acknowledged nor expired. */
  underway: boolean;
}): boolean {
  if (state.desired !== state.requested) return true;
  if (state.underway) return false;
  return state.reported !== state.requested;
}

// ---- remote actions (issue 28) ----

/** A remote action's reason: at most this many characters (SPEC §4.1). */
export const REMOTE_ACTION_REASON_MAX = 200;

/** What a remote action's answer says of the controller: heard within GATEWAY_OK_MS (the gateway's "ok"), or not. */
export interface ControllerContact {
  lastHeardAt: string | null;
  connected: boolean;
  message: string;
}

/**
 * Whether the controller that is to run a remote action has been heard lately (the status list's
 * threshold), and what to tell the person who asked. A command for a silent controller still waits
 * for it, as every command does: the answer only says so.
 */
export function controllerContact(heard: number | null, now: number): ControllerContact {
  if (heard === null)
    return {
      lastHeardAt: null,
      connected: false,
      message: 'The controller has never connected; the command waits for it.',
    };
  const lastHeardAt = new Date(heard).toISOString();
  if (now - heard <= GATEWAY_OK_MS)
    return { lastHeardAt, connected: true, message: `Connected; last heard at ${iso(heard)}.` };
  return {
    lastHeardAt,
    connected: false,
    message: `The controller has not been heard from since ${iso(heard)}; the command waits for it.`,
  };
}

// ---- maintenance windows (issue 28) ----

/** The longest window an operator may schedule: a week (a firmware update takes minutes; a site rebuild is not maintenance). */
export const MAINTENANCE_WINDOW_MAX_MS = 7 * 24 * 60 * 60_000;
export const MAINTENANCE_REASON_MAX_LENGTH = 200;

/** A window as the rules read it (times in epoch ms). */
export interface MaintenanceWindowTimes {
  id: number;
  startsAt: number;
  endsAt: number;
  /** When it was cancelled: one cancelled while underway ended then; one cancelled before it started never did. */
  cancelledAt: number | null;
  reason: string | null;
}

export const MAINTENANCE_WINDOW_STATES = ['scheduled', 'underway', 'ended', 'cancelled'] as const;
export type MaintenanceWindowState = (typeof MAINTENANCE_WINDOW_STATES)[number];

/** When the window stops being in effect: its end, or its cancellation if that came first. */
export const effectiveEnd = (w: MaintenanceWindowTimes) =>
  w.cancelledAt === null ? w.endsAt : Math.min(w.endsAt, w.cancelledAt);

/** In effect at `now`: started, not ended, not cancelled yet. */
export const isUnderway = (w: MaintenanceWindowTimes, now: number) => w.startsAt <= now && now < effectiveEnd(w);

/** What a window is at `now`: a cancelled one says so (whether or not it ran), else by its times. */
export function windowState(w: MaintenanceWindowTimes, now: number): MaintenanceWindowState {
  if (w.cancelledAt !== null) return 'cancelled';
  if (now < w.startsAt) return 'scheduled';
  return now < w.endsAt ? 'underway' : 'ended';
}

/**
 * The window the facility is in at `now`, or null. Windows may overlap (a second one extends the
 * first): the maintenance lasts until the latest end among those underway, so that one is named.
 */
export function maintenanceAt<W extends MaintenanceWindowTimes>(windows: readonly W[], now: number): W | null {
  let current: W | null = null;
  for (const w of windows)
    if (isUnderway(w, now) && (current === null || effectiveEnd(w) > effectiveEnd(current))) current = w;
  return current;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** An ISO 8601 date-time with an offset, to epoch ms; null for anything else (30 February included). */
export function parseDateTime(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const at = Date.parse(text);
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const sameDay =
    day.getUTCFullYear() === Number(m[1]) &&
    day.getUTCMonth() === Number(m[2]) - 1 &&
    day.getUTCDate() === Number(m[3]);
  return Number.isNaN(at) || !sameDay ? null : at;
}

const A_DATE_TIME = 'must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z';

/** A new window as asked for, judged: its times (a start in the past starts it now) and its faults, each naming its field. */
export function judgeMaintenanceWindow(
  input: { startsAt: string; endsAt: string; reason?: string | null },
  now: number,
): { faults: { path: string; message: string }[]; startsAt: number; endsAt: number; reason: string | null } {
  const faults: { path: string; message: string }[] = [];
  const asked = parseDateTime(input.startsAt);
  const endsAt = parseDateTime(input.endsAt);
  if (asked === null) faults.push({ path: 'startsAt', message: A_DATE_TIME });
  if (endsAt === null) faults.push({ path: 'endsAt', message: A_DATE_TIME });
  const startsAt = Math.max(asked ?? now, now);
  if (asked !== null && endsAt !== null) {
    const end = (message: string) => faults.push({ path: 'endsAt', message });
    if (endsAt <= asked) end('must be after startsAt');
    else if (endsAt <= now) end('must be in the future: the window would already be over');
    else if (endsAt - startsAt > MAINTENANCE_WINDOW_MAX_MS)
      end(`must be at most ${MAINTENANCE_WINDOW_MAX_MS / 86_400_000} days after the window starts`);
  }
  const reason = input.reason?.trim() || null;
  // Counted in characters (code points), as the schema and the database count them.
  if (reason !== null && [...reason].length > MAINTENANCE_REASON_MAX_LENGTH)
    faults.push({ path: 'reason', message: `must be at most ${MAINTENANCE_REASON_MAX_LENGTH} characters` });
  return { faults, startsAt, endsAt: endsAt ?? startsAt, reason };
}
