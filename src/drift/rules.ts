// The drift rules as pure functions: what a controller's digest of its units and visitors is, how
// two digests are compared bucket by bucket, how the items of differing buckets are compared, and
// which corrective commands heal what differs. The service and the simulated controller compute
// digests through these same functions; they are tested without I/O.
//
// The digest's size does not grow with the facility: each kind (units, visitors) is split into
// DIGEST_BUCKETS buckets by id, and each bucket is the XOR of its items' 64-bit hashes (order does
// not matter, and a controller can keep it up to date item by item). A fingerprint covers what
// decides access at the gate — a unit's number and status; a visitor's unit, switch, time group,
// access profile and gate code — so a difference in a name, an e-mail or extendedData is no drift.
// The gate code enters only a hash, never a record or a log: the drift names the field `accessCode`.
import { createHash } from 'node:crypto';
import type { EntityId } from '../ids.ts';

export const DIGEST_BUCKETS = 64;
export const DRIFT_KINDS = ['unit', 'visitor'] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

/** How often a controller sends its digest when nothing else makes it (SPEC §4.1: every 15 minutes). */
export const DIGEST_INTERVAL_MINUTES = 15;

/**
 * Above this many differing items of one kind, the heal is one full refresh of that kind instead of
 * a command per item (a controller restored empty or from a very old backup).
 */
export const REFRESH_ABOVE = 256;

/**
 * The items of one kind as a controller holds them, reduced to what the digest covers. Access control
 * reads its state into the same shape (HeldUnit, HeldVisitor in src/access-control/controller-copy.ts),
 * written there again because drift's tables are part of the one database type access control imports.
 */
export interface UnitHeld {
  id: EntityId;
  unitNumber: string;
  status: string;
}

export interface VisitorHeld {
  id: EntityId;
  unitId: EntityId | null;
  isEnabled: boolean;
  timeGroupId: number;
  accessProfileId: number;
  accessCode: string;
}

/** One kind's digest: how many items, and each bucket's hash (16 hex digits). */
export interface KindDigest {
  count: number;
  buckets: string[];
}

export interface Digest {
  units: KindDigest;
  visitors: KindDigest;
}

export const bucketOf = (id: EntityId) => id % DIGEST_BUCKETS;

/** The canonical text each side hashes (a JSON array: no key order to agree on). */
export const unitFingerprint = (u: UnitHeld) => JSON.stringify(['unit', u.id, u.unitNumber, u.status]);
export const visitorFingerprint = (v: VisitorHeld) =>
  JSON.stringify(['visitor', v.id, v.unitId, v.isEnabled, v.timeGroupId, v.accessProfileId, v.accessCode]);

/** An item's hash: the first 64 bits of SHA-256 of its fingerprint, as 16 hex digits. */
export const itemHash = (fingerprint: string) => createHash('sha256').update(fingerprint).digest('hex').slice(0, 16);

const ZERO = '0000000000000000';

/** One kind's digest from its items' ids and hashes. */
export function kindDigest(items: Iterable<{ id: EntityId; hash: string }>): KindDigest {
  const buckets = new Array<bigint>(DIGEST_BUCKETS).fill(0n);
  let count = 0;
  for (const item of items) {
    const b = bucketOf(item.id);
    buckets[b] = buckets[b]! ^ BigInt(`0x${item.hash}`);
    count++;
  }
  return { count, buckets: buckets.map((h) => (h === 0n ? ZERO : h.toString(16).padStart(16, '0'))) };
}

/** Units and visitors with their hashes: what both sides digest. */
export const hashedUnits = (units: Iterable<UnitHeld>) =>
  [...units].map((u) => ({ ...u, hash: itemHash(unitFingerprint(u)) }));
export const hashedVisitors = (visitors: Iterable<VisitorHeld>) =>
  [...visitors].map((v) => ({ ...v, hash: itemHash(visitorFingerprint(v)) }));

/** The buckets of one kind whose hashes differ (a count difference alone is always in some bucket). */
export function differingBuckets(theirs: KindDigest, ours: KindDigest): number[] {
  const differ: number[] = [];
  for (let b = 0; b < DIGEST_BUCKETS; b++) if (theirs.buckets[b] !== ours.buckets[b]) differ.push(b);
  return differ;
}

// ---- the items of differing buckets ----

/** What the controller says of one item of a bucket it was asked for: its hash and its fields but the code. */
export type UnitReport = UnitHeld & { hash: string };
export type VisitorReport = Omit<VisitorHeld, 'accessCode'> & { hash: string };

export type DriftChange = 'missing' | 'unexpected' | 'altered';

/** One item that differs: `missing` at the controller, `unexpected` there (not in the PMS), or `altered` (the fields). */
export interface DriftItem {
  kind: DriftKind;
  id: EntityId;
  change: DriftChange;
  /** For `altered`: the fields that differ (`accessCode` when only the code does — its value is never named). */
  fields: string[];
}

/** An item's identity within a facility: its kind and id (unit and visitor ids come from different sequences). */
export const itemKey = (item: Pick<DriftItem, 'kind' | 'id'>) => `${item.kind}:${item.id}`;

const UNIT_FIELDS = ['unitNumber', 'status'] as const;
const VISITOR_FIELDS = ['unitId', 'isEnabled', 'timeGroupId', 'accessProfileId'] as const;

