// The simulated controller's HTTP side: its gateway token (client credentials, renewed before it
// expires), the command long poll and event batches.
import type { EntityId } from '../ids.ts';
import type { ReceivedCommand } from './controller.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly retryAfterMs: number | null,
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpError';
  }
  /** Worth trying again later: the service is down, busy or limiting us. */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408;
  }
}

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

export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; eventId: string | null; path: string; reason: string }[];
}

export interface Credential {
  clientId: string;
  clientSecret: string;
}

function retryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) ? seconds * 1000 : null;
}

export class GatewayClient {
  private token: { value: string; renewAt: number } | null = null;
  /** The token request under way: concurrent calls (the poll, the event sender) share it. */
  private fetching: Promise<string> | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly credential: Credential,
  ) {}

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
    const response = await fetch(`${this.baseUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.credential.clientId,
        client_secret: this.credential.clientSecret,
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) throw new HttpError(response.status, text, retryAfter(response.headers.get('retry-after')));
    const body = JSON.parse(text) as { access_token: string; expires_in: number };
    this.token = { value: body.access_token, renewAt: Date.now() + Math.max(30, body.expires_in - 60) * 1000 };
    return body.access_token;
  }

  private async call<T>(path: string, init: RequestInit): Promise<T> {
    const token = await this.accessToken();
    const response = await fetch(`${this.baseUrl}${path}`, {
      ...init,
      headers: { ...init.headers, authorization: `Bearer ${token}` },
    });
    const text = await response.text();
    if (response.status === 401) this.dropToken();
    if (!response.ok) throw new HttpError(response.status, text, retryAfter(response.headers.get('retry-after')));
    return JSON.parse(text) as T;
  }

  async commands(after: number, waitSeconds: number, signal?: AbortSignal): Promise<ReceivedCommand[]> {
    const body = await this.call<{ commands: ReceivedCommand[] }>(
      `/gateway/v1/commands?after=${after}&limit=100&wait=${waitSeconds}`,
      { signal },
    );
    return body.commands;
  }

  async sendEvents(events: GatewayEvent[], signal?: AbortSignal): Promise<IngestAnswer> {
    return this.call<IngestAnswer>('/gateway/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
      signal,
    });
  }
}
