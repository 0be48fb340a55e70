// The one outbound webhook sender (src/net/webhook-sender.ts) against a real receiver on loopback:
// the envelope, the signing (verified with the reference library), unsigned without a secret, the
// address check on or off, what a non-2xx and a refused connection come back as; and the one
// retry-schedule function (src/net/retry.ts) with the schedules its owners declare.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { IMAGE_RETRY } from '../../src/auctions/model.ts';
import { retryDelayMs } from '../../src/net/retry.ts';
import { WebhookSender, webhookEnvelope } from '../../src/net/webhook-sender.ts';
import { newWebhookSecret } from '../../src/net/webhook-signature.ts';
import { attemptError, retrySchedule } from '../../src/push/rules.ts';
import { deliveryError, WEBHOOK_RETRY } from '../../src/support/rules.ts';

let server: http.Server;
let url: string;
let answer = 204;
const received: { headers: http.IncomingHttpHeaders; raw: string }[] = [];
const senders: WebhookSender[] = [];

const sender = (allowHosts: readonly string[] | 'unchecked') => {
  const s = new WebhookSender({ allowHosts, timeoutMs: 3000, userAgent: 'Gatehouse-Test/1.0' });
  senders.push(s);
  return s;
};

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
after(async () => {
  for (const s of senders) await s.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the webhook sender', () => {
  it('writes the envelope {id, type, createdAt, …topLevel, data}, in that order', () => {
    const at = new Date('2026-11-26T10:00:00.000Z');
    assert.equal(
      webhookEnvelope('d-1', 'ping', at, { a: 1 }),
      '{"id":"d-1","type":"ping","createdAt":"2026-11-26T10:00:00.000Z","data":{"a":1}}',
    );
    assert.equal(
      webhookEnvelope('n-1', 'support.notification', '2026-11-26T10:00:00.000Z', { b: 2 }, { kind: 'JOB_FAILED' }),
      '{"id":"n-1","type":"support.notification","createdAt":"2026-11-26T10:00:00.000Z","kind":"JOB_FAILED","data":{"b":2}}',
    );
  });

  it('POSTs the body as JSON, signed with every secret, with its own headers and user agent', async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = webhookEnvelope('d-2', 'ping', new Date(), { hello: 'world' });
    const sent = await sender('unchecked').send(url, {
      id: 'd-2',
      body,
      secrets: [current, previous],
      headers: { 'x-extra': 'yes' },
    });
    assert.deepEqual(sent, { delivered: true, status: 204 });
    const got = received.at(-1)!;
    assert.equal(got.raw, body);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'Gatehouse-Test/1.0');
    assert.equal(got.headers['x-extra'], 'yes');
    assert.equal(got.headers['webhook-id'], 'd-2');
    const headers = got.headers as Record<string, string>;
    assert.deepEqual(new Webhook(current).verify(got.raw, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(got.raw, headers), JSON.parse(body));
  });

  it('sends unsigned without a secret', async () => {
    const sent = await sender('unchecked').send(url, { id: 'd-3', body: '{}', secrets: [] });
    assert.equal(sent.delivered, true);
    const got = received.at(-1)!;
    assert.equal(got.headers['webhook-signature'], undefined);
    assert.equal(got.headers['webhook-id'], undefined);
  });

  it('checks the address unless told not to: loopback is refused without being connected to', async () => {
    const before = received.length;
    const refused = await sender([]).send(url, { id: 'd-4', body: '{}', secrets: [newWebhookSecret()] });
    assert.equal(refused.delivered, false);
    assert.equal(refused.status, null);
    assert.equal(refused.delivered === false && refused.failure?.code, 'ADDRESS_NOT_ALLOWED');
    assert.equal(received.length, before, 'the receiver was reached');
    // An allow-listed host is sent to.
    const allowed = await sender([new URL(url).host]).send(url, { id: 'd-5', body: '{}', secrets: [] });
    assert.equal(allowed.delivered, true);
  });

  it('a non-2xx answer and a refused connection, in each sender’s words', async () => {
    answer = 503;
    try {
      const answered = await sender('unchecked').send(url, { id: 'd-6', body: '{}', secrets: [] });
      assert.deepEqual(answered, { delivered: false, status: 503, failure: null });
      assert.equal(attemptError(answered), 'HTTP 503');
      assert.equal(deliveryError(answered), 'HTTP 503');
    } finally {
      answer = 204;
    }
    // A port nobody listens on.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await sender('unchecked').send(`http://127.0.0.1:${port}/`, { id: 'd-7', body: '{}', secrets: [] });
    assert.equal(refused.delivered, false);
    assert.equal(refused.status, null);
    // The push face's log says the code and the sentence; the support webhook's, what the system said.
    assert.match(attemptError(refused)!, /^CONNECTION_FAILED: The connection failed \(ECONNREFUSED\)\.$/);
    assert.equal(deliveryError(refused), 'ECONNREFUSED');
  });
});

describe('the retry schedules (one function)', () => {
  it('a table of waits, the last step repeating: the support webhook and the images', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => retryDelayMs(WEBHOOK_RETRY, n)),
      [10, 30, 120, 300, 900, 1800, 3600, 3600, 3600].map((s) => s * 1000),
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(IMAGE_RETRY, n)),
      [30, 30, 120, 600, 1800, 1800].map((s) => s * 1000),
    );
  });

  it('doubling with equal jitter up to 4 h: the push face', () => {
    const schedule = retrySchedule(5000);
    assert.equal(retryDelayMs(schedule, 1, 0), 2500);
    assert.equal(retryDelayMs(schedule, 1, 0.999999), 5000);
    assert.equal(retryDelayMs(schedule, 3, 0), 10_000);
    assert.equal(retryDelayMs(schedule, 40, 0), 2 * 3600_000);
    for (let i = 0; i < 50; i++) {
      const wait = retryDelayMs(schedule, 2);
      assert.ok(wait >= 5000 && wait <= 10_000, `${wait}`);
    }
  });
});
