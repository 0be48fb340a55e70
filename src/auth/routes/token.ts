// POST /auth/token: the OAuth 2.0 token endpoint. Every failure here, even a malformed body or a
// router error, is an RFC 6749 body ({error, error_description}), never problem+json.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC } from '../../http/access.ts';
import type { NormalizedError } from '../../http/errors.ts';
import { handleError, registerErrorRenderer } from '../../http/problem.ts';
import { Answer } from '../../http/schemas.ts';
import type { Auth } from '../index.ts';
import { OAuthError, type OAuthErrorCode } from '../grants.ts';
import { WAITING_IN_ALL, WAITING_PER_CLIENT } from '../secret-checks.ts';

export const TOKEN_PATH = '/auth/token';

const TokenBody = Type.Object(
  {
    // Optional in the schema so that a missing one is answered in RFC 6749 terms (invalid_request,
    // invalid_client) by the handler and the grants, not as a validation failure.
    grant_type: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Required: `password`, `client_credentials` or `refresh_token` (else unsupported_grant_type).',
      }),
    ),
    client_id: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'The client: an application (`app_…`: a PMS, an auction partner, the operator) or a gateway controller (`gwc_…`). ' +
          'Required here unless sent with client_secret as HTTP Basic (then, if sent here too, it must be the same).',
      }),
    ),
    client_secret: Type.Optional(
      Type.String({ maxLength: 500, description: "The client's secret; required unless sent as HTTP Basic." }),
    ),
    username: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Grant `password` only, required: the account API key, issued to this client for one account.',
      }),
    ),
    password: Type.Optional(
      Type.String({ maxLength: 500, description: 'Grant `password` only, required: the account API secret.' }),
    ),
    refresh_token: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Grant `refresh_token` only, required: the refresh token of the last answer (single use).',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        maxLength: 500,
        description:
          'Optional: space-separated scopes, a subset of what the credential holds (else invalid_scope). Absent or ' +
          'empty: all of them. A refresh keeps the scopes of the token it replaces unless it narrows them.',
      }),
    ),
  },
  {
    $id: 'TokenRequest', // RFC 6749 §4.1.3, §4.3.2, §4.4.2, §6; named: one schema for both media types
    description: 'Form-encoded (application/x-www-form-urlencoded) or JSON.',
    examples: [
      {
        grant_type: 'client_credentials',
        client_id: 'app_duCCWrOrdWXyMlrg',
        client_secret: 'gh_cs_ZpASCwPlCyD9o1XCBubFBSKytxSn3USCy-oc0sR8o2Q',
        scope: 'auctions:write auctions:read',
      },
    ],
  },
);

const TokenResponse = Type.Object(
  {
    token_type: Type.Literal('Bearer'),
    access_token: Type.String({ description: 'An ES256-signed JWT.' }),
    expires_in: Type.Integer({
      description: 'Lifetime of the access token in seconds (TOKEN_TTL_SECONDS, default 3600).',
    }),
    refresh_token: Type.Optional(
      Type.String({
        description: 'Password and refresh_token grants only. Single use: each refresh returns the next one.',
      }),
    ),
    scope: Type.String({ description: 'The granted scopes, space-separated.' }),
  },
  {
    $id: 'AccessTokenResponse', // RFC 6749 §5.1
    examples: [
      {
        token_type: 'Bearer',
        access_token:
          'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzY29wZSI6ImF1Y3Rpb25zOndyaXRlIGF1Y3Rpb25zOnJlYWQiLCJjbGllbnRfaWQiOiJhcHBfZHVDQ1dyT3JkV1h5TWxyZyJ9.c2lnbmF0dXJl',
        expires_in: 3600,
        scope: 'auctions:write auctions:read',
      },
    ],
  },
);

const OAuthErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        'invalid_request · invalid_client · invalid_grant · unauthorized_client · unsupported_grant_type · invalid_scope · temporarily_unavailable (503)',
    }),
    error_description: Type.String(),
  },
  { $id: 'OAuthError' }, // RFC 6749 §5.2
);

/** An error answer of the token endpoint: the RFC 6749 body, with what this status means here. */
const oauthError = (description: string) => ({ ...OAuthErrorBody, description });

function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: OAuthErrorCode,
  description: string,
  headers: Record<string, string> = {},
) {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...headers })
    .send({ error, error_description: description });
}

