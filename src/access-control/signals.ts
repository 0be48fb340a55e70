// Wake-ups for controllers waiting on GET /gateway/v1/commands. A change that writes a command
// calls `notify(facilityId)` after its transaction commits: waiters of that facility in this
// process wake at once. On PostgreSQL the transaction also runs pg_notify, and each instance
// LISTENs on a dedicated connection, so a poll waiting on another instance wakes too. (The
// embedded database is one process's, and its NOTIFY does not cross connections.)
// Waiting costs no database connection: a waiter is a callback in a map.
import { type EntityId, parseEntityId } from '../ids.ts';
import pg from 'pg';
import type pino from 'pino';

export const COMMAND_CHANNEL = 'gatehouse_commands';

export type WaitResult = 'notified' | 'timeout' | 'closing' | 'aborted';

interface Waiter {
  resolve(result: WaitResult): void;
}

export class CommandSignals {
  private readonly waiters = new Map<EntityId, Set<Waiter>>();
  private closing = false;
  private listener: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = 250;

  constructor(
    private readonly logger: pino.Logger,
    private readonly databaseUrl: string | null,
  ) {}

  /** How many polls are waiting now (for metrics and tests). */
  get waiting(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /**
   * Resolves when a command for the facility may exist ('notified'), after `ms` ('timeout'), when
   * the service shuts down ('closing'), or when `abort` fires ('aborted').
   */
  wait(facilityId: EntityId, ms: number, abort?: AbortSignal): Promise<WaitResult> {
    if (this.closing) return Promise.resolve('closing');
    if (abort?.aborted) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      let waiters = this.waiters.get(facilityId);
      if (!waiters) {
        waiters = new Set();
        this.waiters.set(facilityId, waiters);
      }
      const finish = (result: WaitResult) => {
        clearTimeout(timer);
        abort?.removeEventListener('abort', onAbort);
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiters.get(facilityId) === waiters) this.waiters.delete(facilityId);
        resolve(result);
      };
      const waiter: Waiter = { resolve: finish };
      const onAbort = () => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), ms);
      abort?.addEventListener('abort', onAbort, { once: true });
      waiters.add(waiter);
    });
  }

  /** Wakes the facility's waiters in this process. */
  notify(facilityId: EntityId): void {
    const set = this.waiters.get(facilityId);
    if (!set) return;
    for (const waiter of [...set]) waiter.resolve('notified');
  }

  private notifyAll(result: WaitResult): void {
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.resolve(result);
  }

  /** On PostgreSQL: LISTEN on a dedicated connection (reconnecting with back-off). */
  async listen(): Promise<void> {
    if (!this.databaseUrl || this.closing) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5000 });
    client.on('notification', (message) => {
      const facilityId = parseEntityId(message.payload);
      if (message.channel === COMMAND_CHANNEL && facilityId !== null) this.notify(facilityId);
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'command notification listener lost its connection');
      this.dropListener(client);
    });
    client.on('end', () => this.dropListener(client));
    try {
      await client.connect();
      await client.query(`listen ${COMMAND_CHANNEL}`);
    } catch (error) {
      this.logger.warn({ err: error }, 'command notification listener could not connect; retrying');
      this.dropListener(client);
      return;
    }
    if (this.closing) {
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
    this.reconnectDelayMs = 250;
    // Notifications sent while no listener was connected are lost: let every waiter look again.
    this.notifyAll('notified');
  }

  private dropListener(client: pg.Client): void {
    if (this.listener === client) this.listener = null;
    client.removeAllListeners('notification');
    client.end().catch(() => {});
    if (this.closing || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 10_000);
  }

  /** Ends every wait (the polls answer at once) and refuses new ones: for graceful shutdown. */
  beginClosing(): void {
    this.closing = true;
    this.notifyAll('closing');
  }

  async close(): Promise<void> {
    this.beginClosing();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const listener = this.listener;
    this.listener = null;
    if (listener) {
      listener.removeAllListeners('end');
      listener.removeAllListeners('error');
      listener.on('error', () => {});
      await listener.end().catch(() => {});
    }
  }
}
