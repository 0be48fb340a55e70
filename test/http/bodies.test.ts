// Request bodies bounded in time and shape, and the HTTP edge's small faults (issue 23), through the
// real app listening on loopback and real sockets: a body that stalls is answered 408 and its
// connection closed; a body with too many fields is refused before it costs the event loop; headers
// over 16 KiB, a `__proto__` key and a form's declared charset — each answered in the face's shape.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MAX_BODY_DEPTH, fieldCountOfForm, pathBeyondShape } from '../../src/http/validation.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { bearer, gatewayToken, operatorToken, partnerToken, provisionAccount } from '../helpers/tenants.ts';

const UPLOAD_TIMEOUT_MS = 400;
const FIELD_LIMIT = 1000;

let t: TestApp;
let port: number;
let operator: string;
let pms: string;
let partner: string;
let gateway: string;
let facilityId: EntityId;
let facilityGuid: string;

before(async () => {
  t = await startTestApp({
    env: { BODY_UPLOAD_TIMEOUT_MS: String(UPLOAD_TIMEOUT_MS), RATE_LIMIT_PER_MINUTE: '100000' },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
  operator = await operatorToken(t);
  const account = await provisionAccount(t);
  pms = account.token;
  facilityId = account.facilities[0]!.id;
  facilityGuid = account.facilities[0]!.guid!;
  partner = (await partnerToken(t, 'auctioneer', [facilityGuid])).token;
  gateway = (await gatewayToken(t, facilityId)).token;
});
after(() => t.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Writes `parts` on a fresh connection, then waits — sending nothing more — until the server closes
 * it, or `waitMs` passes (then `closed` is false and whatever was answered is returned).
 */
function exchange(parts: (string | Buffer)[], waitMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(chunks).toString('utf8'), closed));
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
    });
  });
}

function parse(raw: string, closed: boolean): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = end < 0 ? '' : raw.slice(end + 4);
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, text, body, closed };
}

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** A real HTTP request through fetch. */
async function call(
  method: string,
  path: string,
  options: { token?: string; type?: string; body?: string } = {},
): Promise<{ status: number; type: string; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(options.token ? bearer(options.token) : {}),
      ...(options.type ? { 'content-type': options.type } : {}),
    },
    body: options.body,
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, type: response.headers.get('content-type') ?? '', body };
}

const PROBLEM = /^application\/problem\+json/;
const JSON_TYPE = /^application\/json/;
const FORM = 'application/x-www-form-urlencoded';

/** Where each face is, its token, and how its error body says the code and the words. */
const faces = () =>
  [
    {
      face: 'problem+json (admin)',
      path: '/admin/accounts',
      token: operator,
      type: PROBLEM,
      code: (body: any) => body.code,
      words: (body: any) => `${body.detail} ${JSON.stringify(body.errors ?? [])}`,
    },
    {
      face: 'the /api/3 envelope',
      path: '/api/3/auctioninfo',
      token: partner,
      type: JSON_TYPE,
      code: (body: any) => (body.meta.ack === false ? body.meta.errors[0].code : 'ACK'),
      words: (body: any) => body.meta.errors.map((e: { message: string }) => e.message).join(' '),
    },
    {
      face: 'OAuth (the token endpoint)',
      path: '/auth/token',
      token: '',
      type: JSON_TYPE,
      code: (body: any) => body.error,
      words: (body: any) => body.error_description,
    },
  ] as const;

