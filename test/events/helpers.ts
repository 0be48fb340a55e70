// Shared fixtures of the events tests: a controller posting batches, a PMS reading pages.
import type { IngestAnswer } from '../../src/events/index.ts';
import { ingest } from '../../src/events/ingest.ts';
import type { EventSignals } from '../../src/events/signals.ts';
import type { EntityId } from '../../src/ids.ts';
import type { Schemas } from '../../clients/typescript/index.ts';
import { ok, typedClient } from '../helpers/client.ts';
import type { TestApp } from '../helpers/harness.ts';
import { bearer } from '../helpers/tenants.ts';

export interface PostedBatch {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

/** A controller's batch through the typed client: the status, and the answer's body whatever it is. */
export async function postEvents(
  t: TestApp,
  token: string,
  events: unknown[],
  headers: Record<string, string> = {},
): Promise<PostedBatch> {
  const { data, error, response } = await typedClient(t, token).POST('/gateway/v1/events', {
    body: { events },
    headers,
  });
  return { status: response.status, body: data ?? error, headers: Object.fromEntries(response.headers) };
}

/** A controller's batch that must be judged (200): what was stored, duplicated, refused. */
export async function storeEvents(
  t: TestApp,
  token: string,
  events: unknown[],
): Promise<Schemas['GatewayEventBatchResult']> {
  return ok(typedClient(t, token).POST('/gateway/v1/events', { body: { events } }), 200);
}

export async function getJson(t: TestApp, token: string, url: string, headers: Record<string, string> = {}) {
  const response = await t.app.inject({ method: 'GET', url, headers: { ...bearer(token), ...headers } });
  let body: any = null;
  try {
    body = response.body ? JSON.parse(response.body) : null;
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body, headers: response.headers, text: response.body };
}

let counter = 0;
/** A valid event; `minutesAgo` sets occurredAt. */
export function event(overrides: Record<string, unknown> = {}, minutesAgo = 10): Record<string, unknown> {
  counter++;
  return {
    eventId: `evt-${process.pid}-${Date.now().toString(36)}-${counter}`,
    eventType: 18,
    occurredAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    deviceId: 'kp-1',
    deviceName: 'Front gate keypad',
    details: 'Access granted',
    ...overrides,
  };
}

/**
 * Stores a controller's batch as ingest does, but without the event-stored signal (as if its
 * notification were lost): what the live stream's own polls and shared reads must still find.
 */
export async function ingestWithoutSignal(
  t: TestApp,
  gateway: { accountId: EntityId; facilityId: EntityId },
  events: unknown[],
): Promise<IngestAnswer> {
  const { events: face, database } = t.services;
  const silent = { notification: () => null, stored: () => {} } as unknown as EventSignals;
  return ingest(
    {
      db: database.db,
      prepared: database.prepared,
      partitions: face.partitions,
      signals: silent,
      metrics: face.metrics,
      retentionDays: 180,
      upkeep: [],
    },
    gateway,
    events,
    Date.now(),
  );
}
