// The sandbox rules, pure: how many an owner may have, what each size seeds, how long one is kept
// after its last use, and what a request to create one must say.
import type { FieldError } from '../errors.ts';
import { IDLE_AFTER_MS } from './controllers/rules.ts';

/** Live sandboxes per owner: the sixth is refused (409 SANDBOX_LIMIT). */
export const SANDBOX_LIMIT = 5;

/** What a seeded facility holds, by size (each visitor the tenant of a unit of its own). */
export const FACILITY_SIZES = {
  small: { units: 20, visitors: 10 },
  medium: { units: 200, visitors: 150 },
  large: { units: 5_000, visitors: 3_000 },
} as const;
export type FacilitySize = keyof typeof FACILITY_SIZES;
export const FACILITY_SIZE_NAMES = Object.keys(FACILITY_SIZES) as FacilitySize[];

/** Seeded facilities per sandbox: one of each size, or several small ones. */
export const MAX_SEEDED_FACILITIES = 3;

/** A sandbox is kept this long after its last use, then deleted by the daily job. */
export const SANDBOX_KEEP_DAYS = 30;
const DAY_MS = 86_400_000;

/** A sandbox's last use is written at most this often (a token a minute writes nothing more). */
export const LAST_USE_RESOLUTION_MS = 60_000;

/** The seeded facilities' time zone (the operator may change the facility afterwards like any other). */
export const SEEDED_TIME_ZONE = 'America/Denver';

export const isFacilitySize = (value: unknown): value is FacilitySize =>
  typeof value === 'string' && Object.hasOwn(FACILITY_SIZES, value);

/** When a sandbox last used at `lastUsedAt` is deleted. */
export const expiresAt = (lastUsedAt: Date): Date => new Date(lastUsedAt.getTime() + SANDBOX_KEEP_DAYS * DAY_MS);

/** Sandboxes last used before this are past keeping. */
export const expiryCutoff = (nowMs: number): Date => new Date(nowMs - SANDBOX_KEEP_DAYS * DAY_MS);

/** Whether a last use recorded at `recordedMs` is recent enough that another needs no write. */
export const lastUseIsFresh = (recordedMs: number | undefined, nowMs: number): boolean =>
  recordedMs !== undefined && nowMs - recordedMs < LAST_USE_RESOLUTION_MS;

/** Whether a sandbox whose last use was `before` (null: never recorded) had gone idle by `nowMs`. */
export const wasIdle = (before: Date | null, nowMs: number): boolean =>
  before === null || nowMs - before.getTime() > IDLE_AFTER_MS;

export interface SandboxRequest {
  name: string;
  facilities: FacilitySize[];
}

/** A request to create a sandbox, judged: the request as kept (name trimmed), or every fault named. */
export function judgeSandboxRequest(input: {
  name?: unknown;
  facilities?: unknown;
}): { ok: true; value: SandboxRequest } | { ok: false; faults: FieldError[] } {
  const faults: FieldError[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0 || name.length > 200 || /[\x00-\x1f\x7f]/.test(name))
    faults.push({ path: 'name', message: 'must be 1–200 printable characters' });
  const facilities = input.facilities ?? [];
  if (!Array.isArray(facilities)) {
    faults.push({ path: 'facilities', message: `must be a list of sizes (${FACILITY_SIZE_NAMES.join(', ')})` });
  } else {
    if (facilities.length > MAX_SEEDED_FACILITIES)
      faults.push({ path: 'facilities', message: `must name at most ${MAX_SEEDED_FACILITIES} facilities` });
    facilities.forEach((size, i) => {
      if (!isFacilitySize(size))
        faults.push({ path: `facilities[${i}]`, message: `must be one of ${FACILITY_SIZE_NAMES.join(', ')}` });
    });
  }
  return faults.length > 0
    ? { ok: false, faults }
    : { ok: true, value: { name, facilities: facilities as FacilitySize[] } };
}
