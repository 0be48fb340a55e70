// The simulated controller's HTTP side, through the typed client (clients/typescript): its gateway
// token (client credentials, renewed before it expires), the command long poll and event batches.
import { createGatehouseClient, type GatehouseClient, type paths } from '../../clients/typescript/index.ts';
import type { EntityId } from '../ids.ts';

/** The calls a controller makes: its token, the command long poll, event batches, its digest. */
export type GatewayCall = 'token' | 'commands' | 'events' | 'digest';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly retryAfterMs: number | null,
    readonly call: GatewayCall = 'events',
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpError';
  }
  /** Worth trying again later: the service is down, busy or limiting us. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

/**
 * An event as the controller reports it. Written out here: the document describes the batch's
 * items only in words (`events: unknown[]`), each being judged on its own by the service.
 */
export interface GatewayEvent {
  eventId: string;
  eventType: number;
  occurredAt: string;
  deviceId?: string;
  deviceName?: string;
  unitId?: EntityId;
  visitorId?: EntityId;
  codeEntered?: string;
  details?: string;
  data?: Record<string, unknown>;
}

export type IngestAnswer = paths['/gateway/v1/events']['post']['responses'][200]['content']['application/json'];
export type GatewayCommand =
  paths['/gateway/v1/commands']['get']['responses'][200]['content']['application/json']['commands'][number];

type DigestRoute = paths['/gateway/v1/digest']['post'];
type DigestItemsRoute = paths['/gateway/v1/digest/items']['post'];
export type DigestBody = DigestRoute['requestBody']['content']['application/json'];
export type DigestAnswer = DigestRoute['responses'][200]['content']['application/json'];
export type DigestItemsBody = DigestItemsRoute['requestBody']['content']['application/json'];
export type DigestItemsAnswer = DigestItemsRoute['responses'][200]['content']['application/json'];

export interface Credential {
  clientId: string;
  clientSecret: string;
}

function retryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) ? seconds * 1000 : null;
}

/** A refused call as an HttpError; openapi-fetch gives its body parsed when it is JSON. */
function refused(response: Response, error: unknown, call: GatewayCall): HttpError {
  const body = error === undefined ? '' : typeof error === 'string' ? error : JSON.stringify(error);
  return new HttpError(response.status, body, retryAfter(response.headers.get('retry-after')), call);
}

export class GatewayClient {
  private token: { value: string; renewAt: number } | null = null;
  /** The token request under way: concurrent calls (the poll, the event sender) share it. */
  private fetching: Promise<string> | null = null;
  /** For the token request: no bearer token (it would wait for the token it is asking for). */
  private readonly tokens: GatehouseClient;
  /** For the gateway routes: each request carries the current token. */
  private readonly gateway: GatehouseClient;
  /** Requests the service answered with success (a token, commands, a batch taken): did anything ever work? */
  answered = 0;

  constructor(
    readonly baseUrl: string,
    private readonly credential: Credential,
  ) {
    this.tokens = createGatehouseClient({ baseUrl });
    this.gateway = createGatehouseClient({ baseUrl, token: () => this.accessToken() });
  }

  get clientId(): string {
    return this.credential.clientId;
  }

  /** Forgets the token (after a 401): the next call gets a new one. */
  dropToken(): void {
    this.token = null;
  }

  private accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return Promise.resolve(this.token.value);
    this.fetching ??= this.fetchToken().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    // Form-encoded, as a controller's OAuth library would send it (the endpoint also takes JSON).
    const { data, error, response } = await this.tokens.POST('/auth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: {
        grant_type: 'client_credentials',
        client_id: this.credential.clientId,
        client_secret: this.credential.clientSecret,
      },
      signal: AbortSignal.timeout(30_000),
    });
    if (!data) throw refused(response, error, 'token');
    this.answered += 1;
    this.token = { value: data.access_token, renewAt: Date.now() + Math.max(30, data.expires_in - 60) * 1000 };
    return data.access_token;
  }

  /** The answer's data, or an HttpError; a 401 forgets the token so that the next call gets a new one. */
  private answer<T>(
    call: GatewayCall,
    { data, error, response }: { data?: T; error?: unknown; response: Response },
  ): T {
    if (response.status === 401) this.dropToken();
    if (!response.ok) throw refused(response, error, call);
    // Not an HttpError: a refusal would drop the batch, this is retried like a broken connection.
    if (data === undefined) throw new Error(`HTTP ${response.status} without a body`);
    this.answered += 1;
    return data;
  }

  async commands(after: number, waitSeconds: number, limit: number, signal?: AbortSignal): Promise<GatewayCommand[]> {
    const answer = this.answer(
      'commands',
      await this.gateway.GET('/gateway/v1/commands', {
        params: { query: { after, limit, wait: waitSeconds } },
        signal,
      }),
    );
    return answer.commands;
  }

  async sendEvents(events: GatewayEvent[], signal?: AbortSignal): Promise<IngestAnswer> {
    return this.answer('events', await this.gateway.POST('/gateway/v1/events', { body: { events }, signal }));
  }

  /** What the controller holds, as bucket hashes (step 1 of a comparison). */
  async digest(body: DigestBody): Promise<DigestAnswer> {
    return this.answer('digest', await this.gateway.POST('/gateway/v1/digest', { body }));
  }

  /** The items of the buckets that differ (step 2): the service records the drift and queues its heal. */
  async digestItems(body: DigestItemsBody): Promise<DigestItemsAnswer> {
    return this.answer('digest', await this.gateway.POST('/gateway/v1/digest/items', { body }));
  }
}
