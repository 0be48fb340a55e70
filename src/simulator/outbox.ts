// A controller's queue of events for the service: sent in batches; a batch that fails for a
// reason worth retrying (service down, 5xx, 429) is sent again later with the same events and so
// the same eventIds — the service stores a retried event once. A batch the service refuses whole
// (400/413) is dropped, and so is each event it rejects (SPEC §5: they are not resent).
import type { GatewayEvent, IngestAnswer } from './client.ts';
import { HttpError } from './client.ts';

export interface OutboxOptions {
  batchSize: number;
  flushMs: number;
  /** Beyond this many queued events the oldest are dropped (a controller's memory is finite). */
  maxQueued: number;
  /** Told of every failed send (after the stats are counted): the simulator says why in words. */
  onFailure?: (error: unknown) => void;
}

export interface OutboxStats {
  accepted: number;
  duplicates: number;
  rejected: number;
  dropped: number;
  retries: number;
  errors: number;
  lastError: string | null;
  serviceUp: boolean | null;
}

export const newOutboxStats = (): OutboxStats => ({
  accepted: 0,
  duplicates: 0,
  rejected: 0,
  dropped: 0,
  retries: 0,
  errors: 0,
  lastError: null,
  serviceUp: null,
});

export class Outbox {
  private queue: GatewayEvent[] = [];
  private inFlight: GatewayEvent[] | null = null;
  private sending = false;
  private urgent = false;
  private lastFlush = Date.now();
  private retryAt = 0;
  private backoffMs = 500;

  constructor(
    private readonly send: (events: GatewayEvent[]) => Promise<IngestAnswer>,
    private readonly options: OutboxOptions,
    private readonly stats: OutboxStats,
    private readonly onAnswer: (events: GatewayEvent[], answer: IngestAnswer) => void = () => {},
  ) {}

  get queued(): number {
    return this.queue.length + (this.inFlight?.length ?? 0);
  }

  /** Queues an event; an urgent one (a command acknowledgement) is sent without waiting for a full batch. */
  push(event: GatewayEvent, urgent = false): void {
    this.queue.push(event);
    if (urgent) this.urgent = true;
    const excess = this.queue.length - this.options.maxQueued;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.stats.dropped += excess;
    }
  }

  /** Starts a send when one is due; returns at once (the send runs on its own). */
  maybeFlush(now = Date.now()): void {
    if (this.sending || now < this.retryAt) return;
    if (!this.inFlight) {
      const due =
        this.urgent ||
        this.queue.length >= this.options.batchSize ||
        (this.queue.length > 0 && now - this.lastFlush >= this.options.flushMs);
      if (!due) return;
      this.inFlight = this.queue.splice(0, this.options.batchSize);
      this.urgent = false;
      this.lastFlush = now;
    }
    void this.sendInFlight();
  }

  /** Sends what is queued until it is empty or `deadline` passes (at shutdown). */
  async drain(deadline: number): Promise<void> {
    while (this.queued > 0 && Date.now() < deadline) {
      this.urgent = true;
      this.maybeFlush();
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async sendInFlight(): Promise<void> {
    const batch = this.inFlight!;
    this.sending = true;
    try {
      const answer = await this.send(batch);
      this.stats.accepted += answer.accepted;
      this.stats.duplicates += answer.duplicates;
      this.stats.rejected += answer.rejected.length;
      if (answer.rejected.length > 0)
        this.stats.lastError = `event rejected: ${answer.rejected[0]!.path} ${answer.rejected[0]!.reason}`;
      this.stats.serviceUp = true;
      this.onAnswer(batch, answer);
      this.inFlight = null;
      this.backoffMs = 500;
    } catch (error) {
      if (error instanceof HttpError && !error.retryable && error.status !== 401) {
        // Refused whole: resending the same batch cannot succeed.
        this.stats.errors += 1;
        this.stats.dropped += batch.length;
        this.stats.lastError = `batch refused (HTTP ${error.status})`;
        this.stats.serviceUp = true;
        this.inFlight = null;
      } else {
        this.stats.retries += 1;
        this.stats.errors += 1;
        this.stats.serviceUp = error instanceof HttpError && error.status < 500;
        this.stats.lastError =
          error instanceof HttpError ? `events: HTTP ${error.status}` : `events: ${(error as Error).message}`;
        const wait = error instanceof HttpError && error.retryAfterMs !== null ? error.retryAfterMs : this.backoffMs;
        this.retryAt = Date.now() + wait;
        this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
      }
      this.options.onFailure?.(error);
    } finally {
      this.sending = false;
    }
  }
}
