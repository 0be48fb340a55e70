// The typed Gatehouse client: openapi-fetch over the types that openapi-typescript generates from
// the service's v3.0 API description (schema.d.ts, by `npm run openapi`). Calls are named by the
// path and method of the document, their parameters, bodies and answers are typed from it:
//
//   const gatehouse = createGatehouseClient({ baseUrl: 'http://localhost:8080', token });
//   const { data, error } = await gatehouse.GET('/facilities/{facilityId}/visitors', {
//     params: { path: { facilityId: 12 } },
//   });
//
// docs/API.md tells an integrator how to use it or generate their own.
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

export type { components, operations, paths };
/** The named schemas of the document: `Schemas['Visitor']`, `Schemas['GatewayEvent']`, … */
export type Schemas = components['schemas'];
export type GatehouseClient = Client<paths>;

export interface GatehouseClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service is: `https://gatehouse.example.com` (no trailing slash needed). */
  baseUrl: string;
  /** A bearer token, or a function that gives the current one (called before every request). */
  token?: string | (() => string | Promise<string>);
}

/** A client of the service's v3.0 API; with `token`, every request carries it as a bearer token. */
export function createGatehouseClient({ baseUrl, token, ...options }: GatehouseClientOptions): GatehouseClient {
  const client = createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, ''), ...options });
  if (token !== undefined) client.use(bearer(token));
  return client;
}

/** A middleware that sets `Authorization: Bearer <token>` on every request that has none. */
export function bearer(token: string | (() => string | Promise<string>)): Middleware {
  return {
    async onRequest({ request }) {
      if (!request.headers.has('authorization')) {
        request.headers.set('authorization', `Bearer ${typeof token === 'string' ? token : await token()}`);
      }
      return request;
    },
  };
}

type TokenRequest = NonNullable<paths['/auth/token']['post']['requestBody']>['content']['application/json'];
type TokenAnswer = paths['/auth/token']['post']['responses'][200]['content']['application/json'];

/** An access token from POST /auth/token (any grant the endpoint takes); throws with the OAuth error. */
export async function requestToken(client: GatehouseClient, grant: TokenRequest): Promise<TokenAnswer> {
  const { data, error, response } = await client.POST('/auth/token', { body: grant });
  if (!data) {
    const reason = error && 'error' in error ? `${error.error}: ${error.error_description}` : `HTTP ${response.status}`;
    throw new Error(`token refused (${reason})`);
  }
  return data;
}
