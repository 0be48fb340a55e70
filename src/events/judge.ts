// The ingest rules, as a pure function over one batch: each event is judged on its own, so that one
// malformed event never jams a controller's queue (SPEC.md §5). Valid events come out normalized
// (gate code masked, clock-ahead times replaced by the time received); the others are rejected with
// their index, field and reason.
import { type EntityId, parseEntityId } from '../ids.ts';
import { isEventType } from './catalogue.ts';
import { CLOCK_AHEAD_TOLERANCE_MS, FIELD_LIMITS } from './limits.ts';
import { formatUtc, parseInstant } from './time.ts';

/** An event ready to be stored. */
export interface AcceptedEvent {
  index: number;
  eventId: string;
  eventType: number;
  /** Epoch ms: the reported time, or the time received when the device clock was ahead. */
  occurredAt: number;
  deviceId: string | null;
  deviceName: string | null;
  unitId: EntityId | null;
  visitorId: EntityId | null;
  /** Masked: "****42". */
  codeEntered: string | null;
  details: string | null;
  /** The event's `data` object as JSON text, or null. */
  data: string | null;
  /** data.commandId of a Command Received event, when it is a string. */
  commandId: string | null;
  /**
   * What the controller says of that command (data.result): applied (absent or "applied") or failed,
   * with data.reason (null: none given). Null when the event acknowledges no command.
   */
  commandResult: { result: 'applied' } | { result: 'failed'; reason: string | null } | null;
}

export interface Rejection {
  index: number;
  eventId: string | null;
  path: string;
  reason: string;
}

export interface IngestWarning {
  index: number;
  eventId: string | null;
  path: string;
  /** UNKNOWN_COMMAND: a failed acknowledgement naming no command of the facility (src/commands/acknowledge.ts). */
  code: 'CLOCK_AHEAD' | 'NOT_AN_ID' | 'UNKNOWN_COMMAND';
  message: string;
}

export interface Judgement {
  accepted: AcceptedEvent[];
  rejected: Rejection[];
  warnings: IngestWarning[];
  /** Repeats of an eventId earlier in the same batch (the first one is kept). */
  duplicatesInBatch: number;
}

class Fault extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const CONTROL = /[\u0000-\u001f\u007f]/;
// Free text may hold tabs and line breaks, never NUL or other control characters.
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A gate code as it may be stored: four asterisks and, when the code is long enough that they still hide most of it, its last two characters. */
export function maskCode(code: string): string {
  return code.length >= 4 ? `****${code.slice(-2)}` : '****';
}

// A lone surrogate (from a JSON "\ud800" escape) cannot be stored as UTF-8 text.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function wellFormed(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

function optionalText(raw: Record<string, unknown>, field: string, max: number, freeText = false): string | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new Fault(field, 'must be a string');
  if (value.length > max) throw new Fault(field, `must be at most ${max} characters (got ${value.length})`);
  if (!wellFormed(value)) throw new Fault(field, 'is not valid Unicode text');
  if ((freeText ? TEXT_CONTROL : CONTROL).test(value)) throw new Fault(field, 'must not contain control characters');
  return value;
}

/** Identifiers may come as numbers from some firmware; they are kept as text. */
function optionalIdentifier(raw: Record<string, unknown>, field: string, max: number): string | null {
  const value = raw[field];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  const text = optionalText(raw, field, max);
  if (text !== null && text.length === 0) throw new Fault(field, 'must not be empty');
  return text;
}

const MAX_DATA_DEPTH = 16;

/** Every string (keys too) of a JSON value is storable text: well-formed, no NUL (jsonb refuses both). */
function checkJsonStrings(value: unknown, depth: number): void {
  if (depth > MAX_DATA_DEPTH) throw new Fault('data', `must not nest deeper than ${MAX_DATA_DEPTH} levels`);
  if (typeof value === 'string') {
    if (!wellFormed(value) || value.includes('\u0000'))
      throw new Fault('data', 'holds text that is not valid Unicode or contains NUL');
  } else if (Array.isArray(value)) {
    for (const item of value) checkJsonStrings(item, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      checkJsonStrings(key, depth + 1);
      checkJsonStrings(item, depth + 1);
    }
  }
}

