// Shared fixtures of the events tests: a controller posting batches, a PMS reading pages.
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
