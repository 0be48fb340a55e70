// Helpers of the access-control tests: the PMS face of one facility and the controller's poll, through
// the typed client (test/helpers/client.ts); `malformed` for the tests that send what the document's
// types cannot say (a code as a JSON number, "true" for a boolean, a body in another content type).
import type { paths, Schemas } from '../../clients/typescript/index.ts';
import type { EntityId } from '../../src/ids.ts';
import { ok, typedClient } from '../helpers/client.ts';
import type { TestApp } from '../helpers/harness.ts';
import { bearer } from '../helpers/tenants.ts';

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

/** A raw request (app.inject): only for requests the typed client cannot make, sent so on purpose. */
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

/** Raw calls under a facility's PMS routes, for malformed requests only (see `call`). */
export function malformed(t: TestApp, token: string, facilityId: EntityId) {
  const base = `/facilities/${facilityId}`;
  return {
    get: (path: string) => call(t, token, 'GET', `${base}${path}`),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call(t, token, 'POST', `${base}${path}`, body, headers),
  };
}

type UnitInput = Schemas['CreateUnitRequest'];
type VisitorInput = Schemas['CreateVisitorRequest'];
type CommandQuery = NonNullable<paths['/facilities/{facilityId}/commands']['get']['parameters']['query']>;

/**
 * The PMS face of one facility: `client` for any call (`path` is the facility's path parameter), and
 * the set-ups most tests need — a unit, a visitor on it, the facility's commands — each checked (201/200).
 */
export function pms(t: TestApp, token: string, facilityId: EntityId) {
  const client = typedClient(t, token);
  const path = { facilityId };
  return {
    client,
    path,
    unit: (unitNumber: string, extra: Partial<UnitInput> = {}) =>
      ok(client.POST('/facilities/{facilityId}/units', { params: { path }, body: { unitNumber, ...extra } }), 201),
    visitor: (unitId: EntityId, accessCode: string, extra: Partial<VisitorInput> = {}) =>
      ok(
        client.POST('/facilities/{facilityId}/visitors', {
          params: { path },
          body: { unitId, accessCode, firstName: 'Pat', lastName: 'Lee', isTenant: true, ...extra },
        }),
        201,
      ),
    commands: (query: CommandQuery = {}) =>
      ok(client.GET('/facilities/{facilityId}/commands', { params: { path, query } }), 200),
  };
}

type PollQuery = NonNullable<paths['/gateway/v1/commands']['get']['parameters']['query']>;

/** A controller's poll of its commands, through the typed client: the whole answer, for its status. */
export const poll = (t: TestApp, gatewayToken: string, query: PollQuery = {}) =>
  typedClient(t, gatewayToken).GET('/gateway/v1/commands', { params: { query } });

/** A controller's poll that must succeed: its commands. */
export const polled = async (t: TestApp, gatewayToken: string, query: PollQuery = {}) =>
  (await ok(poll(t, gatewayToken, query), 200)).commands;
