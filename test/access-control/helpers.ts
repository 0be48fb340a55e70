// Helpers of the access-control tests: calls through the PMS face and the gateway face.
import type { EntityId } from '../../src/ids.ts';
import type { TestApp } from '../helpers/harness.ts';
import { bearer } from '../helpers/tenants.ts';

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

export async function call(
  t: TestApp,
  token: string,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await t.app.inject({
    method,
    url,
    headers: {
      ...bearer(token),
      ...(payload !== undefined && typeof payload !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  return {
    status: response.statusCode,
    body: response.body ? safeJson(response.body) : null,
    headers: response.headers,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function pms(t: TestApp, token: string, facilityId: EntityId) {
  const base = `/facilities/${facilityId}`;
  return {
    get: (path: string) => call(t, token, 'GET', `${base}${path}`),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call(t, token, 'POST', `${base}${path}`, body, headers),
    async unit(unitNumber: string, extra: object = {}) {
      const r = await call(t, token, 'POST', `${base}/units`, { unitNumber, ...extra });
      if (r.status !== 201) throw new Error(`unit create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as { id: EntityId; unitNumber: string; status: string };
    },
    async visitor(unitId: EntityId, accessCode: string | number, extra: object = {}) {
      const r = await call(t, token, 'POST', `${base}/visitors`, {
        unitId,
        accessCode,
        firstName: 'Pat',
        lastName: 'Lee',
        isTenant: true,
        ...extra,
      });
      if (r.status !== 201) throw new Error(`visitor create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as { visitor: { id: EntityId; [k: string]: unknown }; unit: { id: EntityId; status: string } };
    },
    commands: async (query = '') => (await call(t, token, 'GET', `${base}/commands${query}`)).body as any[],
  };
}

export const poll = (t: TestApp, gatewayToken: string, query: string) =>
  call(t, gatewayToken, 'GET', `/gateway/v1/commands${query}`);