describe('a body that never completes', () => {
  it('is answered 408 in the face’s shape and its connection closed (it was held open for minutes)', async () => {
    for (const face of faces()) {
      const headers = {
        'content-type': 'application/json',
        'content-length': '200',
        'x-correlation-id': 'stalled-body-1',
        ...(face.token ? bearer(face.token) : {}),
      };
      const started = Date.now();
      const answer = await exchange([head('POST', face.path, headers), '{"name":"Half a bo']);
      assert.ok(answer.closed, `${face.face}: the connection is still open 10 s later (${answer.text.slice(0, 200)})`);
      assert.equal(answer.status, 408, `${face.face}: ${answer.text}`);
      assert.match(answer.headers['content-type'] ?? '', face.type, face.face);
      assert.equal(answer.headers.connection, 'close', face.face);
      assert.equal(answer.headers['x-correlation-id'], 'stalled-body-1', face.face);
      assert.match(face.words(answer.body), /body .*within 0\.4 s/, face.face);
      if (face.type === PROBLEM) assert.equal(face.code(answer.body), 'BODY_TIMEOUT');
      else if (face.path === '/auth/token') assert.equal(face.code(answer.body), 'invalid_request');
      else assert.equal(face.code(answer.body), 'BODY_TIMEOUT');
      assert.ok(Date.now() - started >= UPLOAD_TIMEOUT_MS, 'answered at the deadline, not before');
    }
  });

  it('is answered 408 on the access-control face (a stalled form) and the gateway ingest (its own parser)', async () => {
    for (const [path, token, type] of [
      [`/facilities/${facilityId}/units`, pms, FORM],
      ['/gateway/v1/events', gateway, 'application/json'],
    ] as const) {
      const answer = await exchange([
        head('POST', path, { ...bearer(token), 'content-type': type, 'content-length': '100' }),
        type === FORM ? 'unitNumber=A' : '{"events":[',
      ]);
      assert.ok(answer.closed, `${path}: the connection is still open`);
      assert.equal(answer.status, 408, answer.text);
      assert.match(answer.headers['content-type'] ?? '', PROBLEM);
      assert.equal(answer.body.code, 'BODY_TIMEOUT');
    }
  });

  it('closes the connection when the request was refused before its body was read (a 401 of the guard)', async () => {
    const answer = await exchange([
      head('POST', '/admin/accounts', { 'content-type': 'application/json', 'content-length': '200' }),
      '{"name":"No token',
    ]);
    assert.ok(answer.closed, `the connection is still open 10 s later (${answer.text.slice(0, 200)})`);
    assert.equal(answer.status, 401, answer.text);
    assert.equal(answer.headers.connection, 'close');
  });

  it('does not touch a body that arrives slowly but within the deadline, nor the next request', async () => {
    const body = JSON.stringify({ name: 'Slow but steady' });
    const answer = await new Promise<RawAnswer>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        const raw = Buffer.concat(chunks).toString('utf8');
        const answered = parse(raw, false);
        if (answered.body && typeof answered.body === 'object') {
          socket.destroy();
          resolve(answered);
        }
      });
      socket.on('error', reject);
      socket.on('connect', () => {
        socket.write(
          head('POST', '/admin/accounts', {
            ...bearer(operator),
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          }),
        );
        // The second half once the first has been read by the server: still well within the deadline.
        socket.write(body.slice(0, 10));
        setImmediate(() => socket.write(body.slice(10)));
      });
    });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.name, 'Slow but steady');
  });
});

