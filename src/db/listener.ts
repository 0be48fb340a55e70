// A LISTEN on a dedicated PostgreSQL connection, for wake-ups that cross instances: a face's
// transaction runs pg_notify(channel, payload), the notification goes out when it commits, and every
// instance that listens hears it. The connection reconnects with back-off when it is lost; since
// notifications sent while no listener was connected are lost, `onConnected` runs after each
// (re)connection so the face can let its waiters look again.
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

export class ChannelListener {
  private closing = false;
  private client: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = 250;

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
      this.logger.warn({ err: error }, `${name} could not connect; retrying`);
      this.drop(client);
      return;
    }
    if (this.closing) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelayMs = 250;
    this.options.onConnected?.();
  }

  private drop(client: pg.Client): void {
    if (this.client === client) this.client = null;
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
