// The SSRF-safe fetcher (DESIGN.md §1, SPEC.md §3.4): an undici Agent whose connect hook resolves
// the host itself (dns.lookup, all addresses), refuses any address that is not public unicast,
// and connects to the vetted address — so a DNS answer cannot change between check and use.
// Redirects are followed by hand, at most `maxRedirects`, each hop checked again. The whole fetch
// has one deadline (a slow drip cannot outlast it), the body has a byte limit (checked against
// Content-Length first, then counted), and no content encoding is accepted.
import dns from 'node:dns';
import net from 'node:net';
// undici is loaded at the first fetch, not at start-up.
import type { Agent } from 'undici';
import { checkUrl, defaultPort, hostAllowed, isPublicAddress, type UrlRefusal } from './address.ts';

export type FetchErrorCode =
  | UrlRefusal
  | 'DNS_FAILED'
  | 'CONNECTION_FAILED'
  | 'TIMEOUT'
  | 'TOO_MANY_REDIRECTS'
  | 'BAD_REDIRECT'
  | 'HTTP_STATUS'
  | 'TOO_LARGE'
  | 'UNSUPPORTED_TYPE';

const RETRYABLE = new Set<FetchErrorCode>(['DNS_FAILED', 'CONNECTION_FAILED', 'TIMEOUT']);

export class FetchError extends Error {
  override name = 'FetchError';
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    /** Worth trying again later (network trouble, 5xx, 429, 408); the rest will not change. */
    readonly retryable: boolean = RETRYABLE.has(code),
    readonly status?: number,
    /** What the system said, when it said something (ECONNREFUSED, ENOTFOUND, …). */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** The system's resolver, every address of a name (dns.lookup). */
export const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface SafeFetcherOptions {
  /** `host` or `host:port` entries exempt from the address check (the purpose's list: config.ts). */
  allowHosts: readonly string[];
  /**
   * false: no address is checked (an operator's own URL, such as SUPPORT_WEBHOOK_URL, which may be
   * on the operator's network); the deadlines and byte limit still hold. Default true.
   */
  addressCheck?: boolean;
  /** The whole fetch, redirects and body included. */
  timeoutMs: number;
  /** A connection (TCP, and TLS) must be made within this (default: timeoutMs, at most 10 s). */
  connectTimeoutMs?: number;
  /** The answer's headers must have arrived within this after the request was sent (default: timeoutMs). */
  firstByteTimeoutMs?: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent?: string;
  accept?: string;
  /** DNS resolution (tests substitute one); defaults to dns.lookup with all addresses. */
  lookup?: LookupAll;
}

export interface FetchedBody {
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
  contentType: string | null;
}

export interface FetchOptions {
  /** Judges the first `sniffBytes` of the body (or all of it, if shorter); false stops the download. */
  sniff?: (head: Buffer) => boolean | Promise<boolean>;
  sniffBytes?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What is read of a webhook receiver's answer (its body is not used): the rest is cut, the connection closed. */
export const WEBHOOK_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * Reads a body nobody uses in the background, so that a short answer leaves its connection
 * reusable, and cuts it — destroying the connection — once more than `limit` bytes arrived (or
 * at once when its Content-Length says it will). A slow one ends at the request's deadline.
 * The stream buffers little ahead (the request's highWaterMark), so about `limit` bytes are read.
 */
export function drainUpTo(
  body: NodeJS.ReadableStream & { destroy(): unknown },
  limit: number,
  declaredLength: unknown,
): void {
  body.on('error', () => {});
  if (Number(declaredLength) > limit) {
    body.destroy();
    return;
  }
  let read = 0;
  body.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > limit) body.destroy();
  });
}

/** Drops a body that will not be read (its connection closes with it). */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => {});
  body.destroy();
}

