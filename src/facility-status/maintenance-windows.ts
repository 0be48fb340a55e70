// Maintenance windows (SPEC §4.1, issue 28): the operator schedules a time during which a facility's
// controller and devices are expected offline (a firmware update); while one is underway the status
// list's gateway and device parts say `maintenance` (rules.ts). Scheduled, listed and cancelled by the
// admin routes (routes/admin-maintenance-windows.ts) and `gatehouse admin maintenance …`; each takes
// the database and a clock alone, so the command line runs it without building the face.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/tables.ts';
import { conflict, type FieldError, notFound, validationFailed } from '../errors.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import { facilityExists } from '../tenancy/index.ts';
import * as repo from './repository.ts';
import { judgeMaintenanceWindow, type MaintenanceWindowState, windowState } from './rules.ts';

export interface MaintenanceDeps {
  db: Db;
  clock: Clock;
}

export interface MaintenanceWindowView {
  id: EntityId;
  facilityId: EntityId;
  startsAt: string;
  endsAt: string;
  reason: string | null;
  state: MaintenanceWindowState;
  scheduledBy: string;
  createdAt: string;
  cancelledAt: string | null;
  cancelledBy: string | null;
}

/** The most windows one list answers; the default is 100. */
export const MAINTENANCE_WINDOWS_PAGE_MAX = 1000;
export const MAINTENANCE_WINDOWS_INCLUDE = ['upcoming', 'all'] as const;

function windowView(row: repo.MaintenanceWindowRow, now: number): MaintenanceWindowView {
  return {
    id: row.id,
    facilityId: row.facility_id,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    reason: row.reason,
    state: windowState(
      {
        id: row.id,
        startsAt: row.starts_at.getTime(),
        endsAt: row.ends_at.getTime(),
        cancelledAt: row.cancelled_at?.getTime() ?? null,
        reason: row.reason,
      },
      now,
    ),
    scheduledBy: row.scheduled_by,
    createdAt: row.created_at.toISOString(),
    cancelledAt: row.cancelled_at?.toISOString() ?? null,
    cancelledBy: row.cancelled_by,
  };
}

const idFault = (path: string, what: string): FieldError => ({
  path,
  message: `must be ${what} id (a positive integer)`,
});

async function existingFacility(db: Db, facility: EntityId | string): Promise<EntityId> {
  const facilityId = parseEntityId(facility);
  if (facilityId === null) throw validationFailed([idFault('facilityId', 'a facility')]);
  if (!(await facilityExists(db, facilityId))) throw notFound('The facility');
  return facilityId;
}

/**
 * A new window of a facility. 400 naming each bad field (a date that is not one, an end not after
 * the start or already past, a window over 7 days, a reason over 200 characters); 404 for a facility
 * that does not exist. A start in the past starts the window now.
 */
export async function scheduleMaintenanceWindow(
  { db, clock }: MaintenanceDeps,
  input: {
    facilityId: EntityId | string;
    startsAt: string;
    endsAt: string;
    reason?: string | null;
    /** Who asks: `operator:<clientId>`, `cli:<user>`. */
    scheduledBy: string;
  },
): Promise<MaintenanceWindowView> {
  const now = clock.now();
  const judged = judgeMaintenanceWindow(input, now);
  const facilityId = parseEntityId(input.facilityId);
  const faults = [...(facilityId === null ? [idFault('facilityId', 'a facility')] : []), ...judged.faults];
  if (faults.length > 0) throw validationFailed(faults);
  await existingFacility(db, input.facilityId);
  const row = await repo.insertMaintenanceWindow(db, {
    facilityId: facilityId!,
    startsAt: new Date(judged.startsAt),
    endsAt: new Date(judged.endsAt),
    reason: judged.reason,
    scheduledBy: input.scheduledBy,
    createdAt: new Date(now),
  });
  return windowView(row, now);
}

/**
 * A facility's windows: by default those not over (underway or to come), by start; `all` adds the
 * ended and cancelled ones, newest start first. At most `limit` (1–1000, default 100), after the
 * window `after` (the last id of the page before). 404 for a facility that does not exist.
 */
export async function listMaintenanceWindows(
  { db, clock }: MaintenanceDeps,
  facility: EntityId | string,
  options: { include?: 'upcoming' | 'all'; limit?: number | string; after?: EntityId | string } = {},
): Promise<MaintenanceWindowView[]> {
  const now = clock.now();
  const facilityId = await existingFacility(db, facility);
  const limit = options.limit === undefined ? 100 : Number(options.limit);
  const afterId = options.after === undefined ? null : parseEntityId(options.after);
  const faults: FieldError[] = [];
  if (!Number.isInteger(limit) || limit < 1 || limit > MAINTENANCE_WINDOWS_PAGE_MAX)
    faults.push({ path: 'limit', message: `must be a whole number from 1 to ${MAINTENANCE_WINDOWS_PAGE_MAX}` });
  const after = afterId === null ? null : await repo.findMaintenanceWindow(db, facilityId, afterId);
  if (options.after !== undefined && !after)
    faults.push({ path: 'after', message: 'must be the id of a maintenance window of this facility' });
  if (faults.length > 0) throw validationFailed(faults);
  const rows = await repo.selectMaintenanceWindows(db, facilityId, {
    include: options.include ?? 'upcoming',
    now: new Date(now),
    limit,
    after: after ?? null,
  });
  return rows.map((row) => windowView(row, now));
}

/**
 * Cancels a window: one to come never starts, one underway ends now (the status list says so at its
 * next read, the facility.status webhook within a minute). Cancelling a cancelled window answers it
 * as it is; one already over is a 409 MAINTENANCE_WINDOW_OVER. 404 for a window of another facility.
 */
export async function cancelMaintenanceWindow(
  { db, clock }: MaintenanceDeps,
  facility: EntityId | string,
  window: EntityId | string,
  cancelledBy: string,
): Promise<MaintenanceWindowView> {
  const now = clock.now();
  const windowId = parseEntityId(window);
  const facilityId = parseEntityId(facility);
  const faults = [
    ...(facilityId === null ? [idFault('facilityId', 'a facility')] : []),
    ...(windowId === null ? [idFault('windowId', 'a maintenance window')] : []),
  ];
  if (faults.length > 0 || facilityId === null || windowId === null) throw validationFailed(faults);
  const cancelled = await repo.cancelMaintenanceWindow(db, facilityId, windowId, new Date(now), cancelledBy);
  if (cancelled) return windowView(cancelled, now);
  const found = await repo.findMaintenanceWindow(db, facilityId, windowId);
  if (!found) {
    await existingFacility(db, facilityId);
    throw notFound('The maintenance window');
  }
  if (found.cancelled_at !== null) return windowView(found, now);
  throw conflict(
    'MAINTENANCE_WINDOW_OVER',
    `The maintenance window ended at ${found.ends_at.toISOString()}: there is nothing to cancel.`,
  );
}
