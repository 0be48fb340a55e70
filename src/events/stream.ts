// The live stream (SPEC §6.4): each event of the filter as it is stored, as server-sent events
// (sse.ts), `id:` its tail cursor (tail.ts), so that a client that reconnects with Last-Event-ID
// continues exactly after the last event it received.
//
// A stream reads when the event-stored signal names its account (and facility) — at once, on any
// instance (signals.ts) — and also every `pollMs` without one, in case a notification was lost (a
// listener reconnecting, a database failover). Between reads it holds no database connection.
// Memory per connection is bounded by back-pressure: the frames are pulled by the response (one
// batch of at most `batch` events at a time), so a slow client slows its own stream and nothing
// piles up in memory; a client that reads nothing at all for `stallMs` while its buffers are full is
// dropped (it reconnects with Last-Event-ID and misses nothing). On shutdown every stream ends at once
// (beginClosing), after a `retry:` field and a comment (shutdownFrames): the server's close does not
// wait for them, and clients reconnect elsewhere.
//
// A stream lives no longer than what opened it: every `credentialCheckMs` the credentials of the
// open streams are looked up afresh (one statement per kind, however many streams) and the token
// expiries compared with the clock; a stream whose credential was revoked or whose token expired
// ends with a final `end` event saying why (STREAM_ENDS). And one credential holds at most
// `perCredential` streams at once on this instance (admit).
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type pino from 'pino';
import { type Clock, GatheringTicks } from '../clock.ts';
import type { EventFilter, EventRow } from './query.ts';
import { eventJson } from './render.ts';
import type { EventSignals } from './signals.ts';
import { sseComment, sseData, sseId, sseNamedEvent, sseRetry } from './sse.ts';
import type { EventStore } from './store.ts';
import type { EntityId } from '../ids.ts';

export interface StreamSettings {
  /** A comment after this long without a write, so that proxies keep the connection (SPEC: 15 s). */
  heartbeatMs: number;
  /** A read after this long without one, even without a signal. */
  pollMs: number;
  /**
   * Woken streams read at ticks of this clock. An account's controllers commit hundreds of batches
   * a second; a stream woken by each would read and write hundreds of times a second (a write is a
   * system call per stream): it gathers what is stored until the next tick into one read and one
   * write instead, at this much latency at most, and the streams woken meanwhile read together.
   */
  gatherMs: number;
  /** Events per read (and per write). */
  batch: number;
  /** A client whose buffers stay full this long is dropped. */
  stallMs: number;
  /** What the client is told to wait before it reconnects (the `retry:` field). */
  retryMs: number;
  /**
   * How often the open streams' credentials are looked up and their tokens' expiries checked: a
   * revoked credential's streams end within this (plus a lookup), inside the guard's 5 s window.
   */
  credentialCheckMs: number;
  /** Streams one credential may hold open at once (EVENT_STREAMS_PER_CREDENTIAL, set by createEvents). */
  perCredential: number;
}

export const STREAM_DEFAULTS: StreamSettings = {
  heartbeatMs: 15_000,
  pollMs: 5_000,
  gatherMs: 50,
  batch: 100,
  stallMs: 60_000,
  retryMs: 1_000,
  credentialCheckMs: 2_000,
  perCredential: Number.POSITIVE_INFINITY,
};

/** Who holds a stream: its credential and its token's expiry. */
export interface StreamHolder {
  /** The credential (`<kind>:<credentialId>`): revoking it ends the stream; the cap counts per credential. */
  credential: string;
  /** When the token expires (epoch ms, as the clock reads it): the stream ends then. */
  expiresAt: number;
}

/** What the streams need to know whether their holders are still in force. */
export interface CredentialWatch {
  clock: Clock;
  /** Of these credentials, the ones no longer in force, asked afresh (auth's CredentialStatus). */
  revokedAmong(credentials: Iterable<string>): Promise<Set<string>>;
  /** Told of each stream the service ends (the face's metrics). */
  ended?(reason: StreamEndCode): void;
}

