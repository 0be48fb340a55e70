// The one typed way a test calls the API: the generated client (clients/typescript) over app.inject.
// A field renamed in the API description then breaks the test at compile time, and every answer is
// checked against the document the app serves (contract.ts), as the end-to-end tests' answers are.
//
//   const pms = typedClient(t, account.token);
//   const unit = await ok(pms.POST('/facilities/{facilityId}/units', { params: { path: { facilityId } }, body }), 201);
//
// Raw app.inject stays only where a test sends a malformed request on purpose (bad JSON, a wrong
// content type, hostile input), reads raw bytes or headers, or calls what the v3.0 document does not
// describe (the v2.0/v1.0 routes: test/helpers/http.ts). The /api/3 auction routes are in the document:
// test/auctions/helpers.ts calls them through this client.
import assert from 'node:assert/strict';
import { createGatehouseClient, type GatehouseClient } from '../../clients/typescript/index.ts';
import type { App } from '../../src/http/app-type.ts';
import { type ContractCheck, contractCheck } from './contract.ts';
import type { TestApp } from './harness.ts';

/** The origin the client names; the request never leaves the process. */
const INJECTED = 'http://gatehouse.inject';

/** How an injected request arrives, beyond what a Request can say: the caller's address. */
export interface InjectedFrom {
  remoteAddress?: string;
}

/** A fetch that answers a Request from app.inject, with the answer as a Response. */
export function injectFetch(app: App, from: InjectedFrom = {}): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const answer = await app.inject({
      method: request.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      ...(body === undefined ? {} : { payload: body }),
      ...(from.remoteAddress === undefined ? {} : { remoteAddress: from.remoteAddress }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
    }
    // A Response refuses a body on these statuses; a HEAD answer has none.
    const bodiless = [101, 204, 205, 304].includes(answer.statusCode) || request.method === 'HEAD';
    return new Response(bodiless ? null : answer.rawPayload, { status: answer.statusCode, headers });
  };
}

const contracts = new WeakMap<App, Promise<ContractCheck>>();

/** The contract check of the v3.0 document this app serves (read once per app). */
function contractOf(app: App): Promise<ContractCheck> {
  let check = contracts.get(app);
  if (!check) {
    check = app.inject({ method: 'GET', url: '/swagger/v3.0.json' }).then((answer) => {
      assert.equal(answer.statusCode, 200, 'the app serves its v3.0 document');
      return contractCheck(answer.json());
    });
    contracts.set(app, check);
  }
  return check;
}

/**
 * The typed client of the test's app, with `token` as its bearer token (none: an anonymous caller);
 * every answer is checked against the app's API description: an undocumented status, media type or
 * field fails the test. `from` sets the caller's address (rate limits and throttles count by it).
 */
export function typedClient(t: TestApp | App, token?: string | null, from?: InjectedFrom): GatehouseClient {
  const app = 'app' in t ? t.app : t;
  const client = createGatehouseClient({
    baseUrl: INJECTED,
    fetch: injectFetch(app, from),
    ...(token ? { token } : {}),
  });
  client.use({
    async onResponse(params) {
      return (await contractOf(app)).middleware.onResponse?.(params);
    },
  });
  return client;
}

/** The data of a successful answer (with `status` when given); fails the test with the error otherwise. */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  status?: number,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  const shown = `${response.status} ${JSON.stringify(error ?? data)}`;
  if (status !== undefined) assert.equal(response.status, status, shown);
  assert.ok(response.ok && data !== undefined, shown);
  return data as NonNullable<T>;
}

/** The error body of a refused call, after checking its status; fails the test when it succeeded. */
export async function refused<E>(
  call: Promise<{ data?: unknown; error?: E; response: Response }>,
  status: number,
): Promise<NonNullable<E>> {
  const { data, error, response } = await call;
  assert.equal(response.status, status, JSON.stringify(error ?? data));
  assert.ok(error !== undefined, `${response.status} without an error body`);
  return error as NonNullable<E>;
}
