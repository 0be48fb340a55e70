// Issue 9, item 6, against the real server process: every error — router, guard, validation,
// domain — is rendered by the face's one renderer (problem+json, the /api/3 envelope, RFC 6749 on
// the token endpoint) and carries X-Correlation-ID; refusals by the guard carry RateLimit-*.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';

let database: TestDatabase;
let server: ServerProcess;
let operatorToken: string;
before(async () => {
  database = await createTestDatabase();
  server = await startServerProcess(database.env);
  const operator = JSON.parse((await runCli(['admin', 'app', 'create', '--name', 'Shapes operator', '--operator'], database.env)).stdout);
  const response = await fetch(`${server.url}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: operator.clientId, client_secret: operator.clientSecret }),
  });
  operatorToken = ((await response.json()) as { access_token: string }).access_token;
});
after(async () => {
  await server?.kill('SIGKILL');
  await database.drop();
});

const PROBLEM = /^application\/problem\+json/;

async function call(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const response = await fetch(server.url + path, { ...init, headers: { 'x-correlation-id': 'shape-check-1', ...init.headers } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : null };
}

function assertProblem(answer: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', PROBLEM);
  assert.equal(answer.body.status, status);
  assert.equal(answer.body.code, code);
  assert.equal(answer.body.traceId, 'shape-check-1');
  assert.equal(answer.headers.get('x-correlation-id'), 'shape-check-1');
}

function assertEnvelope(answer: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(answer.body.meta.ack, false);
  assert.equal(answer.body.meta.errors[0].code, code);
  assert.equal(answer.body.data, null);
  assert.equal(answer.headers.get('x-correlation-id'), 'shape-check-1');
}

describe('errors at the edges', () => {
  it('/auth/whoami without a token answers 401 problem+json with the bearer challenge (was 400 in the OAuth shape)', async () => {
    const answer = await call('/auth/whoami');
    assertProblem(answer, 401, 'INVALID_TOKEN');
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer .*error="invalid_token"/);
  });

  it('a refusal by the guard carries X-Correlation-ID and RateLimit-* (401, 403 and 404)', async () => {
    const unauthenticated = await call('/facilities', { headers: { authorization: 'Bearer not.a.token' } });
    assertProblem(unauthenticated, 401, 'INVALID_TOKEN');
    const forbidden = await call('/facilities', { headers: { authorization: `Bearer ${operatorToken}` } });
    assertProblem(forbidden, 403, 'INSUFFICIENT_SCOPE');
    const hidden = await call('/gatewayevents/facilities/00000000-0000-4000-8000-000000000000', { headers: { authorization: `Bearer ${operatorToken}` } });
    assert.ok([403, 404].includes(hidden.status), hidden.text);
    for (const answer of [unauthenticated, forbidden, hidden]) {
      assert.match(answer.headers.get('ratelimit-limit') ?? '', /^\d+$/, 'RateLimit-Limit');
      assert.match(answer.headers.get('ratelimit-remaining') ?? '', /^\d+$/, 'RateLimit-Remaining');
    }
    // The refusals count: each one took from the same caller's allowance (the address here).
    const first = Number(unauthenticated.headers.get('ratelimit-remaining'));
    const again = await call('/facilities', { headers: { authorization: 'Bearer not.a.token' } });
    assert.ok(Number(again.headers.get('ratelimit-remaining')) < first);
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
    const malformed = await call('/auth/token', { method: 'POST', body: '{"grant_type":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400, malformed.text);
    assert.equal(malformed.body.error, 'invalid_request');
    assert.equal(malformed.headers.get('x-correlation-id'), 'shape-check-1');
    const unsupported = await call('/auth/token', { method: 'POST', body: 'x', headers: { 'content-type': 'text/csv' } });
    assert.equal(unsupported.status, 415, unsupported.text);
    assert.equal(unsupported.body.error, 'invalid_request');
    assert.equal(unsupported.headers.get('x-correlation-id'), 'shape-check-1');
  });

  it('the service still serves after all of it', async () => {
    assert.equal((await call('/health')).status, 200);
  });
});
