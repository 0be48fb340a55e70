// Acknowledgement of commands by the controller: an ingested event of type 3 (Command Received)
// with data.commandId acknowledges that command of the event's facility — a part of the batch's one
// statement (the face's acknowledgeReceived, handed to the ingest by the composition root), so that
// the acknowledgement commits with the events. Ids that are not commands of this facility — another
// facility's, unknown, not even a UUID — are ignored without a trace: a controller can only
// acknowledge its own facility's commands, and a bad id must not fail the batch.
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { BatchStatementPart, StoredBatch } from '../events/index.ts';
import type { EntityId } from '../ids.ts';
import { isOpaqueId } from '../ids.ts';
import { markCommandsAcknowledged } from './repository.ts';

/** The ids worth asking about: UUIDs, lower case, once each. */
const commandIdsOf = (ids: readonly string[]) => [
  ...new Set(ids.filter((id) => isOpaqueId(id)).map((id) => id.toLowerCase())),
];

/** The part of a batch's statement that acknowledges the commands its events received (none: nothing to do). */
export function acknowledgementOf(batch: StoredBatch): BatchStatementPart[] {
  const ids = commandIdsOf(batch.receivedCommandIds);
  if (ids.length === 0) return [];
  return [{ name: 'commands_acknowledged', body: markCommandsAcknowledged(batch.facilityId, ids) }];
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
