// Issue 9, item 6, against the real server process: every error — router, guard, validation,
// domain — is rendered by the face's one renderer (problem+json, the /api/3 envelope, RFC 6749 on
// the token endpoint) and carries X-Correlation-ID; refusals by the guard carry RateLimit-*.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operatorToken, request, type Answer } from '../helpers/http.ts';
import { realServer } from '../helpers/server.ts';

let operator: string;
const served = realServer(
  {},
  {
    signal: 'SIGKILL',
    async started({ url, database }) {
      operator = await operatorToken(url, database.env);
    },
  },
);

const PROBLEM = /^application\/problem\+json/;

const call = (
  path: string,
  options: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {},
) =>
  request(served.url, options.method ?? 'GET', path, {
    body: options.body,
    headers: { 'x-correlation-id': 'shape-check-1', ...options.headers },
  });

function assertProblem(answer: Answer, status: number, code: string) {
  assert.equal(answer.status, status, answer.text);
  assert.match(String(answer.headers['content-type'] ?? ''), PROBLEM);
  assert.equal(answer.body.status, status);
  assert.equal(answer.body.code, code);
  assert.equal(answer.body.traceId, 'shape-check-1');
  assert.equal(answer.headers['x-correlation-id'], 'shape-check-1');
}

function assertEnvelope(answer: Answer, status: number, code: string) {
  assert.equal(answer.status, status, answer.text);
  assert.match(String(answer.headers['content-type'] ?? ''), /^application\/json/);
  assert.equal(answer.body.meta.ack, false);
  assert.equal(answer.body.meta.errors[0].code, code);
  assert.equal(answer.body.data, null);
  assert.equal(answer.headers['x-correlation-id'], 'shape-check-1');
}

describe('errors at the edges', () => {
  it('/auth/whoami without a token answers 401 problem+json with the bearer challenge (was 400 in the OAuth shape)', async () => {
    const answer = await call('/auth/whoami');
    assertProblem(answer, 401, 'INVALID_TOKEN');
    assert.match(String(answer.headers['www-authenticate'] ?? ''), /^Bearer .*error="invalid_token"/);
  });

  it('a refusal by the guard carries X-Correlation-ID and RateLimit-* (401, 403 and 404)', async () => {
    const unauthenticated = await call('/facilities', { headers: { authorization: 'Bearer not.a.token' } });
    assertProblem(unauthenticated, 401, 'INVALID_TOKEN');
    const forbidden = await call('/facilities', { headers: { authorization: `Bearer ${operator}` } });
    assertProblem(forbidden, 403, 'INSUFFICIENT_SCOPE');
    const hidden = await call('/gatewayevents/facilities/999999999', {
      headers: { authorization: `Bearer ${operator}` },
    });
    assert.ok([403, 404].includes(hidden.status), hidden.text);
    for (const answer of [unauthenticated, forbidden, hidden]) {
      assert.match(String(answer.headers['ratelimit-limit'] ?? ''), /^\d+$/, 'RateLimit-Limit');
      assert.match(String(answer.headers['ratelimit-remaining'] ?? ''), /^\d+$/, 'RateLimit-Remaining');
    }
    // The refusals count: each one took from the same caller's allowance (the address here).
    const first = Number(unauthenticated.headers['ratelimit-remaining']);
    const again = await call('/facilities', { headers: { authorization: 'Bearer not.a.token' } });
    assert.ok(Number(again.headers['ratelimit-remaining']) < first);
  });

  it('router errors are problem+json outside /api/3: a bad percent-encoding and an over-long path parameter', async () => {
    assertProblem(await call('/facilities/%ff'), 400, 'BAD_URL');
    assertProblem(await call(`/facilities/${'x'.repeat(300)}/units`), 414, 'PATH_PARAMETER_TOO_LONG');
    assertProblem(await call('/no/such/route'), 404, 'NOT_FOUND');
  });

  it('router errors under /api/3 are in the envelope', async () => {
    assertEnvelope(await call('/api/3/%ff'), 400, 'BAD_URL');
    assertEnvelope(await call(`/api/3/auctions/${'x'.repeat(300)}`), 414, 'PATH_PARAMETER_TOO_LONG');
    assertEnvelope(await call('/api/3/no-such-route'), 404, 'NOT_FOUND');
    // The guard's refusal there too.
    assertEnvelope(await call('/api/3/auctions/abc'), 401, 'INVALID_TOKEN');
  });

  it('the token endpoint answers every failure in the RFC 6749 shape, with X-Correlation-ID', async () => {
    const malformed = await call('/auth/token', {
      method: 'POST',
      body: '{"grant_type":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400, malformed.text);
    assert.equal(malformed.body.error, 'invalid_request');
    assert.equal(malformed.headers['x-correlation-id'], 'shape-check-1');
    const unsupported = await call('/auth/token', {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(unsupported.status, 415, unsupported.text);
    assert.equal(unsupported.body.error, 'invalid_request');
    assert.equal(unsupported.headers['x-correlation-id'], 'shape-check-1');
  });

  it('the service still serves after all of it', async () => {
    assert.equal((await call('/health')).status, 200);
  });
});
