// TRUST_PROXY over real HTTP: the client address of the per-address limits (the failed-token
// throttle, the rate limit of calls without a token) and of the request log is the one a trusted
// proxy forwards in X-Forwarded-For; from any other peer the header is ignored. Each request is sent
// from an address of its own on the loopback (127.x.y.z, the socket bound to it), and names made-up
// forwarded addresses, so that no count is shared with another test or run (the counters live in
// Redis when REDIS_URL is set, for a minute).
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

/** A loopback address no other test uses: Linux answers for all of 127.0.0.0/8. */
const loopback = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
/** A client behind the proxy: documentation and benchmark ranges, one IPv6 and one IPv4. */
const clientV6 = () => `2001:db8::${randomInt(1, 0xffff).toString(16)}:${randomInt(1, 0xffff).toString(16)}`;
const clientV4 = () => `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;

interface Sent {
  /** The peer address the connection comes from. */
  from: string;
  forwardedFor?: string;
  form?: Record<string, string>;
}

/** One request over its own connection, from `from`. */
function send(t: TestApp, method: 'GET' | 'POST', path: string, sent: Sent) {
  const { port } = t.app.server.address() as { port: number };
  const body = sent.form ? new URLSearchParams(sent.form).toString() : undefined;
  const headers: Record<string, string> = { connection: 'close' };
  if (sent.forwardedFor) headers['x-forwarded-for'] = sent.forwardedFor;
  if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method, headers, localAddress: sent.from, agent: false },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

// TOKEN_FAILURE_LIMIT 1: an address may fail client authentication 10 times (10× the limit) a window.
const PER_ADDRESS = 10;
const RATE_LIMIT = 12;
const ENV = { TOKEN_FAILURE_LIMIT: '1', TOKEN_FAILURE_WINDOW_SECONDS: '60', RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) };

/** A token request with a made-up client id each time: only the per-address count can refuse it. */
const wrongClient = () => ({
  grant_type: 'client_credentials',
  client_id: `gh_app_nobody${randomInt(1e9)}`,
  client_secret: 'gh_cs_guess',
});

/** Fills the per-address count of wrong client secrets sent through `sent`; the next one is refused unchecked. */
async function flood(t: TestApp, sent: Omit<Sent, 'form'>): Promise<void> {
  for (let i = 0; i < PER_ADDRESS; i++) {
    const answer = await send(t, 'POST', '/auth/token', { ...sent, form: wrongClient() });
    assert.equal(answer.body.error, 'invalid_client', `attempt ${i + 1}: ${JSON.stringify(answer.body)}`);
  }
  const refused = await send(t, 'POST', '/auth/token', { ...sent, form: wrongClient() });
  assert.equal(refused.status, 429, 'the flooding address is throttled');
}

/** Sends calls without a token until the rate limit refuses one; how many were answered. */
async function exhaustRateLimit(t: TestApp, sent: Sent): Promise<number> {
  for (let answered = 0; answered <= RATE_LIMIT; answered++) {
    if ((await send(t, 'GET', '/.well-known/jwks.json', sent)).status === 429) return answered;
  }
  assert.fail('the rate limit never refused');
}

function listening(env: Record<string, string>) {
  let t: TestApp | undefined;
  before(async () => {
    t = await startTestApp({ env: { ...ENV, ...env } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => t?.close());
  return () => t!;
}

describe('TRUST_PROXY naming the proxy (the loopback)', () => {
  const app = listening({ TRUST_PROXY: 'loopback' });

  it('gives each forwarded client its own failed-token bucket: one flooding does not throttle another', async () => {
    const proxy = loopback();
    const flooder = clientV6();
    await flood(app(), { from: proxy, forwardedFor: flooder });
    const other = await send(app(), 'POST', '/auth/token', {
      from: proxy,
      forwardedFor: clientV4(),
      form: wrongClient(),
    });
    assert.equal(other.body.error, 'invalid_client', 'another client behind the same proxy is checked, not throttled');
    // The flooder stays throttled through the proxy, whatever it writes before the proxy's entry.
    const again = await send(app(), 'POST', '/auth/token', {
      from: proxy,
      forwardedFor: `${clientV4()}, ${flooder}`,
      form: wrongClient(),
    });
    assert.equal(again.status, 429);
  });

  it('counts the rate limit of calls without a token per forwarded client', async () => {
    const proxy = loopback();
    assert.equal(await exhaustRateLimit(app(), { from: proxy, forwardedFor: clientV4() }), RATE_LIMIT);
    assert.equal(
      (await send(app(), 'GET', '/.well-known/jwks.json', { from: proxy, forwardedFor: clientV4() })).status,
      200,
    );
  });

  it('logs the forwarded client as the request’s address, not an address the client wrote before it', async () => {
    const client = clientV4();
    await send(app(), 'GET', '/health', { from: loopback(), forwardedFor: `203.0.113.66, ${client}` });
    const line = app()
      .logs.lines.map((text) => JSON.parse(text))
      .find((record) => record.msg === 'request' && record.remoteAddress === client);
    assert.ok(line, `no request line with remoteAddress ${client}`);
    assert.ok(!app().logs.text.includes('203.0.113.66'), 'the address the client wrote is not believed');
  });
});

for (const [label, env] of [
  ['unset', {}],
  ['naming other proxies', { TRUST_PROXY: '10.0.0.0/8, 2001:db8::/32' }],
] as const) {
  describe(`TRUST_PROXY ${label}: X-Forwarded-For from the peer is ignored`, () => {
    const app = listening(env);

    it('a spoofed X-Forwarded-For escapes no failed-token bucket: the flood lands on the real address', async () => {
      const peer = loopback();
      await flood(app(), { from: peer, forwardedFor: clientV6() });
      const spoofed = await send(app(), 'POST', '/auth/token', {
        from: peer,
        forwardedFor: clientV4(),
        form: wrongClient(),
      });
      assert.equal(spoofed.status, 429, 'another X-Forwarded-For from the same peer is the same address');
      // Another peer is another address: the throttle is per address, not global.
      const elsewhere = await send(app(), 'POST', '/auth/token', { from: loopback(), form: wrongClient() });
      assert.equal(elsewhere.body.error, 'invalid_client');
    });

    it('counts the rate limit per peer, whatever X-Forwarded-For says', async () => {
      const peer = loopback();
      // Each call claims another client; all are the peer's.
      for (let i = 0; i < RATE_LIMIT; i++) {
        const answer = await send(app(), 'GET', '/.well-known/jwks.json', { from: peer, forwardedFor: clientV4() });
        assert.equal(answer.status, 200);
      }
      assert.equal(
        (await send(app(), 'GET', '/.well-known/jwks.json', { from: peer, forwardedFor: clientV4() })).status,
        429,
      );
    });

    it('logs the peer’s address', async () => {
      const peer = loopback();
      await send(app(), 'GET', '/health', { from: peer, forwardedFor: '203.0.113.77' });
      const line = app()
        .logs.lines.map((text) => JSON.parse(text))
        .find((record) => record.msg === 'request' && record.remoteAddress === peer);
      assert.ok(line, `no request line with remoteAddress ${peer}`);
      assert.ok(!app().logs.text.includes('203.0.113.77'));
    });
  });
}
