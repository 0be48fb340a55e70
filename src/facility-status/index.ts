// The facility-status face (SPEC §4.1): built once by the composition root (src/services.ts).
// `createFacilityStatus` returns the face's operations (each bound to the parts it works with), the
// hooks through which a controller's reports and polls keep the reported state, its job
// definitions and close; routes/ turns HTTP calls into these operations.
//
//   reported state   reported-state.ts (its part of the ingest's statement, and the poll marks)
//   reads            status.ts (status list, a facility's status, devices), switches.ts (reported)
//   remote actions   switches.ts (emergency, lockdown), action-groups.ts (run; the operator's list
//                    and create) — each a command written through the command queue's door, and
//                    recorded with who asked and why (remote-actions.ts: the record, its list)
//   maintenance      maintenance-windows.ts (the operator's windows: schedule, list, cancel)
//   background       status-changes.ts, remote-actions.ts (purge), as jobs.ts defines them
// The words are decided by the pure rules in rules.ts; the SQL is in repository.ts.
import type { Database } from '../db/database.ts';
import type { BatchUpkeep } from '../events/index.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { FactPosition } from '../db/horizon.ts';
import type { EntityId } from '../ids.ts';
import type { Clock } from '../clock.ts';
import { createActionGroup, listActionGroups, listManualActionGroups, runActionGroup } from './action-groups.ts';
import type { FacilityStatusDeps } from './deps.ts';
import {
  type FacilityStatusFactScope,
  facilityStatusFactsSince,
  facilityStatusFactsAfter,
  facilityStatusFactsPast,
} from './facts.ts';
import { facilityStatusJobs } from './jobs.ts';
import { cancelMaintenanceWindow, listMaintenanceWindows, scheduleMaintenanceWindow } from './maintenance-windows.ts';
import { PollMarks, ReportedState, reportedEvent } from './reported-state.ts';
import { recordStatusChanges } from './status-changes.ts';
import { facilityStatus, listDevices, statusList } from './status.ts';
import { listRemoteActions, purgeOldRemoteActions } from './remote-actions.ts';
import { reportedSwitch, setSwitch } from './switches.ts';

export { ACTION_GROUP_ACTIONS, type ActionGroupAction } from './action-groups.ts';
export { remoteActionRequest, type RemoteActionView } from './remote-actions.ts';
export type { FacilitySwitch } from './rules.ts';
export type { FacilityStatusFact, FacilityStatusFactScope, FacilityStatusPayload } from './facts.ts';
// For the command line (`gatehouse admin action-group …`), which opens the database and builds no face.
export { createActionGroup, listActionGroups } from './action-groups.ts';
// For the command line (`gatehouse admin maintenance …`) and the routes, as above.
export {
  cancelMaintenanceWindow,
  listMaintenanceWindows,
  MAINTENANCE_WINDOWS_INCLUDE,
  MAINTENANCE_WINDOWS_PAGE_MAX,
  type MaintenanceWindowView,
  scheduleMaintenanceWindow,
} from './maintenance-windows.ts';
export {
  MAINTENANCE_REASON_MAX_LENGTH,
  MAINTENANCE_WINDOW_MAX_MS,
  MAINTENANCE_WINDOW_STATES,
  STATUS_WORDS,
  type StatusWord,
} from './rules.ts';

export interface FacilityStatusFaceDeps {
  database: Database;
  logger: Logger;
  clock: Clock;
  commands: FacilityStatusDeps['commands'];
}

export function createFacilityStatus({ database, logger, clock, commands }: FacilityStatusFaceDeps) {
  const deps: FacilityStatusDeps = { db: database.db, clock, commands };
  const bind =
    <A extends unknown[], R>(operation: (deps: FacilityStatusDeps, ...args: A) => R) =>
    (...args: A): R =>
      operation(deps, ...args);
  const reportedState = new ReportedState();
  const pollMarks = new PollMarks(database.db);
  // Every accepted event is applied, repeats included: the state keeps the newest word, so a repeat
  // changes nothing.
  const controllerReported: BatchUpkeep = (batch) =>
    reportedState.partsFor(batch.facilityId, batch.receivedAt, batch.events.map(reportedEvent));
  return {
    // Reads (a PMS's, an operator's).
    statusList: bind(statusList),
    facilityStatus: bind(facilityStatus),
    listDevices: bind(listDevices),
    reportedSwitch: bind(reportedSwitch),
    listManualActionGroups: bind(listManualActionGroups),
    // Remote actions: each a command to the controller.
    setSwitch: bind(setSwitch),
    runActionGroup: bind(runActionGroup),
    /** The remote actions asked for, who asked and why, with their commands' results (issue 28). */
    listRemoteActions: bind(listRemoteActions),
    /** What the daily job runs (also run by tests at a chosen time). */
    purgeOldRemoteActions: bind(purgeOldRemoteActions),
    // The operator's action groups.
    createActionGroup: (input: Parameters<typeof createActionGroup>[1]) => createActionGroup(deps.db, input),
    listActionGroups: (facility: EntityId | string) => listActionGroups(deps.db, facility),
    // The operator's maintenance windows.
    scheduleMaintenanceWindow: bind(scheduleMaintenanceWindow),
    listMaintenanceWindows: bind(listMaintenanceWindows),
    cancelMaintenanceWindow: bind(cancelMaintenanceWindow),
    /** What the job runs every minute (also run by tests at a chosen time). */
    recordStatusChanges: (now: number) => recordStatusChanges(deps.db, now),
    /**
     * A controller's report, parts of its batch's statement (handed to the events face by the
     * composition root): the facility's reported state (devices, alarms, switches, last heard)
     * commits with the events.
     */
    controllerReported,
    /** A controller's poll for commands marks it heard (the gateway part of the status). */
    controllerPolled: (facilityId: EntityId, now: number) => pollMarks.mark(facilityId, now),
    /** Its published facts (facility.status): changes recorded after < txid <= upTo, for push. */
    facts: {
      factsSince: (after: number, upTo: number, scope: FacilityStatusFactScope, limit: number) =>
        facilityStatusFactsSince(deps.db, after, upTo, scope, limit),
      factsAfter: (positions: readonly FactPosition[]) => facilityStatusFactsAfter(deps.db, positions),
      past: facilityStatusFactsPast,
    },
    /** The face's background jobs, worked by the server's queue. */
    jobs: facilityStatusJobs({ db: database.db, logger, clock }) as JobDefinition[],
    /** Nothing long-lived to close: the memories of what was written are plain maps. */
    async close() {},
  };
}

export type FacilityStatus = ReturnType<typeof createFacilityStatus>;
