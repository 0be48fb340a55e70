// "Events were stored": the wake-up of the live stream and of the push face. After an ingest batch
// commits, `stored(accountId, facilityId)` tells the listeners of this process at once. On
// PostgreSQL the ingest statement itself also runs pg_notify (ingest.ts: no extra round trip), and
// each instance LISTENs on a dedicated connection (db/listener.ts), so a stream open on instance B
// wakes for a batch stored through instance A. The embedded database is one process's, and its
// NOTIFY does not cross connections: in-process notification is all there is, and all it needs.
//
// An instance hears its own NOTIFY too, a moment after it told its listeners in-process. The
// payload carries the instance's tag, so that echo is skipped: a listener hears each batch once.
// A notification can still be lost (sent while the listener reconnects): `onReconnected` tells
// who cares to look again, and the stream polls now and then besides (routes/stream.ts).
import type pino from 'pino';
import { randomBytes } from 'node:crypto';
import { ChannelListener } from '../db/listener.ts';
import { type EntityId, parseEntityId } from '../ids.ts';

export const EVENTS_CHANNEL = 'gatehouse_events';

export type StoredListener = (accountId: EntityId, facilityId: EntityId) => void;

/** `<accountId>:<facilityId>`, and `:<instance>` when an instance sends it. */
export const storedPayload = (accountId: EntityId, facilityId: EntityId, instance?: string) =>
  instance ? `${accountId}:${facilityId}:${instance}` : `${accountId}:${facilityId}`;

/** The payload's parts, or null for one this service did not write. */
export function parseStoredPayload(
  payload: string,
): { accountId: EntityId; facilityId: EntityId; instance: string | null } | null {
  const [account, facility, instance, ...rest] = payload.split(':');
  if (rest.length > 0 || account === undefined || facility === undefined) return null;
  const accountId = parseEntityId(account);
  const facilityId = parseEntityId(facility);
  if (accountId === null || facilityId === null) return null;
  return { accountId, facilityId, instance: instance || null };
}

export class EventSignals {
  private readonly listeners = new Set<StoredListener>();
  private readonly reconnectListeners = new Set<() => void>();
  /** This process's tag in the payloads it sends (its own echoes are skipped). */
  readonly instance = randomBytes(6).toString('hex');
  private readonly listener: ChannelListener;

  constructor(
    private readonly logger: pino.Logger,
    /** A PostgreSQL server's URL; null on the embedded database (in-process only). */
    private readonly databaseUrl: string | null,
  ) {
    this.listener = new ChannelListener(logger, databaseUrl, {
      channel: EVENTS_CHANNEL,
      name: 'event notification listener',
      onPayload: (payload) => {
        const stored = parseStoredPayload(payload);
        if (stored && stored.instance !== this.instance) this.stored(stored.accountId, stored.facilityId);
      },
      onConnected: () => {
        for (const listener of [...this.reconnectListeners]) this.call(() => listener());
      },
    });
  }

  /**
   * The channel and payload for the ingest statement's pg_notify, or null where NOTIFY does not
   * reach other instances (the embedded database).
   */
  notification(accountId: EntityId, facilityId: EntityId): { channel: string; payload: string } | null {
    if (!this.databaseUrl) return null;
    return { channel: EVENTS_CHANNEL, payload: storedPayload(accountId, facilityId, this.instance) };
  }

  /** Calls `listener` after each batch of the facility's events commits (on any instance); returns its unsubscribe. */
  onStored(listener: StoredListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` when notifications may have been lost (the listening connection came back). */
  onReconnected(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Tells this process's listeners that a batch of the facility's events has committed. */
  stored(accountId: EntityId, facilityId: EntityId): void {
    for (const listener of [...this.listeners]) this.call(() => listener(accountId, facilityId));
  }

  /** One listener's failure is its own: the others still hear, and ingest never fails for it. */
  private call(listener: () => void): void {
    try {
      listener();
    } catch (error) {
      this.logger.error({ err: error }, 'an event-stored listener failed');
    }
  }

  /** On PostgreSQL: LISTEN on a dedicated connection (reconnecting). */
  listen(): Promise<void> {
    return this.listener.listen();
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.reconnectListeners.clear();
    await this.listener.close();
  }
}
