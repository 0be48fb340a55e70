// Hostile input against the real server process (issue 9, items 5 and 7): bodies nested 5,000
// levels deep and integers beyond 64 bits are refused with a 400 in each face's own shape, and the
// server keeps serving; /metrics needs an operator's token; secrets in query strings never reach
// the log.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/process.ts';
import { realServer } from '../helpers/server.ts';

const DEPTH = 5_000;
const BEYOND_64_BITS = '99999999999999999999'; // 1e20 > 2^64

const served = realServer({ RATE_LIMIT_PER_MINUTE: '100000' }, { signal: 'SIGKILL', started: provision });
let operator: string;
let operatorApp: { clientId: string; clientSecret: string };
let pms: string;
let partner: string;
let gateway: string;
let accountId: EntityId;
let facilityId: EntityId;

interface Answer {
  status: number;
  type: string;
  body: any;
}

async function http(method: string, path: string, token: string | null, body?: string | object): Promise<Answer> {
  const response = await fetch(served.url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (the metrics text): kept as text.
  }
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: parsed };
}

async function tokenFor(form: Record<string, string>): Promise<string> {
  const response = await fetch(`${served.url}/auth/token`, { method: 'POST', body: new URLSearchParams(form) });
  const body = (await response.json()) as { access_token: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

/** The server is unharmed: it still answers a plain request. */
async function stillServes(): Promise<void> {
  assert.equal((await http('GET', '/health', null)).status, 200);
  assert.equal((await http('GET', '/facilities', pms)).status, 200);
}

/** The operator, an account and its facility, a PMS, a partner and a gateway, through the running server. */
async function provision() {
  operatorApp = JSON.parse(
    (await runCli(['admin', 'app', 'create', '--name', 'Hostile operator', '--operator'], served.database.env)).stdout,
  );
  operator = await tokenFor({
    grant_type: 'client_credentials',
    client_id: operatorApp.clientId,
    client_secret: operatorApp.clientSecret,
  });
  accountId = (await http('POST', '/admin/accounts', operator, { name: 'Hostile Storage' })).body.id;
  const facility = (
    await http('POST', '/admin/facilities', operator, {
      accountId,
      name: 'Hostile North',
      timeZone: 'America/Denver',
      guid: 'HOSTILE-1',
    })
  ).body;
  facilityId = facility.id;
  const pmsApp = (await http('POST', '/admin/applications', operator, { name: 'Hostile PMS' })).body;
  const key = (await http('POST', '/admin/account-keys', operator, { accountId, clientId: pmsApp.clientId })).body;
  pms = await tokenFor({
    grant_type: 'password',
    client_id: pmsApp.clientId,
    client_secret: pmsApp.clientSecret,
    username: key.apiKey,
    password: key.apiSecret,
  });
  const partnerApp = (
    await http('POST', '/admin/applications', operator, {
      name: 'Hostile partner',
      clientType: 'auctioneer',
      facilityGuids: ['HOSTILE-1'],
    })
  ).body;
  partner = await tokenFor({
    grant_type: 'client_credentials',
    client_id: partnerApp.clientId,
    client_secret: partnerApp.clientSecret,
  });
  const gatewayApp = (await http('POST', '/admin/gateways', operator, { facilityId })).body;
  gateway = await tokenFor({
    grant_type: 'client_credentials',
    client_id: gatewayApp.clientId,
    client_secret: gatewayApp.clientSecret,
  });
}

describe('a body nested 5,000 levels deep', () => {
  it('is refused with a problem+json 400 naming where the limit was passed (access control, admin)', async () => {
    for (const [path, token, body] of [
      [`/facilities/${facilityId}/units`, pms, nestedArrays(DEPTH)],
      [`/facilities/${facilityId}/units`, pms, `{"unitNumber":"A-1","extendedData":${nestedObjects(DEPTH)}}`],
      ['/admin/accounts', operator, nestedObjects(DEPTH)],
    ] as const) {
      const answer = await http('POST', path, token, body);
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      assert.match(answer.type, /^application\/problem\+json/);
      assert.equal(answer.body.code, 'BODY_TOO_DEEP');
      const fault = answer.body.errors[0];
      assert.match(fault.message, /must not nest deeper than 32 levels/);
      assert.ok(fault.path.length < 300, fault.path);
    }
    const objects = await http('POST', '/admin/accounts', operator, nestedObjects(DEPTH));
    assert.equal(objects.body.errors[0].path, `${'a.'.repeat(31)}a`);
    await stillServes();
  });

  it('is refused on the gateway ingest route, which parses its own bodies', async () => {
    const event = `{"eventId":"e1","eventType":1,"occurredAt":"${new Date().toISOString()}","data":${nestedObjects(DEPTH)}}`;
    const answer = await http('POST', '/gateway/v1/events', gateway, `{"events":[${event}]}`);
    assert.equal(answer.status, 400, JSON.stringify(answer.body).slice(0, 300));
    assert.equal(answer.body.code, 'BODY_TOO_DEEP');
    assert.equal(answer.body.errors[0].path, `events[0].data${'.a'.repeat(29)}`);
    await stillServes();
  });

  it('is refused on /api/3 in the envelope', async () => {
    for (const body of [nestedArrays(DEPTH), `{"facility":${nestedObjects(DEPTH)},"auctionableUnitInfo":[]}`]) {
      const answer = await http('POST', '/api/3/auctioninfo', partner, body);
      assert.equal(answer.status, 400, JSON.stringify(answer.body).slice(0, 300));
      assert.match(answer.type, /^application\/json/);
      assert.equal(answer.body.meta.ack, false);
      assert.equal(answer.body.meta.errors[0].code, 'BODY_TOO_DEEP');
      assert.match(answer.body.meta.errors[0].message, /must not nest deeper than 32 levels/);
    }
    await stillServes();
  });

  it('is refused on /auth/token in the RFC 6749 shape', async () => {
    const answer = await http(
      'POST',
      '/auth/token',
      null,
      `{"grant_type":"client_credentials","client_id":${nestedArrays(DEPTH)}}`,
    );
    assert.equal(answer.status, 400, JSON.stringify(answer.body).slice(0, 300));
    assert.equal(answer.body.error, 'invalid_request');
    assert.match(answer.body.error_description, /client_id\[0\].* must not nest deeper than 32 levels/);
    await stillServes();
  });

  it('is accepted at a legitimate depth', async () => {
    const answer = await http(
      'POST',
      `/facilities/${facilityId}/units`,
      pms,
      `{"unitNumber":"A-2","extendedData":${nestedObjects(30, '"deep"')}}`,
    );
    assert.equal(answer.status, 201, JSON.stringify(answer.body).slice(0, 300));
  });
});

describe('integers beyond 64 bits', () => {
  it('are refused with a 400 naming the parameter, on every integer a query carries to SQL', async () => {
    for (const [path, token, field] of [
      [`/events/facilities/${facilityId}?api-version=2.0&offset=${BEYOND_64_BITS}`, pms, 'offset'],
      [`/gatewayevents/facilities/${facilityId}?api-version=1.0&offset=${BEYOND_64_BITS}`, pms, 'offset'],
      [`/facilities/${facilityId}/units?offset=${BEYOND_64_BITS}`, pms, 'offset'],
      [`/facilities/${facilityId}/visitors?offset=${BEYOND_64_BITS}`, pms, 'offset'],
      [`/facilities/${facilityId}/commands?after=${BEYOND_64_BITS}`, pms, 'after'],
      [`/gateway/v1/commands?after=${BEYOND_64_BITS}`, gateway, 'after'],
      [`/facilities/${facilityId}/commands?after=9007199254740992`, pms, 'after'], // 2^53: no longer exact in JavaScript
    ] as const) {
      const answer = await http('GET', path, token);
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, 'VALIDATION_FAILED', path);
      assert.deepEqual(
        answer.body.errors.map((e: { path: string }) => e.path),
        [field],
        path,
      );
    }
    // The largest exact integer is still an integer the routes accept.
    assert.equal((await http('GET', `/facilities/${facilityId}/commands?after=9007199254740991`, pms)).status, 200);
    await stillServes();
  });
});

describe('/metrics', () => {
  it('needs a bearer token with scope admin', async () => {
    const anonymous = await http('GET', '/metrics', null);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.type, /^application\/problem\+json/);
    assert.equal((await http('GET', '/metrics', pms)).status, 403);
    // The token as Prometheus's `oauth2` configuration asks for it: client_credentials, the
    // client authenticated with HTTP Basic (its default), the scope named.
    const basic = Buffer.from(
      `${encodeURIComponent(operatorApp.clientId)}:${encodeURIComponent(operatorApp.clientSecret)}`,
    ).toString('base64');
    const issued = await fetch(`${served.url}/auth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=admin',
    });
    assert.equal(issued.status, 200);
    const scraped = await http('GET', '/metrics', ((await issued.json()) as { access_token: string }).access_token);
    assert.equal(scraped.status, 200);
    assert.match(scraped.type, /^text\/plain/);
    assert.match(scraped.body, /gatehouse_http_request_duration_seconds_bucket/);
  });
});

describe('the request log', () => {
  it('holds no secret that a caller put in a query string', async () => {
    const secrets = {
      apiSecret: 'sq-apiSecret-value',
      api_key: 'sq-api_key-value',
      code: 'sq-code-value',
      apiKey: 'sq-apiKey-value',
      client_secret: 'sq-client_secret-value',
      secret: 'sq-secret-value',
      access_token: 'sq-access_token-value',
    };
    const query = new URLSearchParams({ ...secrets, harmless: 'sq-harmless-value' }).toString();
    await http('GET', `/health?${query}`, null);
    await http('GET', `/facilities?${query.replace(/&/g, ';')}`, pms); // a separator some parsers honour
    await http('POST', `/auth/token?${query}`, null, { grant_type: 'client_credentials' });
    const log = await served.server.logged('sq-harmless-value', 3);
    assert.match(log, /sq-harmless-value/, 'the log holds the request line');
    for (const [name, value] of Object.entries(secrets)) assert.ok(!log.includes(value), `${name} in the log`);
  });
});
