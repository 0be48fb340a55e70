// Validation of the auction-import bodies, as pure functions: every fault of the body, with its
// path (`auctionableUnitInfo[3].endsAt`), a code and a sentence; and, when there is none, the
// records normalised for the full-list plan. Nothing here reads the database or the clock (what
// depends on the facility's auctions or on the time — an end already passed — is the plan's).
import { createHash } from 'node:crypto';
import { checkUrl, type UrlRefusal } from '../net/address.ts';
import {
  AUCTION_TYPES,
  CATEGORIES,
  LIMITS,
  type ActivationField,
  type AuctionType,
  type Category,
  type PendingReason,
  type UnitRecord,
  type ValidRecord,
} from './model.ts';

export interface Fault {
  code: string;
  message: string;
  path: string;
}

/** A body is refused with at most this many faults listed (the last one says how many more). */
export const MAX_FAULTS = 1000;

export interface ValidationContext {
  /** IMAGE_FETCH_ALLOW_HOSTS: these hosts may be address literals that are not public. */
  allowHosts: readonly string[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const absent = (value: unknown) => value === undefined || value === null;
// Identifiers and names travel in JSON, URLs, logs and CSV: no control characters.
const CONTROL = /[\x00-\x1f\x7f]/;
const CATEGORY_SET = new Set<string>(CATEGORIES);
const TYPE_SET = new Set<string>(AUCTION_TYPES);

class Faults {
  readonly list: Fault[] = [];
  private dropped = 0;
  add(path: string, code: string, message: string) {
    if (this.list.length < MAX_FAULTS - 1) this.list.push({ path, code, message });
    else this.dropped++;
  }
  done(): Fault[] {
    if (this.dropped === 0) return this.list;
    return [
      ...this.list,
      { path: '', code: 'TOO_MANY_FAULTS', message: `${this.dropped} more faults were found and are not listed.` },
    ];
  }
}

function text(
  faults: Faults,
  path: string,
  value: unknown,
  options: { max: number; required: boolean; min?: number; printable?: boolean },
): string | null {
  const name = path.slice(path.lastIndexOf('.') + 1);
  if (absent(value)) {
    if (options.required) faults.add(path, 'REQUIRED', `${name} is required.`);
    return null;
  }
  if (typeof value !== 'string') {
    faults.add(path, 'INVALID_TYPE', `${name} must be a string.`);
    return null;
  }
  const min = options.min ?? 0;
  if (value.length < min) {
    faults.add(path, 'TOO_SHORT', `${name} must have at least ${min} character${min === 1 ? '' : 's'}.`);
    return null;
  }
  if (value.length > options.max) {
    faults.add(path, 'TOO_LONG', `${name} must have at most ${options.max} characters (it has ${value.length}).`);
    return null;
  }
  if (options.printable && CONTROL.test(value)) {
    faults.add(path, 'INVALID_VALUE', `${name} must not contain control characters.`);
    return null;
  }
  return value;
}

function positiveNumber(faults: Faults, path: string, value: unknown, max: number): number | null {
  const name = path.slice(path.lastIndexOf('.') + 1);
  if (absent(value)) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    faults.add(path, 'INVALID_TYPE', `${name} must be a number.`);
    return null;
  }
  if (value <= 0 || value > max) {
    faults.add(path, 'OUT_OF_RANGE', `${name} must be greater than 0 and at most ${max}.`);
    return null;
  }
  return value;
}

/** Whole cents: 25, 25.5 and 25.05 are, 25.005 is not (within floating-point noise). */
export function hasAtMostTwoDecimals(value: number): boolean {
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

function money(faults: Faults, path: string, value: unknown): number | null {
  const name = path.slice(path.lastIndexOf('.') + 1);
  if (absent(value)) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    faults.add(path, 'INVALID_TYPE', `${name} must be a number.`);
    return null;
  }
  if (value < 0) {
    faults.add(path, 'OUT_OF_RANGE', `${name} must not be negative.`);
    return null;
  }
  if (value > LIMITS.maximumBid) {
    faults.add(path, 'OUT_OF_RANGE', `${name} must be at most ${LIMITS.maximumBid}.`);
    return null;
  }
  if (!hasAtMostTwoDecimals(value)) {
    faults.add(path, 'INVALID_VALUE', `${name} must have at most two decimals.`);
    return null;
  }
  return Math.round(value * 100) / 100;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/i;

/** An ISO 8601 date-time with an offset (`Z` or `±hh:mm`), calendar-valid; else null. */
export function parseDateTimeWithOffset(value: string): Date | null {
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return null;
  const time = Date.parse(value.toUpperCase());
  return Number.isNaN(time) ? null : new Date(time);
}

function dateTime(faults: Faults, path: string, value: unknown): Date | null {
  const name = path.slice(path.lastIndexOf('.') + 1);
  if (absent(value)) return null;
  if (typeof value !== 'string') {
    faults.add(path, 'INVALID_TYPE', `${name} must be a string.`);
    return null;
  }
  const parsed = parseDateTimeWithOffset(value);
  if (!parsed)
    faults.add(
      path,
      'INVALID_VALUE',
      `${name} must be an ISO 8601 date-time with an offset, such as 2026-12-01T09:00:00-07:00.`,
    );
  return parsed;
}

const URL_MESSAGES: Record<UrlRefusal, string> = {
  INVALID_URL: 'must be an absolute URL.',
  SCHEME_NOT_ALLOWED: 'must be an http or https URL.',
  CREDENTIALS_NOT_ALLOWED: 'must not contain a user name or password.',
  ADDRESS_NOT_ALLOWED: 'must not point to a loopback, private, link-local or reserved address.',
};

function imageUrls(faults: Faults, path: string, value: unknown, context: ValidationContext): string[] {
  if (absent(value)) return [];
  if (!Array.isArray(value)) {
    faults.add(path, 'INVALID_TYPE', 'imageUrls must be an array of URLs.');
    return [];
  }
  if (value.length > LIMITS.imageUrlsPerRecord) {
    faults.add(
      path,
      'TOO_MANY',
      `imageUrls must have at most ${LIMITS.imageUrlsPerRecord} URLs (it has ${value.length}).`,
    );
    return [];
  }
  const urls: string[] = [];
  for (const [i, item] of value.entries()) {
    const itemPath = `${path}[${i}]`;
    if (typeof item !== 'string') {
      faults.add(itemPath, 'INVALID_TYPE', 'An image URL must be a string.');
      continue;
    }
    if (item.length > LIMITS.imageUrlLength) {
      faults.add(itemPath, 'TOO_LONG', `An image URL must have at most ${LIMITS.imageUrlLength} characters.`);
      continue;
    }
    const checked = checkUrl(item, context.allowHosts);
    if (!checked.ok) {
      faults.add(itemPath, checked.refusal, `An image URL ${URL_MESSAGES[checked.refusal]}`);
      continue;
    }
    urls.push(item);
  }
  return urls;
}

function categories(faults: Faults, path: string, value: unknown): Category[] {
  if (absent(value)) return [];
  if (!Array.isArray(value)) {
    faults.add(path, 'INVALID_TYPE', 'categories must be an array of category names.');
    return [];
  }
  if (value.length > CATEGORIES.length) {
    faults.add(path, 'TOO_MANY', `categories must have at most ${CATEGORIES.length} names.`);
    return [];
  }
  const seen = new Set<string>();
  const result: Category[] = [];
  for (const [i, item] of value.entries()) {
    if (typeof item !== 'string' || !CATEGORY_SET.has(item)) {
      const why = `${JSON.stringify(item)} is not one of the ${CATEGORIES.length} auction categories.`;
      faults.add(`${path}[${i}]`, 'UNKNOWN_CATEGORY', why);
      continue;
    }
    if (seen.has(item)) {
      faults.add(`${path}[${i}]`, 'DUPLICATE', `The category "${item}" is listed twice.`);
      continue;
    }
    seen.add(item);
    result.push(item as Category);
  }
  return result;
}

/** Validates one auctionableUnitInfo record; `path` is its own path (`auctionableUnitInfo[3]`). */
function validateRecord(faults: Faults, path: string, raw: unknown, context: ValidationContext): ValidRecord | null {
  if (!isObject(raw)) {
    faults.add(path, 'INVALID_TYPE', 'A record must be a JSON object.');
    return null;
  }
  const before = faults.list.length;
  const unitId = text(faults, `${path}.unitId`, raw.unitId, {
    max: LIMITS.unitIdLength,
    min: 1,
    required: true,
    printable: true,
  });
  const unitName = text(faults, `${path}.unitName`, raw.unitName, {
    max: LIMITS.unitNameLength,
    min: 1,
    required: true,
    printable: true,
  });
  let auctionType: AuctionType = 'Lien';
  if (!absent(raw.auctionType)) {
    if (typeof raw.auctionType === 'string' && TYPE_SET.has(raw.auctionType))
      auctionType = raw.auctionType as AuctionType;
    else faults.add(`${path}.auctionType`, 'INVALID_VALUE', `auctionType must be one of ${AUCTION_TYPES.join(', ')}.`);
  }
  const unitWidth = positiveNumber(faults, `${path}.unitWidth`, raw.unitWidth, 10_000);
  const unitLength = positiveNumber(faults, `${path}.unitLength`, raw.unitLength, 10_000);
  const description = text(faults, `${path}.description`, raw.description, {
    max: LIMITS.descriptionLength,
    required: false,
  });
  const cats = categories(faults, `${path}.categories`, raw.categories);
  const tenantName = text(faults, `${path}.tenantName`, raw.tenantName, {
    max: LIMITS.tenantNameLength,
    required: false,
    printable: true,
  });
  const startsAt = dateTime(faults, `${path}.startsAt`, raw.startsAt);
  const endsAt = dateTime(faults, `${path}.endsAt`, raw.endsAt);
  if (startsAt && endsAt && startsAt.getTime() >= endsAt.getTime()) {
    faults.add(`${path}.endsAt`, 'ENDS_BEFORE_START', 'endsAt must be later than startsAt.');
  }
  const minimumBid = money(faults, `${path}.minimumBid`, raw.minimumBid);
  const urls = imageUrls(faults, `${path}.imageUrls`, raw.imageUrls, context);
  if (faults.list.length !== before || unitId === null || unitName === null) return null;

  const record: UnitRecord = {
    unitId,
    unitName,
    auctionType,
    unitWidth,
    unitLength,
    description,
    categories: cats,
    tenantName,
    startsAt: startsAt ? (raw.startsAt as string) : null,
    endsAt: endsAt ? (raw.endsAt as string) : null,
    minimumBid,
    imageUrls: urls,
  };
  return { record, contentHash: contentHash(record, startsAt, endsAt), startsAt, endsAt };
}

/**
 * The hash of a record's content, which decides whether a later list "changed" it: instants
 * compare as instants (`09:00-07:00` is `16:00Z`), everything else as sent.
 */
export function contentHash(
  record: UnitRecord,
  startsAt: Date | null = instant(record.startsAt),
  endsAt: Date | null = instant(record.endsAt),
): string {
  const canonical = [
    record.unitId,
    record.unitName,
    record.auctionType,
    record.unitWidth,
    record.unitLength,
    record.description,
    record.categories,
    record.tenantName,
    startsAt?.getTime() ?? null,
    endsAt?.getTime() ?? null,
    record.minimumBid,
    record.imageUrls,
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

const instant = (value: string | null) => (value === null ? null : parseDateTimeWithOffset(value));

/** The fields that activation needs and the record lacks (SPEC §3.1), in ACTIVATION_FIELDS order. */
export function missingForActivation(record: UnitRecord): ActivationField[] {
  const missing: ActivationField[] = [];
  if (record.description === null || record.description.trim() === '') missing.push('description');
  if (record.startsAt === null) missing.push('startsAt');
  if (record.endsAt === null) missing.push('endsAt');
  if (record.imageUrls.length === 0) missing.push('imageUrls');
  return missing;
}

/** Why a new auction for this record must be held as Pending; none means it goes Active. */
export function pendingReasons(record: UnitRecord, charityEnrolled: boolean): PendingReason[] {
  const reasons: PendingReason[] = [];
  if (record.auctionType === 'Charity' && !charityEnrolled) reasons.push('CHARITY_NOT_ENROLLED');
  if (missingForActivation(record).length > 0) reasons.push('INCOMPLETE');
  return reasons;
}

function partnerFields(faults: Faults, body: Json): { guid: string | null; clientType: string | null } {
  return {
    guid: text(faults, 'guid', body.guid, { max: LIMITS.guidLength, min: 1, required: true, printable: true }),
    clientType: text(faults, 'clientType', body.clientType, {
      max: LIMITS.clientTypeLength,
      min: 1,
      required: true,
      printable: true,
    }),
  };
}

export interface CreateRequest {
  guid: string;
  clientType: string;
  records: ValidRecord[];
}

export type Validated<T> = { ok: true; value: T } | { ok: false; faults: Fault[] };

/** POST /api/3/auctioninfo: all or nothing. */
export function validateCreateRequest(body: unknown, context: ValidationContext): Validated<CreateRequest> {
  const faults = new Faults();
  if (!isObject(body))
    return { ok: false, faults: [{ path: '', code: 'INVALID_TYPE', message: 'The body must be a JSON object.' }] };
  const { guid, clientType } = partnerFields(faults, body);
  const list = body.auctionableUnitInfo;
  const records: ValidRecord[] = [];
  if (absent(list)) {
    faults.add(
      'auctionableUnitInfo',
      'REQUIRED',
      'auctionableUnitInfo is required (an empty list withdraws every unit).',
    );
  } else if (!Array.isArray(list)) {
    faults.add('auctionableUnitInfo', 'INVALID_TYPE', 'auctionableUnitInfo must be an array of records.');
  } else if (list.length > LIMITS.recordsPerCall) {
    faults.add(
      'auctionableUnitInfo',
      'TOO_MANY',
      `auctionableUnitInfo must have at most ${LIMITS.recordsPerCall} records (it has ${list.length}).`,
    );
  } else {
    const firstIndex = new Map<string, number>();
    list.forEach((raw, i) => {
      const path = `auctionableUnitInfo[${i}]`;
      // A record that names a facility must name this call's: one call, one facility.
      if (isObject(raw) && !absent(raw.guid) && raw.guid !== guid) {
        faults.add(
          `${path}.guid`,
          'OTHER_FACILITY',
          `One call carries the units of one facility (${String(guid)}); this record names ${JSON.stringify(raw.guid)}.`,
        );
      }
      const valid = validateRecord(faults, path, raw, context);
      const unitId = isObject(raw) && typeof raw.unitId === 'string' ? raw.unitId : null;
      if (unitId !== null) {
        const first = firstIndex.get(unitId);
        if (first !== undefined)
          faults.add(
            `${path}.unitId`,
            'DUPLICATE_UNIT',
            `The unit ${unitId} is already listed at auctionableUnitInfo[${first}]; a list carries one record per unit.`,
          );
        else firstIndex.set(unitId, i);
      }
      if (valid) records.push(valid);
    });
  }
  const found = faults.done();
  if (found.length > 0 || guid === null || clientType === null) return { ok: false, faults: found };
  return { ok: true, value: { guid, clientType, records } };
}

export interface CancelRequest {
  guid: string;
  clientType: string;
  unitId: string;
  reason: string | null;
}

export const ONE_UNIT_MESSAGE = 'Only one unit cancellation per request is currently supported.';

/** PUT /api/3/cancelauctions: exactly one record. */
export function validateCancelRequest(body: unknown): Validated<CancelRequest> {
  const faults = new Faults();
  if (!isObject(body))
    return { ok: false, faults: [{ path: '', code: 'INVALID_TYPE', message: 'The body must be a JSON object.' }] };
  const { guid, clientType } = partnerFields(faults, body);
  const list = body.cancelAuctionIds;
  let unitId: string | null = null;
  let reason: string | null = null;
  if (absent(list)) {
    faults.add('cancelAuctionIds', 'REQUIRED', 'cancelAuctionIds is required and must hold one record.');
  } else if (!Array.isArray(list)) {
    faults.add('cancelAuctionIds', 'INVALID_TYPE', 'cancelAuctionIds must be an array holding one record.');
  } else if (list.length === 0) {
    faults.add('cancelAuctionIds', 'NO_UNIT', 'cancelAuctionIds must hold one record; it is empty.');
  } else if (list.length > 1) {
    faults.add('cancelAuctionIds', 'ONE_UNIT_PER_REQUEST', ONE_UNIT_MESSAGE);
  } else {
    const raw = list[0];
    if (!isObject(raw)) {
      faults.add('cancelAuctionIds[0]', 'INVALID_TYPE', 'A record must be a JSON object.');
    } else {
      unitId = text(faults, 'cancelAuctionIds[0].unitId', raw.unitId, {
        max: LIMITS.unitIdLength,
        min: 1,
        required: true,
        printable: true,
      });
      reason = text(faults, 'cancelAuctionIds[0].reason', raw.reason, {
        max: LIMITS.cancelReasonLength,
        required: false,
      });
    }
  }
  const found = faults.done();
  if (found.length > 0 || guid === null || clientType === null || unitId === null) return { ok: false, faults: found };
  return { ok: true, value: { guid, clientType, unitId, reason } };
}

/** Validates a partial record (support completing a Pending auction) merged over the stored one. */
export function validateAmendedRecord(
  stored: UnitRecord,
  patch: unknown,
  context: ValidationContext,
): Validated<ValidRecord> {
  const faults = new Faults();
  if (!isObject(patch))
    return { ok: false, faults: [{ path: '', code: 'INVALID_TYPE', message: 'The body must be a JSON object.' }] };
  for (const key of ['unitId']) {
    if (key in patch && patch[key] !== stored.unitId)
      faults.add(key, 'NOT_ALLOWED', 'unitId cannot change; cancel the auction instead.');
  }
  const merged = { ...stored, ...patch, unitId: stored.unitId };
  const valid = validateRecord(faults, '', merged, context);
  const found = faults.done().map((f) => ({ ...f, path: f.path.replace(/^\./, '') }));
  if (found.length > 0 || !valid) return { ok: false, faults: found };
  return { ok: true, value: valid };
}