function alteredFields<T extends object>(held: T, desired: T, fields: readonly (keyof T & string)[]): string[] {
  const differ = fields.filter((f) => held[f] !== desired[f]);
  return differ.length > 0 ? differ : ['accessCode'];
}

/**
 * The items of one kind that differ, within the buckets compared: desired (the PMS's, with hashes)
 * against reported (the controller's). Items a command in flight touches are left out — the
 * controller has not applied it yet, so a difference there is expected, not drift.
 */
export function compareKind<D extends { id: EntityId; hash: string }, R extends { id: EntityId; hash: string }>(
  kind: DriftKind,
  desired: readonly D[],
  reported: readonly R[],
  inFlight: ReadonlySet<EntityId>,
  fieldsOf: (held: R, desired: D) => string[],
): DriftItem[] {
  const held = new Map(reported.map((r) => [r.id, r]));
  const items: DriftItem[] = [];
  for (const d of desired) {
    const r = held.get(d.id);
    held.delete(d.id);
    if (inFlight.has(d.id)) continue;
    if (!r) items.push({ kind, id: d.id, change: 'missing', fields: [] });
    else if (r.hash !== d.hash) items.push({ kind, id: d.id, change: 'altered', fields: fieldsOf(r, d) });
  }
  for (const r of held.values())
    if (!inFlight.has(r.id)) items.push({ kind, id: r.id, change: 'unexpected', fields: [] });
  return items.sort((a, b) => a.id - b.id);
}

export const compareUnits = (
  desired: readonly (UnitHeld & { hash: string })[],
  reported: readonly UnitReport[],
  inFlight: ReadonlySet<EntityId>,
) => compareKind('unit', desired, reported, inFlight, (r, d) => alteredFields<UnitHeld>(r, d, UNIT_FIELDS));

export const compareVisitors = (
  desired: readonly (VisitorHeld & { hash: string })[],
  reported: readonly VisitorReport[],
  inFlight: ReadonlySet<EntityId>,
) =>
  compareKind('visitor', desired, reported, inFlight, (r, d) =>
    alteredFields<Omit<VisitorHeld, 'accessCode'>>(r, d, VISITOR_FIELDS),
  );

// ---- what commands in flight touch ----

/** The ids a command not yet applied by the controller will change, or `all` of a kind (a refresh). */
export interface Touched {
  units: Set<EntityId>;
  visitors: Set<EntityId>;
  allUnits: boolean;
  allVisitors: boolean;
}

const idOf = (value: unknown): EntityId | null =>
  typeof value === 'number' && Number.isSafeInteger(value) ? value : null;

/** What the commands after the controller's applied sequence touch (their payloads as the queue stores them). */
export function touchedBy(commands: readonly { type: string; payload: unknown }[]): Touched {
  const touched: Touched = { units: new Set(), visitors: new Set(), allUnits: false, allVisitors: false };
  const add = (set: Set<EntityId>, value: unknown) => {
    const id = idOf(value);
    if (id !== null) set.add(id);
  };
  for (const { type, payload } of commands) {
    const p = (payload ?? {}) as {
      unit?: { id?: unknown };
      unitId?: unknown;
      visitor?: { id?: unknown; unitId?: unknown };
      visitorId?: unknown;
      removedVisitorIds?: unknown;
    };
    if (type === 'units.refresh') touched.allUnits = true;
    if (type === 'visitors.refresh') touched.allVisitors = true;
    add(touched.units, p.unit?.id);
    add(touched.units, p.unitId);
    add(touched.visitors, p.visitor?.id);
    add(touched.visitors, p.visitorId);
    if (Array.isArray(p.removedVisitorIds)) for (const id of p.removedVisitorIds) add(touched.visitors, id);
  }
  return touched;
}

// ---- the heal ----

/** How one kind is healed: a command per item, or one refresh of the kind when too many differ. */
export type Heal =
  | { kind: DriftKind; refresh: true }
  | { kind: DriftKind; refresh: false; upsert: EntityId[]; remove: EntityId[] };

export function healOf(kind: DriftKind, items: readonly DriftItem[]): Heal | null {
  const ofKind = items.filter((i) => i.kind === kind);
  if (ofKind.length === 0) return null;
  if (ofKind.length > REFRESH_ABOVE) return { kind, refresh: true };
  return {
    kind,
    refresh: false,
    upsert: ofKind.filter((i) => i.change !== 'unexpected').map((i) => i.id),
    remove: ofKind.filter((i) => i.change === 'unexpected').map((i) => i.id),
  };
}

/** The items of a report that lie outside the buckets it says it covers, as the paths a 400 names. */
export function itemsOutsideBuckets(report: {
  buckets: { units: readonly number[]; visitors: readonly number[] };
  units: readonly { id: EntityId }[];
  visitors: readonly { id: EntityId }[];
}): { path: string; message: string }[] {
  const faults: { path: string; message: string }[] = [];
  for (const kind of ['units', 'visitors'] as const) {
    const listed = new Set(report.buckets[kind]);
    report[kind].forEach((item, i) => {
      if (!listed.has(bucketOf(item.id)))
        faults.push({
          path: `${kind}[${i}].id`,
          message: `is in bucket ${bucketOf(item.id)}, not one of buckets.${kind}`,
        });
    });
  }
  return faults;
}
