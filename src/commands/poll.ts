// The controller's long poll for its facility's commands (GET /gateway/v1/commands). With a wait,
// an empty answer is held until a command is written for the facility (a wake-up from this
// process or, on PostgreSQL, from another instance through LISTEN/NOTIFY), the wait ends, the
// client goes away, or the service shuts down — then no commands at once, so that SIGTERM is not
// held by waiting polls. Waiting holds no database connection (signals.ts).
import type { EntityId } from '../ids.ts';
import type { CommandsDeps } from './deps.ts';
import * as repo from './repository.ts';
import { type CommandType, revealCodes } from './rules.ts';

export interface PollRequest {
  /** The last sequence the controller applied. */
  after: number;
  limit: number;
  /** How long an empty answer may wait for a command; 0 answers at once. */
  waitMs: number;
}

/** The facility's commands after `after` for its controller (delivered, codes unsealed); [] when none came in time. */
export async function waitForCommands(
  {
    db,
    codes,
    signals,
    whenPolled,
    deliveryLag,
  }: Pick<CommandsDeps, 'db' | 'codes' | 'signals' | 'whenPolled' | 'deliveryLag'>,
  facilityId: EntityId,
  { after, limit, waitMs }: PollRequest,
  clientGone?: AbortSignal,
): Promise<DeliveredCommand[]> {
  const deadline = Date.now() + waitMs;
  for (const polled of whenPolled) await polled(facilityId, Date.now());
  // Ends the wait when the client goes away (no work for a closed socket), and the wait registered
  // by the last round when commands were found.
  const abort = new AbortController();
  const onGone = () => abort.abort();
  clientGone?.addEventListener('abort', onGone, { once: true });
  try {
    for (;;) {
      // Register interest before looking, so that a command committed in between still wakes us.
      const remaining = deadline - Date.now();
      const woken = remaining > 0 ? signals.wait(facilityId, remaining, abort.signal) : null;
      const commands = await deliverCommands({ db, codes, deliveryLag }, facilityId, after, limit);
      if (commands.length > 0 || !woken) return commands;
      if ((await woken) !== 'notified') return [];
    }
  } finally {
    abort.abort();
    clientGone?.removeEventListener('abort', onGone);
  }
}

export interface DeliveredCommand {
  id: string;
  sequence: number;
  type: CommandType;
  payload: unknown;
  createdAt: string;
}

/**
 * The facility's unacknowledged, unexpired commands after `after`, in order, for its controller:
 * marked delivered, gate codes unsealed.
 */
async function deliverCommands(
  { db, codes, deliveryLag }: Pick<CommandsDeps, 'db' | 'codes' | 'deliveryLag'>,
  facilityId: EntityId,
  after: number,
  limit: number,
): Promise<DeliveredCommand[]> {
  const rows = await repo.selectCommandsToDeliver(db, facilityId, after, limit);
  const first = rows.filter((r) => r.delivered_at === null);
  if (first.length > 0) {
    await repo.markCommandsDelivered(
      db,
      first.map((r) => r.id),
    );
    const now = Date.now();
    for (const r of first) deliveryLag.observe(Math.max(0, now - r.created_at.getTime()) / 1000);
  }
  return rows.map((r) => ({
    id: r.id,
    sequence: r.sequence,
    type: r.type,
    payload: revealCodes(r.payload, codes),
    createdAt: r.created_at.toISOString(),
  }));
}