describe('a body with too many fields', () => {
  const jsonObject = (keys: number, extra: Record<string, unknown> = {}) => {
    const object: Record<string, unknown> = { ...extra };
    for (let i = 0; i < keys - Object.keys(extra).length; i++) object[`k${i}`] = i;
    return JSON.stringify(object);
  };
  const formOf = (fields: number, extra = 'unitNumber=F-1') =>
    [extra, ...Array.from({ length: fields - 1 }, (_, i) => `k${i}=${i}`)].join('&');

  it('is refused 400 naming the limit, in JSON and in a form, on every face', async () => {
    const problem = await call('POST', '/admin/accounts', {
      token: operator,
      type: 'application/json',
      body: jsonObject(FIELD_LIMIT + 1, { name: 'Too wide' }),
    });
    assert.equal(problem.status, 400, JSON.stringify(problem.body));
    assert.match(problem.type, PROBLEM);
    assert.equal(problem.body.code, 'TOO_MANY_FIELDS');
    assert.match(problem.body.detail, /more than 1000 fields/);
    assert.deepEqual(problem.body.errors, [{ path: 'body', message: 'must have at most 1000 fields' }]);

    const nested = await call('POST', '/api/3/auctioninfo', {
      token: partner,
      type: 'application/json',
      body: `{"facility":{"guid":"${facilityGuid}"},"auctionableUnitInfo":[${jsonObject(FIELD_LIMIT + 1)}]}`,
    });
    assert.equal(nested.status, 400, JSON.stringify(nested.body));
    assert.match(nested.type, JSON_TYPE);
    assert.equal(nested.body.meta.errors[0].code, 'TOO_MANY_FIELDS');
    assert.equal(nested.body.meta.errors[0].path, 'auctionableUnitInfo[0]');
    assert.match(nested.body.meta.errors[0].message, /must have at most 1000 fields/);

    const token = await call('POST', '/auth/token', {
      type: FORM,
      body: formOf(FIELD_LIMIT + 1, 'grant_type=password'),
    });
    assert.equal(token.status, 400, JSON.stringify(token.body));
    assert.equal(token.body.error, 'invalid_request');
    assert.match(token.body.error_description, /more than 1000 fields/);

    const form = await call('POST', `/facilities/${facilityId}/units`, {
      token: pms,
      type: FORM,
      body: formOf(FIELD_LIMIT + 1),
    });
    assert.equal(form.status, 400, JSON.stringify(form.body));
    assert.equal(form.body.code, 'TOO_MANY_FIELDS');

    const event = `{"eventId":"wide-1","eventType":1,"occurredAt":"${new Date().toISOString()}","data":${jsonObject(FIELD_LIMIT + 1)}}`;
    const ingest = await call('POST', '/gateway/v1/events', {
      token: gateway,
      type: 'application/json',
      body: `{"events":[${event}]}`,
    });
    assert.equal(ingest.status, 400, JSON.stringify(ingest.body));
    assert.equal(ingest.body.code, 'TOO_MANY_FIELDS');
    assert.equal(ingest.body.errors[0].path, 'events[0].data');
  });

  it('refuses 100,000 form fields at once, and the service keeps answering', async () => {
    const body = Array(100_000).fill('a=1').join('&'); // 400 KB: within the body limit
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        call('POST', `/facilities/${facilityId}/units`, { token: pms, type: FORM, body }),
      ),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'TOO_MANY_FIELDS');
    }
    assert.equal((await call('GET', '/health')).status, 200);
  });

  it('takes bodies at the limit: a form of 1,000 fields, an object of 1,000 keys', async () => {
    const form = await call('POST', `/facilities/${facilityId}/units`, {
      token: pms,
      type: FORM,
      body: formOf(FIELD_LIMIT),
    });
    assert.equal(form.status, 201, JSON.stringify(form.body).slice(0, 300));
    const json = await call('POST', '/admin/accounts', {
      token: operator,
      type: 'application/json',
      body: jsonObject(FIELD_LIMIT, { name: 'Exactly wide' }),
    });
    assert.equal(json.status, 201, JSON.stringify(json.body).slice(0, 300));
  });

  it('counts a form’s fields before it is parsed, and an object’s keys wherever it nests', () => {
    assert.equal(fieldCountOfForm(''), 0);
    assert.equal(fieldCountOfForm('a=1'), 1);
    assert.equal(fieldCountOfForm('a=1&b=2&a=3'), 3);
    assert.equal(fieldCountOfForm('a=1&'), 2); // an upper bound: the parser drops the empty one
    // The largest legitimate bodies are long, not wide: an auction full list of 5,000 records.
    const records = Array.from({ length: 5000 }, (_, i) => ({
      unitNumber: `U${i}`,
      imageUrls: Array.from({ length: 25 }, (_, j) => `https://img.example/${i}/${j}.jpg`),
      tenant: { firstName: 'A', lastName: 'B' },
    }));
    const body = { facility: { guid: 'G' }, auctionableUnitInfo: records };
    assert.equal(pathBeyondShape(body, MAX_BODY_DEPTH, FIELD_LIMIT), null);
    const wide = Object.fromEntries(Array.from({ length: FIELD_LIMIT + 1 }, (_, i) => [`k${i}`, i]));
    assert.deepEqual(pathBeyondShape({ a: [{}, { b: wide }] }, MAX_BODY_DEPTH, FIELD_LIMIT), {
      kind: 'fields',
      path: 'a[1].b',
    });
    delete wide.k0;
    assert.equal(pathBeyondShape({ a: [{}, { b: wide }] }, MAX_BODY_DEPTH, FIELD_LIMIT), null);
  });
});

describe('request headers over 16 KiB', () => {
  it('are answered 431 in the face’s shape (node answered plain JSON itself)', async () => {
    for (const face of faces()) {
      const answer = await exchange([
        head('POST', face.path, { 'content-type': 'application/json', 'x-padding': 'p'.repeat(20 * 1024) }),
      ]);
      assert.ok(answer.closed, face.face);
      assert.equal(answer.status, 431, `${face.face}: ${answer.text}`);
      assert.match(answer.headers['content-type'] ?? '', face.type, face.face);
      assert.match(face.words(answer.body), /headers .*16 KiB/, face.face);
      assert.match(answer.headers['x-correlation-id'] ?? '', /^[0-9a-f-]{36}$/, face.face);
      if (face.type === PROBLEM) {
        assert.equal(answer.body.code, 'HEADERS_TOO_LARGE');
        assert.equal(answer.body.traceId, answer.headers['x-correlation-id']);
      }
    }
  });

  it('a request that is not HTTP is answered 400 problem+json', async () => {
    const answer = await exchange(['HELLO THERE\r\n\r\n']);
    assert.ok(answer.closed);
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.headers['content-type'] ?? '', PROBLEM);
    assert.equal(answer.body.code, 'BAD_HTTP_REQUEST');
  });
});

