// Acknowledgement of commands by the controller: an ingested event of type 3 (Command Received)
// with data.commandId acknowledges that command of the event's facility. Called by the event
// ingest inside its transaction (the face's acknowledgeReceived hook). Ids that are not commands of this facility — another
// facility's, unknown, not even a UUID — are ignored without a trace: a controller can only
// acknowledge its own facility's commands, and a bad id must not fail the ingest transaction.
import type { EntityId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import { isOpaqueId } from '../ids.ts';
import { markCommandsAcknowledged } from './repository.ts';

/** Marks the facility's listed commands acknowledged (once); returns how many it acknowledged now. */
export async function acknowledgeCommands(trx: Db, facilityId: EntityId, commandIds: string[]): Promise<number> {
  const ids = [...new Set(commandIds.filter((id) => isOpaqueId(id)).map((id) => id.toLowerCase()))];
  if (ids.length === 0) return 0;
  return markCommandsAcknowledged(trx, facilityId, ids);
}
