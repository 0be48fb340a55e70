// Shared fixtures of the events tests: a controller posting batches, a PMS reading pages.
import type { IngestAnswer } from '../../src/events/index.ts';
import { ingest } from '../../src/events/ingest.ts';
import type { EventSignals } from '../../src/events/signals.ts';
import type { EntityId } from '../../src/ids.ts';
import type { TestApp } from '../helpers/harness.ts';
import { bearer } from '../helpers/tenants.ts';

export interface PostedBatch {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

export async function postEvents(
  t: TestApp,
  token: string,
  events: unknown[],
  headers: Record<string, string> = {},
): Promise<PostedBatch> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/gateway/v1/events',
    headers: { ...bearer(token), ...headers },
    payload: { events },
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
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
      partitions: face.partitions,
      signals: silent,
      metrics: face.metrics,
      retentionDays: 180,
      inBatchTransaction: [],
    },
    gateway,
    events,
    Date.now(),
  );
}