describe('a JSON body with a __proto__ key', () => {
  it('is refused 400 naming the key, not as "not valid JSON", on every face', async () => {
    for (const [key, body] of [
      ['__proto__', '{"name":"Poisoned","__proto__":{"admin":true}}'],
      ['constructor.prototype', '{"name":"Poisoned","constructor":{"prototype":{"admin":true}}}'],
    ] as const) {
      for (const face of faces()) {
        const answer = await call('POST', face.path, { token: face.token, type: 'application/json', body });
        assert.equal(answer.status, 400, `${face.face}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.type, face.type, face.face);
        const words = face.words(answer.body);
        assert.ok(words.includes(`the key ${key} is not allowed`), `${face.face}: ${words}`);
        assert.doesNotMatch(words, /not valid JSON/, face.face);
        if (face.type === PROBLEM) assert.equal(face.code(answer.body), 'FORBIDDEN_KEY');
      }
    }
  });
});

describe('a form body’s declared charset', () => {
  it('is honoured: iso-8859-1 bytes are read as Latin-1 (é was stored percent-encoded), others as declared', async () => {
    for (const [type, body, unitNumber] of [
      [`${FORM}; charset=iso-8859-1`, 'unitNumber=Caf%E9-1', 'Café-1'],
      [
        `${FORM}; charset=ISO-8859-1`,
        Buffer.concat([Buffer.from('unitNumber=Caf'), Buffer.from([0xe9]), Buffer.from('-2')]),
        'Café-2',
      ],
      [`${FORM}; charset=utf-8`, 'unitNumber=Caf%C3%A9-3', 'Café-3'],
      [FORM, 'unitNumber=Caf%C3%A9-4', 'Café-4'],
      [`${FORM}; charset="latin1"`, 'unitNumber=Caf%E9+%E0-5', 'Café à-5'],
      [`${FORM}; charset=shift_jis`, 'unitNumber=%93%8C%8B%9E-6', '東京-6'],
    ] as const) {
      const response = await fetch(`http://127.0.0.1:${port}/facilities/${facilityId}/units`, {
        method: 'POST',
        headers: { ...bearer(pms), 'content-type': type },
        body,
      });
      const created = (await response.json()) as { unitNumber: string };
      assert.equal(response.status, 201, JSON.stringify(created));
      assert.equal(created.unitNumber, unitNumber, type);
    }
  });

  it('is refused 415 naming the charset when it is not one the service reads', async () => {
    for (const charset of ['x-klingon', 'utf-16le']) {
      const answer = await call('POST', `/facilities/${facilityId}/units`, {
        token: pms,
        type: `${FORM}; charset=${charset}`,
        body: 'unitNumber=X',
      });
      assert.equal(answer.status, 415, JSON.stringify(answer.body));
      assert.match(answer.type, PROBLEM);
      assert.equal(answer.body.code, 'UNSUPPORTED_CHARSET');
      assert.ok(answer.body.detail.includes(`charset ${charset} is not`), answer.body.detail);
    }
    const token = await call('POST', '/auth/token', {
      type: `${FORM}; charset=x-klingon`,
      body: 'grant_type=client_credentials',
    });
    assert.equal(token.status, 415, JSON.stringify(token.body));
    assert.equal(token.body.error, 'invalid_request');
    assert.match(token.body.error_description, /x-klingon/);
  });

  it('refuses bytes that are not of the declared charset, naming the field', async () => {
    const answer = await call('POST', `/facilities/${facilityId}/units`, {
      token: pms,
      type: FORM,
      body: 'unitNumber=Caf%E9',
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.errors, [
      {
        path: 'unitNumber',
        message: 'is not valid utf-8 (declare the form’s charset, e.g. charset=iso-8859-1)'.replace('’', "'"),
      },
    ]);
  });
});
