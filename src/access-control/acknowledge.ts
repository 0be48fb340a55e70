// Acknowledgement of commands by the controller: an ingested event of type 3 (Command Received)
// with data.commandId acknowledges that command of the event's facility. Called by the event
// ingest inside its transaction.
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';

export async function acknowledgeCommands(_trx: Kysely<Tables>, _facilityId: string, _commandIds: string[]): Promise<void> {}