/** Why the service ended a stream: the final `end` event's `code`, and its `detail`. */
export const STREAM_ENDS = {
  CREDENTIAL_REVOKED:
    "The credential of this stream's token has been revoked: the stream ends, and the credential's tokens are refused.",
  TOKEN_EXPIRED:
    "This stream's token has expired: reconnect with a new token, sending Last-Event-ID, to continue after the last event received.",
} as const;
export type StreamEndCode = keyof typeof STREAM_ENDS;

/** The final event of a stream the service ends: `event: end`, data `{"code": …, "detail": …}`. */
export const endEvent = (code: StreamEndCode): string =>
  sseNamedEvent('end', JSON.stringify({ code, detail: STREAM_ENDS[code] }));

/**
 * What a stream ended by the shutdown sends last: the wait before the client reconnects (an
 * EventSource does so by itself, sending Last-Event-ID, through the balancer to another instance)
 * and a comment saying why. The wait is spread between `retryMs` and twice that (`spread`, from 0
 * to 1), so that the streams of an instance that closes do not all reconnect in the same moment.
 */
export const shutdownFrames = (retryMs: number, spread: number): string =>
  sseRetry(retryMs * (1 + Math.min(1, Math.max(0, spread)))) +
  sseComment('the service is shutting down: reconnect, sending Last-Event-ID');

/** A stream's place in its credential's count (admit), given back once when the stream ends. */
export interface StreamSlot {
  holder: StreamHolder;
  release(): void;
}

/** A client that does not take its final event within this is cut. */
const ENDING_GRACE_MS = 1_000;

type TailBatch = Awaited<ReturnType<EventStore['tail']>>;

interface OpenStream {
  response: ServerResponse;
  holder: StreamHolder;
  stop: AbortController;
  /** Why the service is ending it (null: it is not, or the client went). */
  ending: StreamEndCode | null;
  /** Since when the response's buffer has been full (null: it drains). */
  stalledSince: number | null;
  ended: Promise<void>;
}

/** Whether a batch stored for (account, facility) may hold events of the filter. */
export function concerns(filter: EventFilter, accountId: EntityId, facilityId: EntityId): boolean {
  if (filter.scope.accountId !== accountId) return false;
  if (filter.scope.kind === 'facility' && filter.scope.facilityId !== facilityId) return false;
  return filter.facilityIds === null || filter.facilityIds.includes(facilityId);
}

