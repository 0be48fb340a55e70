// Acknowledgement of commands by the controller: an ingested event of type 3 (Command Received)
// with data.commandId acknowledges that command of the event's facility. Called by the event
// ingest inside its transaction. Ids that are not commands of this facility — another
// facility's, unknown, not even a UUID — are ignored without a trace: a controller can only
// acknowledge its own facility's commands, and a bad id must not fail the ingest transaction.
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/tables.ts';
import { isOpaqueId } from '../ids.ts';


/** Marks the facility's listed commands acknowledged (once); returns how many it acknowledged now. */
export async function acknowledgeCommands(trx: Db, facilityId: string, commandIds: string[]): Promise<number> {
  const ids = [...new Set(commandIds.filter((id) => isOpaqueId(id)).map((id) => id.toLowerCase()))];
  if (ids.length === 0) return 0;
  const result = await trx
    .updateTable('commands')
    .set({ acknowledged_at: sql`now()`, delivered_at: sql`coalesce(delivered_at, now())` })
    .where('facility_id', '=', facilityId)
    .where('id', 'in', ids)
    .where('acknowledged_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
