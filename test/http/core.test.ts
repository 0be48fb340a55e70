// The HTTP core through the real app: errors as problem+json, request ids, logs, docs, metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@fastify/type-provider-typebox';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { bearer, operatorToken, provisionAccount } from '../helpers/tenants.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp({
    extend(app) {
      app.post(
        '/test/echo',
        {
          config: { access: 'public' },
          schema: {
            body: Type.Object({
              name: Type.String({ minLength: 1 }),
              count: Type.Integer({ minimum: 1 }),
              tags: Type.Optional(Type.Array(Type.String())),
            }),
            querystring: Type.Object({ mode: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])) }),
          },
        },
        async (request) => request.body,
      );
      app.get('/test/boom', { config: { access: 'public' } }, async () => {
        throw new Error("select password from secrets where api_secret = 'hunter2'");
      });
      app.get('/test/unique', { config: { access: 'public' } }, async () => {
        const pool = t.services.database.pool;
        await pool.query('create table if not exists test_codes (code text primary key)');
        await pool.query("insert into test_codes values ('55501234') on conflict do nothing");
        await pool.query("insert into test_codes values ('55501234')");
        return {};
      });
      app.get('/test/sql', { config: { access: 'public' } }, async () => {
        await t.services.database.pool.query('select secret_column from table_that_does_not_exist');
        return {};
      });
    },
  });
});
after(() => t.close());

function assertProblem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
) {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const body = JSON.parse(response.body);
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assert.match(body.type, /^urn:gatehouse:problem:/);
  assert.equal(body.traceId, response.headers['x-correlation-id']);
  return body;
}

describe('errors are problem+json and the service keeps serving', () => {
  it('lists every invalid field, across the body and the query string', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo?mode=c',
      payload: { name: '', count: 0, tags: 'x' },
    });
    const body = assertProblem(response, 400, 'VALIDATION_FAILED');
    const paths = body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ['count', 'mode', 'name', 'tags']);
  });

  it('names a missing field', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'x' } });
    const body = assertProblem(response, 400, 'VALIDATION_FAILED');
    assert.deepEqual(body.errors, [{ path: 'count', message: 'is required' }]);
  });

  it('accepts a valid body', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'x', count: 2 } });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { name: 'x', count: 2 });
  });

  it('refuses malformed JSON with 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    assertProblem(response, 400, 'MALFORMED_JSON');
  });

  it('refuses a body that is JSON but not an object', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '"just a string"',
    });
    assertProblem(response, 400, 'VALIDATION_FAILED');
  });

  it('refuses a content type it does not parse with 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    assertProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a body over the limit with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), count: 1 });
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: big,
    });
    assertProblem(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers an unknown route with 404', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/no/such/route' });
    assertProblem(response, 404, 'NOT_FOUND');
  });

  it('never leaks an internal error message, stack or SQL in a 500', async () => {
    for (const url of ['/test/boom', '/test/sql']) {
      const response = await t.app.inject({ method: 'GET', url });
      const body = assertProblem(response, 500, 'INTERNAL_ERROR');
      assert.doesNotMatch(response.body, /select|secret|hunter2|table_that_does_not_exist|at .*\.ts/i);
      assert.match(body.detail, /retry/);
    }
    // …but the log has it, for the operator.
    assert.match(t.logs.text, /table_that_does_not_exist/);
  });

  it('never logs the row values that a database error quotes', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/unique' });
    assertProblem(response, 500, 'INTERNAL_ERROR');
    assert.match(t.logs.text, /duplicate key/);
    assert.doesNotMatch(t.logs.text + response.body, /55501234/);
  });

  it('refuses a body nested 5,000 levels deep with 400 naming where the limit was passed', async () => {
    for (const payload of [
      '['.repeat(5_000) + ']'.repeat(5_000),
      `{"name":"x","count":1,"tags":${'['.repeat(5_000) + ']'.repeat(5_000)}}`,
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      const body = assertProblem(response, 400, 'BODY_TOO_DEEP');
      assert.equal(body.errors.length, 1);
      assert.match(body.errors[0].path, /^(tags)?(\[0\]){31,32}$/);
      assert.equal(body.errors[0].message, 'must not nest deeper than 32 levels');
    }
  });

  it('refuses an integer beyond what JavaScript holds exactly, naming the field', async () => {
    for (const count of ['1e20', '9007199254740993']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': 'application/json' },
        payload: `{"name":"x","count":${count}}`,
      });
      const body = assertProblem(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        body.errors.map((e: { path: string }) => e.path),
        ['count'],
        count,
      );
    }
  });

  it('still serves after all of the above', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(response.statusCode, 200);
  });
});