function judgeOne(
  raw: unknown,
  now: number,
  oldest: number,
  warn: (path: string, code: IngestWarning['code'], message: string) => void,
): AcceptedEvent | Fault {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return new Fault('', 'must be an object');
  const event = raw as Record<string, unknown>;
  try {
    if (event.eventId === undefined || event.eventId === null) throw new Fault('eventId', 'is required');
    const eventId = optionalIdentifier(event, 'eventId', FIELD_LIMITS.eventId)!;

    if (event.eventType === undefined || event.eventType === null) throw new Fault('eventType', 'is required');
    if (!isEventType(event.eventType))
      throw new Fault('eventType', 'is not an event type of the catalogue (GET /gatewayevents/types)');

    if (event.occurredAt === undefined || event.occurredAt === null) throw new Fault('occurredAt', 'is required');
    const reported = typeof event.occurredAt === 'string' ? parseInstant(event.occurredAt) : null;
    if (reported === null)
      throw new Fault('occurredAt', 'must be an ISO 8601 date-time with an offset, e.g. 2026-03-01T09:15:00-07:00');
    if (reported < oldest) throw new Fault('occurredAt', `is older than the retention window (${formatUtc(oldest)})`);

    const deviceId = optionalIdentifier(event, 'deviceId', FIELD_LIMITS.deviceId);
    const deviceName = optionalText(event, 'deviceName', FIELD_LIMITS.deviceName);
    // Unit and visitor ids are integers (the controller has them from its commands). Another value
    // must not cost the event: it is stored without the id, the value kept in data, with a warning.
    const reportedIds: Record<string, string> = {};
    const entityId = (field: 'unitId' | 'visitorId'): EntityId | null => {
      const text = optionalIdentifier(event, field, FIELD_LIMITS[field]);
      if (text === null) return null;
      const id = parseEntityId(text);
      if (id !== null) return id;
      const kept = `reported${field[0]!.toUpperCase()}${field.slice(1)}`;
      reportedIds[kept] = text;
      warn(
        field,
        'NOT_AN_ID',
        `is not a ${field === 'unitId' ? 'unit' : 'visitor'} id (a positive integer): stored in data.${kept}`,
      );
      return null;
    };
    const unitId = entityId('unitId');
    const visitorId = entityId('visitorId');
    const code =
      typeof event.codeEntered === 'number' && Number.isSafeInteger(event.codeEntered)
        ? String(event.codeEntered)
        : optionalText(event, 'codeEntered', FIELD_LIMITS.codeEntered);
    const details = optionalText(event, 'details', FIELD_LIMITS.details, true);

    let data: Record<string, unknown> | null = null;
    if (event.data !== undefined && event.data !== null) {
      if (typeof event.data !== 'object' || Array.isArray(event.data)) throw new Fault('data', 'must be an object');
      checkJsonStrings(event.data, 0);
      data = event.data as Record<string, unknown>;
    }
    if (Object.keys(reportedIds).length > 0) data = { ...data, ...reportedIds };

    let occurredAt = reported;
    if (reported > now + CLOCK_AHEAD_TOLERANCE_MS) {
      occurredAt = now;
      data = { ...data, reportedOccurredAt: event.occurredAt };
      const minutes = Math.round((reported - now) / 60_000);
      warn(
        'occurredAt',
        'CLOCK_AHEAD',
        `is ${minutes} minutes ahead of the service's clock: stored at the time received, the reported time kept in data.reportedOccurredAt`,
      );
    }
    const dataJson = data === null ? null : JSON.stringify(data);
    if (dataJson !== null && Buffer.byteLength(dataJson) > FIELD_LIMITS.dataBytes) {
      throw new Fault('data', `must be at most ${FIELD_LIMITS.dataBytes} bytes as JSON`);
    }
    const commandId =
      event.eventType === 3 && data !== null && typeof data.commandId === 'string' ? data.commandId : null;
    const commandResult = commandId === null ? null : commandResultOf(data!);

    return {
      index: -1,
      eventId,
      eventType: event.eventType,
      occurredAt,
      deviceId,
      deviceName,
      unitId,
      visitorId,
      codeEntered: code === null || code === '' ? null : maskCode(code),
      details,
      data: dataJson,
      commandId,
      commandResult,
    };
  } catch (error) {
    if (error instanceof Fault) return error;
    throw error;
  }
}

/**
 * What an acknowledgement (event 3 with data.commandId) says of its command: data.result absent or
 * "applied" (acknowledged, as before results existed), or "failed" with an optional data.reason (a
 * string of at most FIELD_LIMITS.commandFailureReason characters; "" is none). Anything else is a
 * malformed event, rejected naming the field (SPEC §5): the controller learns of its fault at once.
 */
function commandResultOf(data: Record<string, unknown>): AcceptedEvent['commandResult'] {
  const { result, reason } = data;
  if (result === undefined || result === null || result === 'applied') return { result: 'applied' };
  if (result !== 'failed') throw new Fault('data.result', 'must be "applied" or "failed"');
  if (reason === undefined || reason === null || reason === '') return { result: 'failed', reason: null };
  if (typeof reason !== 'string') throw new Fault('data.reason', 'must be a string');
  const max = FIELD_LIMITS.commandFailureReason;
  if (reason.length > max) throw new Fault('data.reason', `must be at most ${max} characters (got ${reason.length})`);
  return { result: 'failed', reason };
}

const rawEventId = (raw: unknown): string | null => {
  const value = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).eventId : undefined;
  if (typeof value === 'string') return value.slice(0, FIELD_LIMITS.eventId);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return null;
};

/**
 * Judges a batch. `now` is the time the request was received; events older than `oldest` are
 * outside the retention window.
 */
export function judgeBatch(events: readonly unknown[], now: number, oldest: number): Judgement {
  const judgement: Judgement = { accepted: [], rejected: [], warnings: [], duplicatesInBatch: 0 };
  const seen = new Set<string>();
  events.forEach((raw, index) => {
    const path = (field: string) => (field ? `events[${index}].${field}` : `events[${index}]`);
    const pendingWarnings: IngestWarning[] = [];
    const result = judgeOne(raw, now, oldest, (field, code, message) =>
      pendingWarnings.push({ index, eventId: rawEventId(raw), path: path(field), code, message }),
    );
    if (result instanceof Fault) {
      judgement.rejected.push({ index, eventId: rawEventId(raw), path: path(result.field), reason: result.reason });
      return;
    }
    if (seen.has(result.eventId)) {
      judgement.duplicatesInBatch++;
      return;
    }
    seen.add(result.eventId);
    result.index = index;
    judgement.accepted.push(result);
    judgement.warnings.push(...pendingWarnings);
  });
  return judgement;
}
