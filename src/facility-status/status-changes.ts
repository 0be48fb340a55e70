// The facility status changes the job records (SPEC §4.1, issue 13 item 6): a status word that
// differs from the one last recorded is stored with its time and reason, for push delivery.
import type { Db } from '../db/tables.ts';
import * as repo from './repository.ts';
import { facilityStatuses } from './rules.ts';

/**
 * Compares every facility's status words with those last recorded and records each change (a row
 * of the status list changing colour) with its time and reason. Run every minute by a job: a
 * gateway falls silent without any event, so a change is noticed within a minute.
 */
export async function recordStatusChanges(db: Db, now: number): Promise<number> {
  let recorded = 0;
  for (const row of await repo.selectStatusFacts(db, 'all', now)) {
    const statuses = facilityStatuses(repo.statusFactsOf(row), now);
    const previous = row.recorded_statuses;
    const current = Object.fromEntries(Object.entries(statuses).map(([part, s]) => [part, s.status]));
    const changes = Object.entries(statuses)
      .filter(([part, s]) => previous?.[part] !== s.status)
      .map(([part, s]) => ({
        component: part,
        previous: previous?.[part] ?? null,
        status: s.status,
        message: s.message,
      }));
    if (changes.length === 0) continue;
    await repo.recordStatusChanges(db, row.facility_id, row.account_id, changes, current);
    recorded += changes.length;
  }
  return recorded;
}
