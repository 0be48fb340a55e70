// A LISTEN on a dedicated PostgreSQL connection, for wake-ups that cross instances: a face's
// transaction runs pg_notify(channel, payload), the notification goes out when it commits, and every
// instance that listens hears it. The connection reconnects with back-off when it is lost; since
// notifications sent while no listener was connected are lost, `onConnected` runs after each
// (re)connection so the face can let its waiters look again.
// The back-off stops growing at 2 s: after a failover of 30 s a listener that waited 10 s between
// attempts came back about 6 s after the database (issue 27), and until then a long poll or a live
// stream held on this instance slept through what other instances wrote. Two connection attempts a
// second per instance, against a database that refuses them, cost nothing worth that.
// The embedded database is one process's, and its NOTIFY does not cross connections: there a face
// wakes its waiters in-process only, and no listener is opened (databaseUrl null).
import pg from 'pg';
import type pino from 'pino';

export interface ChannelListenerOptions {
  /** The channel to LISTEN on (a plain identifier). */
  channel: string;
  /** What the log lines call it, e.g. "command notification listener". */
  name: string;
  /** Each notification's payload. */
  onPayload(payload: string): void;
  /** After each successful (re)connection. */
  onConnected?(): void;
}

const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 2000;

export class ChannelListener {
  private closing = false;
  private client: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = FIRST_RETRY_MS;
  /** When the listening connection was lost (or first failed to connect); null while it listens. */
  private lostSince: number | null = null;
  /** Connection attempts failed since it last listened. */
  private failedAttempts = 0;

  constructor(
    private readonly logger: pino.Logger,
    /** A PostgreSQL server's URL, or null (the embedded database: nothing to listen to). */
    private readonly databaseUrl: string | null,
    private readonly options: ChannelListenerOptions,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new Error(`not a channel name: ${options.channel}`);
  }

  /** Connects and LISTENs (on PostgreSQL); a failure is logged and retried, never thrown. */
  async listen(): Promise<void> {
    if (!this.databaseUrl || this.closing) return;
    const { channel, name } = this.options;
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5000 });
    client.on('notification', (message) => {
      if (message.channel === channel) this.options.onPayload(message.payload ?? '');
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, `${name} lost its connection`);
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      await client.query(`listen ${channel}`);
    } catch (error) {
      // Once per outage at warn: the attempts every 2 s that follow would fill the log.
      const level = this.failedAttempts++ === 0 ? 'warn' : 'debug';
      this.logger[level]({ err: error }, `${name} could not connect; retrying`);
      this.drop(client);
      return;
    }
    if (this.closing) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelayMs = FIRST_RETRY_MS;
    if (this.lostSince !== null) {
      const downMs = Date.now() - this.lostSince;
      this.logger.info({ downMs, failedAttempts: this.failedAttempts }, `${name} is listening again`);
      this.lostSince = null;
    }
    this.failedAttempts = 0;
    this.options.onConnected?.();
  }

  private drop(client: pg.Client): void {
    if (this.client === client) this.client = null;
    this.lostSince ??= Date.now();
    client.removeAllListeners('notification');
    client.end().catch(() => {});
    if (this.closing || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, LONGEST_RETRY_MS);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      client.removeAllListeners('error');
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}
