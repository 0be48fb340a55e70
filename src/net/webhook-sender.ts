// The one outbound webhook sender (DESIGN.md §6): every signed POST of the service — the push
// face's deliveries and test pings, the support room's notifications — goes through it. What it
// shares: the envelope (Standard Webhooks' recommended shape), the signing (webhook-signature.ts),
// the POST with its limits (SafeFetcher.post: the deadlines, no redirect followed, the answer read
// up to WEBHOOK_ANSWER_MAX_BYTES and then cut) and what counts as delivered. What stays each
// sender's own: the body it renders, its headers, its user agent, its deadlines, whether its URLs
// are checked against private addresses (a subscriber's are; the operator's SUPPORT_WEBHOOK_URL is
// not), its retry schedule (net/retry.ts) and how it words a failure.
import { FetchError, SafeFetcher, WEBHOOK_ANSWER_MAX_BYTES, type LookupAll } from './safe-fetch.ts';
import { signatureHeaders } from './webhook-signature.ts';

export interface WebhookSenderOptions {
  userAgent: string;
  /** The whole attempt. */
  timeoutMs: number;
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  /** Hosts exempt from the address check; `'unchecked'`: no address is checked (an operator's own URL). */
  allowHosts: readonly string[] | 'unchecked';
  lookup?: LookupAll;
}

/** One webhook as sent: its id (`webhook-id`), its rendered body, the secrets that sign it (none: unsigned). */
export interface OutboundWebhook {
  id: string;
  body: string;
  secrets: readonly string[];
  /** Headers of the sender's own (content-type is always application/json). */
  headers?: Record<string, string>;
}

/** What became of one attempt: delivered (a 2xx), answered otherwise (`status`), or not answered (`failure`). */
export type WebhookAttempt =
  | { delivered: true; status: number }
  | { delivered: false; status: number; failure: null }
  | { delivered: false; status: null; failure: FetchError };

/** A receiver's answer: 2xx is delivered; anything else (including a redirect) is a failure to retry. */
export const isDelivered = (status: number) => status >= 200 && status < 300;

/**
 * The body of a webhook: `{id, type, createdAt, data}` (Standard Webhooks' recommended shape, SPEC
 * §6.4); `topLevel` fields a sender's receivers read outside `data` go between `createdAt` and `data`.
 */
export function webhookEnvelope(
  id: string,
  type: string,
  createdAt: Date | string,
  data: unknown,
  topLevel: Record<string, unknown> = {},
): string {
  const at = typeof createdAt === 'string' ? createdAt : createdAt.toISOString();
  return JSON.stringify({ id, type, createdAt: at, ...topLevel, data });
}

/**
 * The same envelope, with its data already rendered as JSON (`dataJson`): the events of a slice,
 * rendered once for every lane that delivers them (byte for byte what webhookEnvelope makes).
 */
export function webhookEnvelopeOf(id: string, type: string, createdAt: Date, dataJson: string): string {
  const head = JSON.stringify({ id, type, createdAt: createdAt.toISOString() });
  return `${head.slice(0, -1)},"data":${dataJson}}`;
}

export class WebhookSender {
  private readonly fetcher: SafeFetcher;

  constructor(options: WebhookSenderOptions) {
    const unchecked = options.allowHosts === 'unchecked';
    this.fetcher = new SafeFetcher({
      allowHosts: unchecked ? [] : (options.allowHosts as readonly string[]),
      addressCheck: !unchecked,
      timeoutMs: options.timeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      firstByteTimeoutMs: options.firstByteTimeoutMs,
      // What is read of a receiver's answer (it is not used): the rest is cut.
      maxBytes: WEBHOOK_ANSWER_MAX_BYTES,
      maxRedirects: 0,
      userAgent: options.userAgent,
      lookup: options.lookup,
    });
  }

  /** POSTs the webhook once, signed at `now` with every secret given. Never throws. */
  async send(url: string, webhook: OutboundWebhook, now: Date = new Date()): Promise<WebhookAttempt> {
    const signature =
      webhook.secrets.length > 0 ? signatureHeaders(webhook.secrets, webhook.id, now, webhook.body) : {};
    try {
      const { status } = await this.fetcher.post(url, webhook.body, {
        'content-type': 'application/json',
        ...webhook.headers,
        ...signature,
      });
      return isDelivered(status) ? { delivered: true, status } : { delivered: false, status, failure: null };
    } catch (error) {
      const failure =
        error instanceof FetchError
          ? error
          : new FetchError('CONNECTION_FAILED', 'The POST failed.', true, undefined, 'ERROR');
      return { delivered: false, status: null, failure };
    }
  }

  async close(): Promise<void> {
    await this.fetcher.close();
  }
}