describe('request ids and logs', () => {
  it('honours and echoes X-Correlation-ID, and makes one when absent or unsafe', async () => {
    const given = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-correlation-id': 'abc-123' } });
    assert.equal(given.headers['x-correlation-id'], 'abc-123');
    const made = await t.app.inject({ method: 'GET', url: '/health' });
    assert.match(String(made.headers['x-correlation-id']), /^[0-9a-f-]{36}$/);
    const unsafe = await t.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-correlation-id': 'a\u0007b<script>' },
    });
    assert.notEqual(unsafe.headers['x-correlation-id'], 'a\u0007b<script>');
  });

  it('logs one line per request with its id, and never the Authorization header or a secret in the body', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { authorization: 'Bearer eyJ-very-secret-token', 'x-correlation-id': 'log-check-1' },
      payload: { name: 'x', count: 1, accessCode: '918273', password: 'pa55-w0rd-log-check' },
    });
    const lines = t.logs.lines.filter((line) => line.includes('log-check-1'));
    assert.equal(lines.length, 1);
    const entry = JSON.parse(lines[0]!);
    assert.equal(entry.reqId, 'log-check-1');
    assert.equal(entry.statusCode, 200);
    assert.doesNotMatch(t.logs.text, /eyJ-very-secret-token|918273|pa55-w0rd-log-check/);
  });
});

describe('operations routes', () => {
  it('/health and /availability answer 200 when all is well', async () => {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/health' })).json(), { status: 'ok' });
    const availability = await t.app.inject({ method: 'GET', url: '/availability' });
    assert.equal(availability.statusCode, 200);
    assert.deepEqual(availability.json(), {
      status: 'available',
      checks: { database: true, migrations: true, jobs: true, redis: 'not configured' },
    });
  });

  it('/metrics serves Prometheus text with the request histogram to an operator token only', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().code, 'INVALID_TOKEN');
    const account = await provisionAccount(t);
    const pms = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(account.token) });
    assert.equal(pms.statusCode, 403);
    assert.equal(pms.json().code, 'INSUFFICIENT_SCOPE');
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(await operatorToken(t)) });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    assert.match(response.body, /gatehouse_http_request_duration_seconds_bucket\{.*route="\/health"/);
    assert.match(response.body, /gatehouse_process_resident_memory_bytes/);
  });

  it('GET / leads to the API reference, and is no operation of the documents', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/swagger');
    const reference = await t.app.inject({ method: 'GET', url: String(response.headers.location) });
    assert.equal(reference.statusCode, 200);
    assert.match(reference.body, /<title>Gatehouse API<\/title>/);
    for (const version of ['3.0', '2.0', '1.0']) {
      const doc = (await t.app.inject({ method: 'GET', url: `/swagger/v${version}.json` })).json();
      assert.equal(doc.paths['/'], undefined, `v${version}`);
    }
  });

  it('/swagger serves the UI with a version selector fed by three documents', async () => {
    const ui = await t.app.inject({ method: 'GET', url: '/swagger/' });
    assert.equal(ui.statusCode, 200);
    assert.match(ui.body, /swagger-ui/i);
    const init = await t.app.inject({ method: 'GET', url: '/swagger/static/swagger-initializer.js' });
    for (const version of ['v3.0', 'v2.0', 'v1.0'])
      assert.ok(init.body.includes(`/swagger/${version}.json`), `${version} in the selector`);
    assert.match(init.body, /"urls.primaryName":\s*"v3.0"/);
    for (const version of ['3.0', '2.0', '1.0']) {
      const doc = await t.app.inject({ method: 'GET', url: `/swagger/v${version}.json` });
      assert.equal(doc.statusCode, 200);
      assert.equal(doc.json().info.version, version);
      assert.equal(doc.json().openapi, '3.1.0');
    }
    const v3 = (await t.app.inject({ method: 'GET', url: '/swagger/v3.0.json' })).json();
    assert.ok(v3.paths['/availability'].get.responses['503']);
  });
});

describe('availability when a part fails', () => {
  it('answers 503 when the job runner is not running', async () => {
    await t.services.jobs.stop();
    const response = await t.app.inject({ method: 'GET', url: '/availability' });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().checks.jobs, false);
    assert.equal(response.json().checks.database, true);
  });
});