export class LiveStreams {
  /** Live settings: a stream reads them on each step (tests shorten them). */
  readonly settings: StreamSettings;
  private readonly streams = new Set<OpenStream>();
  /** Streams held (admitted, not yet ended) per credential. */
  private readonly held = new Map<string, number>();
  private closing = false;
  /**
   * Each event's data field, rendered once for every stream that sends it: an account's caught-up
   * streams share the rows of one read (store.ts), so 100 streams render an event once, not 100
   * times. Kept as long as the row is (a WeakMap: the rows go with the reads that hold them).
   */
  private readonly rendered = new WeakMap<EventRow, string>();
  /** The ticks at which woken streams read (every gatherMs), shared by all of them. */
  private readonly ticks = new GatheringTicks(() => this.settings.gatherMs);
  private sweeper: NodeJS.Timeout | null = null;
  private watcher: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly signals: EventSignals,
    private readonly logger: pino.Logger,
    settings: Partial<StreamSettings>,
    private readonly watch: CredentialWatch,
  ) {
    this.settings = { ...STREAM_DEFAULTS, ...settings };
  }

  /** Streams open now. */
  get open(): number {
    return this.streams.size;
  }

  /** Streams the credential holds now (admitted and not yet ended). */
  heldBy(credential: string): number {
    return this.held.get(credential) ?? 0;
  }

  /**
   * A place for one more stream of the holder's credential, or null when it holds `perCredential`
   * already (the route answers 429). Taken before the stream's first read; released when it ends.
   */
  admit(holder: StreamHolder): StreamSlot | null {
    const { credential } = holder;
    const held = this.heldBy(credential);
    if (held >= this.settings.perCredential) return null;
    this.held.set(credential, held + 1);
    let released = false;
    return {
      holder,
      release: () => {
        if (released) return;
        released = true;
        const left = this.heldBy(credential) - 1;
        if (left > 0) this.held.set(credential, left);
        else this.held.delete(credential);
      },
    };
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /**
   * The first read of a stream: after `lastEventId` when the client sends one, else from now, or
   * from `since` (every retained event that occurred since, then everything stored later). It runs
   * before any byte of the answer: a Last-Event-ID that is not a cursor of this filter throws
   * InvalidCursorError here, and the route answers 400.
   */
  async begin(filter: EventFilter, lastEventId: string | undefined, since?: number): Promise<TailBatch> {
    const cursor = lastEventId ?? (await this.store.tailStart(filter, since));
    return this.store.tail(filter, cursor, this.settings.batch);
  }

  /**
   * The stream's text, from the first read on, for `response`: a Readable pulled by the response
   * (back-pressure). It ends when the client goes, or when the service closes.
   */
  frames(filter: EventFilter, first: TailBatch, response: ServerResponse, slot: StreamSlot): Readable {
    const stop = new AbortController();
    let ended!: () => void;
    const open: OpenStream = {
      response,
      holder: slot.holder,
      stop,
      ending: null,
      stalledSince: null,
      ended: new Promise((resolve) => (ended = resolve)),
    };
    if (this.closing || response.destroyed) stop.abort();
    this.streams.add(open);
    this.sweepWhileOpen();
    this.watchWhileOpen();
    response.once('close', () => stop.abort());
    // A client that drains at all is not stalled, whatever the sweeps happened to see.
    response.on('drain', () => {
      open.stalledSince = null;
    });
    const readable = Readable.from(this.run(open, filter, first), { objectMode: true, highWaterMark: 1 });
    readable.once('close', () => {
      this.streams.delete(open);
      slot.release();
      ended();
    });
    return readable;
  }

  private dataOf(row: EventRow): string {
    let data = this.rendered.get(row);
    if (data === undefined) {
      data = sseData(eventJson(row));
      this.rendered.set(row, data);
    }
    return data;
  }

  /**
   * The stream's frames, then, when the service ended it, the final event saying why — or, at
   * shutdown, when to reconnect.
   */
  private async *run(open: OpenStream, filter: EventFilter, first: TailBatch): AsyncGenerator<string> {
    yield* this.follow(filter, first, open.stop.signal);
    if (open.ending) yield endEvent(open.ending);
    else if (this.closing && !open.response.destroyed) yield shutdownFrames(this.settings.retryMs, Math.random());
  }

  private async *follow(filter: EventFilter, first: TailBatch, stop: AbortSignal): AsyncGenerator<string> {
    const { settings } = this;
    let woken = false;
    let wake: (() => void) | null = null;
    const rouse = () => {
      woken = true;
      wake?.();
    };
    const unsubscribe = this.signals.onStored((accountId, facilityId) => {
      if (concerns(filter, accountId, facilityId)) rouse();
    });
    // Notifications sent while the listener was away are lost: look again.
    const unsubscribeReconnect = this.signals.onReconnected(rouse);
    const onStop = () => wake?.();
    const ended = new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
    stop.addEventListener('abort', onStop);
    try {
      // Sent at once, so the client knows the stream is open before the first event.
      yield sseRetry(settings.retryMs) + sseComment('stream open');
      let lastWrite = Date.now();
      let lastRead = Date.now();
      let batch = first;
      for (;;) {
        // Ended meanwhile (its credential, the client, shutdown): what was read is not sent.
        if (stop.aborted) return;
        if (batch.events.length > 0) {
          let text = '';
          for (const { row, cursor } of batch.events) text += sseId(cursor) + this.dataOf(row);
          yield text;
          lastWrite = Date.now();
        }
        if (stop.aborted) return;
        // A full batch: the walk has more at once. Otherwise wait for a signal, the poll, or the heartbeat.
        if (batch.events.length < settings.batch) {
          while (!woken && !stop.aborted) {
            const now = Date.now();
            const heartbeatAt = lastWrite + settings.heartbeatMs;
            const pollAt = lastRead + settings.pollMs;
            if (now >= heartbeatAt) {
              yield sseComment('keep-alive');
              lastWrite = Date.now();
              continue;
            }
            if (now >= pollAt) break;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, Math.min(heartbeatAt, pollAt) - now);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = null;
          }
          if (stop.aborted) return;
          // Woken: what else is stored until the instance's next gathering tick comes in the same
          // read, and every stream woken meanwhile reads at that tick, together (one shared read).
          if (woken) await Promise.race([this.ticks.next(), ended]);
          if (stop.aborted) return;
        }
        // A signal during this read is not lost: it sets `woken` again, and the next step reads at once.
        woken = false;
        lastRead = Date.now();
        try {
          batch = await this.store.tail(filter, batch.cursor, settings.batch);
        } catch (error) {
          // The database failed: end the stream; the client reconnects after its last event.
          if (!stop.aborted) this.logger.warn({ err: error }, 'a live event stream ended: its read failed');
          return;
        }
      }
    } finally {
      unsubscribe();
      unsubscribeReconnect();
      stop.removeEventListener('abort', onStop);
    }
  }

  /** While streams are open: every credentialCheckMs, ends the streams whose holders are no longer in force. */
  private watchWhileOpen(): void {
    if (this.watcher) return;
    const next = () => {
      const timer = setTimeout(async () => {
        await this.checkHolders();
        if (this.watcher !== timer) return; // closed meanwhile
        if (this.streams.size > 0) next();
        else this.watcher = null;
      }, this.settings.credentialCheckMs);
      timer.unref();
      this.watcher = timer;
    };
    next();
  }

  /** Ends the streams whose token has expired or whose credential has been revoked. */
  private async checkHolders(): Promise<void> {
    const now = this.watch.clock.now();
    const live = [...this.streams].filter((open) => open.ending === null && !open.stop.signal.aborted);
    for (const open of live) if (now >= open.holder.expiresAt) this.end(open, 'TOKEN_EXPIRED');
    const credentials = new Set(live.filter((open) => open.ending === null).map((open) => open.holder.credential));
    if (credentials.size === 0) return;
    let revoked: Set<string>;
    try {
      revoked = await this.watch.revokedAmong(credentials);
    } catch (error) {
      // The database failed: the streams' own reads fail too, and end them.
      this.logger.warn({ err: error }, "the live event streams' credentials could not be checked");
      return;
    }
    for (const open of this.streams) {
      if (open.ending === null && !open.stop.signal.aborted && revoked.has(open.holder.credential))
        this.end(open, 'CREDENTIAL_REVOKED');
    }
  }

  /** Ends a stream with its final event; a client that does not take it within a moment is cut. */
  private end(open: OpenStream, reason: StreamEndCode): void {
    open.ending = reason;
    open.stop.abort();
    this.watch.ended?.(reason);
    this.logger.info({ reason }, 'a live event stream ended: its credential is no longer in force');
    setTimeout(() => {
      if (this.streams.has(open)) open.response.destroy();
    }, ENDING_GRACE_MS).unref();
  }

  /** While streams are open: drops a client whose buffers stay full for stallMs. */
  private sweepWhileOpen(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const open of this.streams) {
          if (!open.response.writableNeedDrain) open.stalledSince = null;
          else if (open.stalledSince === null) open.stalledSince = now;
          else if (now - open.stalledSince >= this.settings.stallMs) {
            this.logger.info(
              { stalledMs: now - open.stalledSince },
              'a live event stream dropped: its client reads nothing',
            );
            open.response.destroy();
          }
        }
        if (this.streams.size === 0 && this.sweeper) {
          clearInterval(this.sweeper);
          this.sweeper = null;
        }
      },
      Math.max(100, Math.min(5_000, this.settings.stallMs / 4)),
    );
    this.sweeper.unref();
  }

  /**
   * Ends every stream and refuses new ones (shutdown, before the HTTP server waits for its
   * requests). A stream whose client does not take its last bytes within `graceMs` is cut.
   */
  async beginClosing(graceMs = 1_000): Promise<void> {
    this.closing = true;
    const open = [...this.streams];
    for (const stream of open) stream.stop.abort();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(open.map((stream) => stream.ended)), grace]);
    clearTimeout(timer);
    for (const stream of open) if (this.streams.has(stream)) stream.response.destroy();
  }

  async close(): Promise<void> {
    await this.beginClosing(0);
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    if (this.watcher) clearTimeout(this.watcher);
    this.watcher = null;
  }
}
