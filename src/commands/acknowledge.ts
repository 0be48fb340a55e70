// Acknowledgement of commands by the controller: an ingested event of type 3 (Command Received)
// with data.commandId acknowledges that command of the event's facility — as applied, or, with
// data.result "failed", as failed with data.reason — a part of the batch's one statement (the face's
// acknowledgeReceived, handed to the ingest by the composition root), so that the acknowledgement
// commits with the events. The controller's first word on a command stands: a command acknowledged
// is never failed afterwards, nor the other way round (within a batch, the first event naming it).
//
// An applied acknowledgement of an id that is not a command of this facility — another facility's,
// unknown, not even a UUID — is ignored without a trace: a controller can only acknowledge its own
// facility's commands, and a bad id must not fail the batch. A failed one is ignored too, but warned
// of in the batch's answer (UNKNOWN_COMMAND): the controller meant to report a failure nobody will
// see. To know which ids matched, that part returns the facility's commands among them (whatever
// their status, so a retried batch is not warned of); only batches with failed acknowledgements pay
// for it.
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { BatchStatementPart, IngestWarning, StoredBatch } from '../events/index.ts';
import type { EntityId } from '../ids.ts';
import { isOpaqueId } from '../ids.ts';
import { markCommandsAcknowledged, markCommandsFailed, selectCommandsOfFacility } from './repository.ts';

/** The ids worth asking about: UUIDs, lower case, once each. */
const commandIdsOf = (ids: readonly string[]) => [
  ...new Set(ids.filter((id) => isOpaqueId(id)).map((id) => id.toLowerCase())),
];

/** A failed acknowledgement, with the event that reported it (for a warning). */
interface Failure {
  commandId: string;
  reason: string | null;
  index: number;
  eventId: string;
}

/**
 * What a batch's acknowledgements say, one word per command: the first event naming a command
 * decides (an id that is not a UUID can name no command: it is applied-and-ignored, or failed-and-warned).
 */
export function settlementsOf(events: StoredBatch['events']): { applied: string[]; failed: Failure[] } {
  const seen = new Set<string>();
  const applied: string[] = [];
  const failed: Failure[] = [];
  for (const e of events) {
    if (e.commandId === null || e.commandResult === null) continue;
    const commandId = isOpaqueId(e.commandId) ? e.commandId.toLowerCase() : e.commandId;
    if (seen.has(commandId)) continue;
    seen.add(commandId);
    if (e.commandResult.result === 'applied') applied.push(commandId);
    else failed.push({ commandId, reason: e.commandResult.reason, index: e.index, eventId: e.eventId });
  }
  return { applied: applied.filter((id) => isOpaqueId(id)), failed };
}

/** The warning for a failed acknowledgement that names no command of the facility. */
const unknownCommand = (f: Failure): IngestWarning => ({
  index: f.index,
  eventId: f.eventId,
  path: `events[${f.index}].data.commandId`,
  code: 'UNKNOWN_COMMAND',
  message: 'names no command of this facility: the event is stored, the failure recorded on no command',
});

/** The parts of a batch's statement that settle the commands its events acknowledged (none: nothing to do). */
export function acknowledgementOf(batch: StoredBatch): BatchStatementPart[] {
  const { applied, failed } = settlementsOf(batch.events);
  const parts: BatchStatementPart[] = [];
  if (applied.length > 0)
    parts.push({ name: 'commands_acknowledged', body: markCommandsAcknowledged(batch.facilityId, applied) });
  if (failed.length === 0) return parts;
  const named = failed.filter((f) => isOpaqueId(f.commandId));
  if (named.length > 0) parts.push({ name: 'commands_failed', body: markCommandsFailed(batch.facilityId, named) });
  parts.push({
    name: 'commands_failure_known',
    body: selectCommandsOfFacility(
      batch.facilityId,
      named.map((f) => f.commandId),
    ),
    warn: (rows) => {
      const known = new Set((rows as { id: string }[]).map((r) => r.id));
      return failed.filter((f) => !known.has(f.commandId)).map(unknownCommand);
    },
  });
  return parts;
}

/** Marks the facility's listed commands acknowledged (once), as a statement of its own; returns how many it acknowledged now. */
export async function acknowledgeCommands(db: Db, facilityId: EntityId, commandIds: string[]): Promise<number> {
  const ids = commandIdsOf(commandIds);
  if (ids.length === 0) return 0;
  const { rows } = await sql<{ n: number }>`
    with acknowledged as (${markCommandsAcknowledged(facilityId, ids)}) select count(*)::int as n from acknowledged`.execute(
    db,
  );
  return rows[0]!.n;
}
