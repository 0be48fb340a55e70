// Wake-ups for controllers waiting on GET /gateway/v1/commands. A change that writes a command
// calls `notify(facilityId)` after its transaction commits: waiters of that facility in this
// process wake at once. On PostgreSQL the transaction also runs pg_notify, and each instance
// LISTENs on a dedicated connection, so a poll waiting on another instance wakes too. (The
// embedded database is one process's, and its NOTIFY does not cross connections.)
// Waiting costs no database connection: a waiter is a callback in a map.
import { type EntityId, parseEntityId } from '../ids.ts';
import type pino from 'pino';
import { ChannelListener } from '../db/listener.ts';

export const COMMAND_CHANNEL = 'gatehouse_commands';

export type WaitResult = 'notified' | 'timeout' | 'closing' | 'aborted';

interface Waiter {
  resolve(result: WaitResult): void;
}

export class CommandSignals {
  private readonly waiters = new Map<EntityId, Set<Waiter>>();
  private closing = false;
  private readonly listener: ChannelListener;

  constructor(logger: pino.Logger, databaseUrl: string | null) {
    this.listener = new ChannelListener(logger, databaseUrl, {
      channel: COMMAND_CHANNEL,
      name: 'command notification listener',
      onPayload: (payload) => {
        const facilityId = parseEntityId(payload);
        if (facilityId !== null) this.notify(facilityId);
      },
      // Notifications sent while no listener was connected are lost: let every waiter look again.
      onConnected: () => this.notifyAll('notified'),
    });
  }

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

  /** On PostgreSQL: LISTEN on a dedicated connection (db/listener.ts, reconnecting with back-off). */
  async listen(): Promise<void> {
    await this.listener.listen();
  }

  /** Ends every wait (the polls answer at once) and refuses new ones: for graceful shutdown. */
  beginClosing(): void {
    this.closing = true;
    this.notifyAll('closing');
  }

  async close(): Promise<void> {
    this.beginClosing();
    await this.listener.close();
  }
}