/** Resolves a host and returns an address that may be connected to, or throws FetchError. */
export async function resolveVetted(hostname: string, lookup: LookupAll): Promise<string> {
  if (net.isIP(hostname)) {
    if (!isPublicAddress(hostname))
      throw new FetchError('ADDRESS_NOT_ALLOWED', `The address ${hostname} is not a public address.`);
    return hostname;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(hostname);
  } catch (error) {
    throw new FetchError(
      'DNS_FAILED',
      `The host ${hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  if (addresses.length === 0) throw new FetchError('DNS_FAILED', `The host ${hostname} has no address.`);
  // Every address must be public: a name that also resolves to a private address is refused whole.
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused)
    throw new FetchError(
      'ADDRESS_NOT_ALLOWED',
      `The host ${hostname} resolves to ${refused.address}, which is not a public address.`,
    );
  return addresses[0]!.address;
}

/** An allow-listed host: resolved the same way, without the address check. */
async function resolveAny(hostname: string, lookup: LookupAll): Promise<string> {
  if (net.isIP(hostname)) return hostname;
  let code: string | undefined;
  try {
    const addresses = await lookup(hostname);
    if (addresses.length > 0) return addresses[0]!.address;
  } catch (error) {
    code = (error as NodeJS.ErrnoException).code;
  }
  throw new FetchError('DNS_FAILED', `The host ${hostname} could not be resolved.`, true, undefined, code);
}

/** What the stream of an unused answer buffers ahead of its reader (undici's default is 64 KiB). */
const POST_READ_AHEAD = 16 * 1024;

export class SafeFetcher {
  private client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;

  constructor(private readonly options: SafeFetcherOptions) {}

  private connect() {
    this.client ??= import('undici').then((undici) => ({ agent: this.newAgent(undici), request: undici.request }));
    return this.client;
  }

  private newAgent({ Agent, buildConnector }: typeof import('undici')): Agent {
    const options = this.options;
    const lookup = options.lookup ?? systemLookup;
    const connectTimeout = Math.min(options.connectTimeoutMs ?? options.timeoutMs, options.timeoutMs, 10_000);
    const baseConnect = buildConnector({ timeout: connectTimeout });
    const allowHosts = options.allowHosts;
    const addressCheck = options.addressCheck ?? true;
    return new Agent({
      headersTimeout: Math.min(options.firstByteTimeoutMs ?? options.timeoutMs, options.timeoutMs),
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4_000,
      connections: 8,
      connect: (connectOptions, callback) => {
        const hostname = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
        const port = connectOptions.port || defaultPort(connectOptions.protocol);
        const asWritten = net.isIPv6(hostname) ? `[${hostname}]` : hostname;
        const vetted =
          !addressCheck || hostAllowed(allowHosts, asWritten, port)
            ? resolveAny(hostname, lookup)
            : resolveVetted(hostname, lookup);
        vetted.then(
          (address) =>
            baseConnect(
              { ...connectOptions, hostname: address, servername: net.isIP(hostname) ? undefined : hostname },
              callback,
            ),
          (error: Error) => callback(error, null),
        );
      },
    });
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchedBody> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await this.fetchWithin(url, options, signal);
    } catch (error) {
      throw this.asFetchError(error, signal);
    }
  }

  /**
   * POSTs a body and answers the response's status once its headers arrive (webhook deliveries).
   * The same address check and deadline as `fetch`; a redirect is not followed (its status is the
   * answer: a receiver that redirects is not a receiver), and the response body is not waited for:
   * it is read in the background up to `maxBytes`, then cut.
   */
  async post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number }> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const target = this.postTarget(url);
      const { agent, request } = await this.connect();
      const response = await request(target, {
        dispatcher: agent,
        method: 'POST',
        signal,
        body,
        headers: { 'user-agent': this.options.userAgent ?? 'Gatehouse-Fetcher/1.0', ...headers },
        highWaterMark: POST_READ_AHEAD,
      });
      // Read on in the background: a short answer leaves the connection reusable; a long or endless
      // one is cut at maxBytes (WEBHOOK_ANSWER_MAX_BYTES for webhooks), a slow one at the deadline.
      drainUpTo(response.body, this.options.maxBytes, response.headers['content-length']);
      return { status: response.statusCode };
    } catch (error) {
      throw this.asFetchError(error, signal);
    }
  }

  /** The URL a POST goes to: checked (scheme, credentials, an address literal), or only parsed without the address check. */
  private postTarget(url: string): URL {
    if (this.options.addressCheck === false) {
      try {
        return new URL(url);
      } catch {
        throw new FetchError('INVALID_URL', 'The URL is refused (INVALID_URL).');
      }
    }
    const checked = checkUrl(url, this.options.allowHosts);
    if (!checked.ok) throw new FetchError(checked.refusal, `The URL is refused (${checked.refusal}).`);
    return checked.url;
  }

  private async fetchWithin(url: string, options: FetchOptions, signal: AbortSignal): Promise<FetchedBody> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const checked = checkUrl(current, this.options.allowHosts);
      if (!checked.ok)
        throw new FetchError(
          checked.refusal,
          hop === 0
            ? `The URL is refused (${checked.refusal}).`
            : `A redirect led to a refused URL (${checked.refusal}).`,
        );
      const { agent, request } = await this.connect();
      const response = await request(checked.url, {
        dispatcher: agent,
        method: 'GET',
        signal,
        headers: {
          accept: this.options.accept ?? '*/*',
          'accept-encoding': 'identity',
          'user-agent': this.options.userAgent ?? 'Gatehouse-Fetcher/1.0',
        },
      });
      if (REDIRECTS.has(response.statusCode)) {
        discard(response.body);
        const location = response.headers.location;
        if (hop >= this.options.maxRedirects)
          throw new FetchError('TOO_MANY_REDIRECTS', `More than ${this.options.maxRedirects} redirects.`);
        if (typeof location !== 'string' || location === '')
          throw new FetchError('BAD_REDIRECT', `A ${response.statusCode} answer without a Location header.`);
        try {
          current = new URL(location, checked.url).toString();
        } catch {
          throw new FetchError('BAD_REDIRECT', 'A redirect to a URL that does not parse.');
        }
        continue;
      }
      if (response.statusCode !== 200) {
        discard(response.body);
        const retryable = response.statusCode >= 500 || response.statusCode === 429 || response.statusCode === 408;
        throw new FetchError(
          'HTTP_STATUS',
          `The server answered ${response.statusCode}.`,
          retryable,
          response.statusCode,
        );
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.options.maxBytes) {
        discard(response.body);
        throw new FetchError(
          'TOO_LARGE',
          `The body is ${declared} bytes; at most ${this.options.maxBytes} are accepted.`,
        );
      }
      const body = await this.readBody(response.body, options);
      const contentType = response.headers['content-type'];
      return { body, url: checked.url.toString(), contentType: typeof contentType === 'string' ? contentType : null };
    }
  }

  private async readBody(
    stream: AsyncIterable<Buffer> & { on(event: 'error', listener: () => void): unknown; destroy(): unknown },
    options: FetchOptions,
  ): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let total = 0;
    const sniffBytes = options.sniffBytes ?? 4100;
    let sniffed = !options.sniff;
    try {
      for await (const chunk of stream) {
        total += chunk.length;
        if (total > this.options.maxBytes)
          throw new FetchError('TOO_LARGE', `The body exceeds ${this.options.maxBytes} bytes.`);
        chunks.push(chunk);
        if (!sniffed && total >= sniffBytes) {
          sniffed = true;
          if (!(await options.sniff!(Buffer.concat(chunks))))
            throw new FetchError('UNSUPPORTED_TYPE', 'The content is not an accepted type.');
        }
      }
    } catch (error) {
      discard(stream);
      throw error;
    }
    const body = Buffer.concat(chunks, total);
    if (!sniffed && !(await options.sniff!(body)))
      throw new FetchError('UNSUPPORTED_TYPE', 'The content is not an accepted type.');
    return body;
  }

  private asFetchError(error: unknown, signal: AbortSignal): FetchError {
    if (error instanceof FetchError) return error;
    if (signal.aborted)
      return new FetchError('TIMEOUT', `The fetch did not finish within ${this.options.timeoutMs} ms.`);
    const cause = error as { code?: string; cause?: unknown; name?: string };
    if (cause?.cause instanceof FetchError) return cause.cause;
    const code = cause?.code ?? '';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' && this.options.firstByteTimeoutMs !== undefined) {
      return new FetchError(
        'TIMEOUT',
        `The server did not start answering within ${Math.min(this.options.firstByteTimeoutMs, this.options.timeoutMs)} ms.`,
      );
    }
    if (code === 'UND_ERR_CONNECT_TIMEOUT' && this.options.connectTimeoutMs !== undefined) {
      return new FetchError(
        'TIMEOUT',
        `No connection to the server within ${Math.min(this.options.connectTimeoutMs, this.options.timeoutMs)} ms.`,
      );
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new FetchError('TIMEOUT', `The fetch did not finish within ${this.options.timeoutMs} ms.`);
    }
    const said = code || cause?.name || 'error';
    return new FetchError('CONNECTION_FAILED', `The connection failed (${said}).`, true, undefined, said);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client).agent.close();
  }
}