/** Any other error, in RFC 6749's body: a fault of the request is invalid_request, with its status where it says more than 400. */
function oauthAnswer(normalized: NormalizedError): {
  status: number;
  headers: Record<string, string>;
  body: { error: string; error_description: string };
} {
  if (normalized.status >= 500) {
    const code = normalized.status === 503 ? 'temporarily_unavailable' : 'server_error';
    return {
      status: normalized.status,
      headers: { 'cache-control': 'no-store', ...normalized.headers },
      body: { error: code, error_description: normalized.detail },
    };
  }
  const fields = normalized.errors.map((e) => `${e.path} ${e.message}`).join('; ');
  const status = [408, 413, 414, 415, 429, 431].includes(normalized.status) ? normalized.status : 400;
  const description = fields && normalized.status !== 429 ? `${normalized.detail} ${fields}` : normalized.detail;
  return {
    status,
    headers: { 'cache-control': 'no-store', pragma: 'no-cache', ...normalized.headers },
    body: { error: 'invalid_request', error_description: description },
  };
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-encoded, then base64) or the body. */
function clientCredentials(
  request: FastifyRequest,
  body: { client_id?: string; client_secret?: string },
): { clientId: string; clientSecret: string } {
  const header = request.headers.authorization;
  if (typeof header === 'string' && /^Basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError(401, 'invalid_client', 'The Basic credentials are malformed.');
    const clientId = safeDecode(decoded.slice(0, colon));
    const clientSecret = safeDecode(decoded.slice(colon + 1));
    if (body.client_id !== undefined && body.client_id !== clientId)
      throw new OAuthError(400, 'invalid_request', 'client_id in the body differs from the Authorization header.');
    return { clientId, clientSecret };
  }
  if (!body.client_id || body.client_secret === undefined)
    throw new OAuthError(
      401,
      'invalid_client',
      'Client authentication is required (client_id and client_secret, or HTTP Basic).',
    );
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

export const tokenRoutes: FastifyPluginAsyncTypebox<{ face: Auth }> = async (app, { face }) => {
  registerErrorRenderer(app, {
    owns: (path) => path === TOKEN_PATH,
    body: OAuthErrorBody,
    mediaType: 'application/json',
    render(error, request, reply) {
      if (error instanceof OAuthError) {
        // invalid_client (RFC 6749 §5.2): 401 with a challenge when the client authenticated with the
        // Authorization header; 400 when it sent its credentials in the body, or none (SPEC §1: as the
        // incumbent answers, and as its integrations' own mocks expect).
        const viaBasic = /^Basic /i.test(request.headers.authorization ?? '');
        if (error.error !== 'invalid_client')
          return sendOAuthError(reply, error.status, error.error, error.message, error.headers);
        const challenge: Record<string, string> = viaBasic ? { 'www-authenticate': 'Basic realm="gatehouse"' } : {};
        return sendOAuthError(reply, viaBasic ? 401 : 400, error.error, error.message, {
          ...error.headers,
          ...challenge,
        });
      }
      const answer = oauthAnswer(handleError(error, request));
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    },
    answer: (normalized) => ({ ...oauthAnswer(normalized), contentType: 'application/json; charset=utf-8' }),
  });

  app.post(
    TOKEN_PATH,
    {
      config: PUBLIC,
      schema: {
        operationId: 'issueToken',
        tags: ['authorization'],
        summary: 'Issue an access token (OAuth 2.0 token endpoint).',
        description:
          'Grants: `password` (username = account API key, password = account API secret; for a PMS application), `client_credentials` (an auction partner, an operator or a gateway controller acting as itself), `refresh_token` (rotating: each refresh token works once; presenting a used one revokes its whole family). Client authentication by `client_id`/`client_secret` fields or HTTP Basic.\n\n' +
          "Failed authentication is throttled per client id **and source address** together, and per source address: a client id may have at most TOKEN_FAILURE_LIMIT (10) failed client authentications (`invalid_client`) plus checks in progress from one address, and an address 10× that, within TOKEN_FAILURE_WINDOW_SECONDS (60). Grant failures (`invalid_grant`: a wrong account key or secret, a stale refresh token, after a correct client secret) are counted apart, per client id, grant type and source address, with the same limit: stale refresh tokens throttle that client's `refresh_token` grant from that address, never its `password` grant. Beyond a limit a request is answered 429 (`invalid_request`) with Retry-After without its secrets being checked: until the window ends when failures fill it, 1 second when checks are still in progress. Successful requests do not count. A client id that fails from one address still works from any other.\n\n" +
          `Secrets are checked (scrypt) a few at a time — one per two CPU cores — the waiting requests served in turn per client; a secret this service verified in the last 5 minutes is not checked again and never waits. When ${WAITING_PER_CLIENT} requests of one client, or ${WAITING_IN_ALL} in all, are already waiting, a request is answered 503 (\`temporarily_unavailable\`) with Retry-After: 1 at once — retry then.`,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: TokenBody,
        response: {
          200: Answer(
            'The access token (and, for the password and refresh_token grants, the next refresh token).',
            TokenResponse,
          ),
          400: oauthError(
            'invalid_request (a missing or malformed parameter, grant_type missing), invalid_grant (a wrong account key ' +
              'or secret, an unknown, used or revoked refresh token), unauthorized_client (the grant is not one this ' +
              'client may use), unsupported_grant_type or invalid_scope (a scope the client may not have); and ' +
              'invalid_client (unknown client, wrong secret, revoked credentials, or none sent) when the client sent ' +
              'its credentials in the body, or none.',
          ),
          401: oauthError(
            'invalid_client when the client authenticated with HTTP Basic (the Authorization header): unknown client, ' +
              'wrong secret, revoked credentials or malformed Basic credentials; with a WWW-Authenticate challenge.',
          ),
          429: oauthError(
            'invalid_request: too many failed authentications of this client from this address, too many failures ' +
              'of this grant for this client from this address, or too many failed client authentications from this ' +
              'address in all; retry after the Retry-After seconds.',
          ),
          503: oauthError(
            'temporarily_unavailable: too many requests are waiting for their secrets to be checked, or the database ' +
              'is unavailable; retry after the Retry-After seconds.',
          ),
        },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const client = clientCredentials(request, body);
      if (!body.grant_type) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
      const grant = {
        grantType: body.grant_type,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        username: body.username,
        password: body.password,
        refreshToken: body.refresh_token,
        scope: body.scope,
      };
      const response = await face.throttle.attempt(client.clientId, body.grant_type, request.ip, () =>
        face.grants.grant(grant),
      );
      return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(response);
    },
  );
};
