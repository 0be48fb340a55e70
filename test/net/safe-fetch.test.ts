// The SSRF-safe fetcher against real HTTP servers on loopback: what it fetches, what it refuses,
// and that a refused address is never even connected to.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { FetchError, SafeFetcher, WEBHOOK_ANSWER_MAX_BYTES, type LookupAll } from '../../src/net/safe-fetch.ts';
import { MiB, startImageHost, type ImageHost } from './image-host.ts';

let host: ImageHost;
let privateServer: http.Server;
let privatePort: number;
let privateHits = 0;
const fetchers: SafeFetcher[] = [];

// A fake resolver: names of the tests mapped to addresses, as a hostile DNS would answer.
const names: Record<string, string[]> = {
  'images.test': ['127.0.0.1'],
  'evil.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '10.0.0.7'],
  'mapped.test': ['::ffff:7f00:1'],
};
const lookup: LookupAll = async (hostname) => {
  const found = names[hostname];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

function fetcher(options: Partial<ConstructorParameters<typeof SafeFetcher>[0]> = {}) {
  const f = new SafeFetcher({
    allowHosts: [host.hostPort, `images.test:${host.port}`],
    timeoutMs: 3000,
    maxBytes: 10 * MiB,
    maxRedirects: 3,
    lookup,
    ...options,
  });
  fetchers.push(f);
  return f;
}

async function refusal(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof FetchError, `expected a FetchError, got ${String(error)}`);
    return error;
  }
  assert.fail('the fetch was expected to be refused');
}

before(async () => {
  // A server that must never be reached: it stands for an internal service.
  privateServer = http.createServer((_req, res) => {
    privateHits++;
    res.end('internal secrets');
  });
  await new Promise<void>((resolve) => privateServer.listen(0, '127.0.0.1', resolve));
  privatePort = (privateServer.address() as AddressInfo).port;
  host = await startImageHost({ redirectTarget: `http://127.0.0.1:${privatePort}/` });
});
after(async () => {
  for (const f of fetchers) await f.close();
  await host.close();
  privateServer.closeAllConnections();
  await new Promise((resolve) => privateServer.close(resolve));
});

describe('the SSRF-safe fetcher', () => {
  it('fetches from an allow-listed host, following up to 3 redirects', async () => {
    const f = fetcher();
    const direct = await f.fetch(`${host.url}/photo.jpg`);
    assert.equal(direct.body[0], 0xff);
    assert.equal(direct.contentType, 'image/jpeg');
    const redirected = await f.fetch(`${host.url}/redirect-chain?n=2`);
    assert.deepEqual(redirected.body, direct.body);
    assert.equal(redirected.url, `${host.url}/photo.jpg`);
  });

  it('connects to the address it resolved and vetted, keeping the name as Host', async () => {
    const f = fetcher();
    const result = await f.fetch(`http://images.test:${host.port}/photo.jpg`);
    assert.equal(result.body[0], 0xff);
  });

  it('refuses loopback, private and metadata addresses in every spelling, without connecting', async () => {
    const f = fetcher();
    const hitsBefore = privateHits;
    for (const url of [
      `http://127.0.0.1:${privatePort}/`,
      `http://2130706433:${privatePort}/`,
      `http://0x7f.0.0.1:${privatePort}/`,
      `http://[::ffff:7f00:1]:${privatePort}/`,
      `http://[::1]:${privatePort}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
    ]) {
      const error = await refusal(f.fetch(url));
      assert.equal(error.code, 'ADDRESS_NOT_ALLOWED', url);
      assert.equal(error.retryable, false, url);
    }
    assert.equal(privateHits, hitsBefore, 'the internal server was reached');
  });

  it('refuses names that resolve to a non-public address (checked after DNS)', async () => {
    const f = fetcher();
    const hitsBefore = privateHits;
    for (const name of ['evil.test', 'metadata.test', 'mixed.test', 'mapped.test']) {
      const error = await refusal(f.fetch(`http://${name}:${privatePort}/`));
      assert.equal(error.code, 'ADDRESS_NOT_ALLOWED', name);
    }
    const real = await refusal(f.fetch(`http://localhost:${privatePort}/`, {}));
    assert.equal(real.code, 'DNS_FAILED'); // the fake resolver knows no localhost: nothing was tried
    const system = await refusal(fetcher({ lookup: undefined }).fetch(`http://localhost:${privatePort}/`));
    assert.equal(system.code, 'ADDRESS_NOT_ALLOWED'); // the system resolver's loopback answer is refused
    assert.equal(privateHits, hitsBefore);
  });

  it('refuses other schemes', async () => {
    const f = fetcher();
    assert.equal((await refusal(f.fetch('file:///etc/passwd'))).code, 'SCHEME_NOT_ALLOWED');
    assert.equal((await refusal(f.fetch('ftp://images.test/a.jpg'))).code, 'SCHEME_NOT_ALLOWED');
  });

  it('re-checks every redirect: to a private address, to metadata, to file://, and more than 3 hops', async () => {
    const f = fetcher();
    const hitsBefore = privateHits;
    assert.equal((await refusal(f.fetch(`${host.url}/redirect-elsewhere`))).code, 'ADDRESS_NOT_ALLOWED');
    assert.equal(
      (
        await refusal(
          f.fetch(
            `${host.url}/redirect-elsewhere?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
          ),
        )
      ).code,
      'ADDRESS_NOT_ALLOWED',
    );
    assert.equal(
      (
        await refusal(
          f.fetch(`${host.url}/redirect-elsewhere?to=${encodeURIComponent(`http://evil.test:${privatePort}/`)}`),
        )
      ).code,
      'ADDRESS_NOT_ALLOWED',
    );
    assert.equal(
      (await refusal(f.fetch(`${host.url}/redirect-elsewhere?to=${encodeURIComponent('file:///etc/passwd')}`))).code,
      'SCHEME_NOT_ALLOWED',
    );
    assert.equal((await refusal(f.fetch(`${host.url}/redirect-chain?n=3`))).code, 'TOO_MANY_REDIRECTS');
    assert.equal((await refusal(f.fetch(`${host.url}/redirect-loop`))).code, 'TOO_MANY_REDIRECTS');
    assert.equal(privateHits, hitsBefore);
  });

  it('refuses a 50 MB body by its Content-Length, and a chunked one once it passes the limit', async () => {
    const f = fetcher();
    const declared = await refusal(f.fetch(`${host.url}/huge-declared.jpg`));
    assert.equal(declared.code, 'TOO_LARGE');
    const chunked = await refusal(f.fetch(`${host.url}/huge-chunked.jpg`));
    assert.equal(chunked.code, 'TOO_LARGE');
    assert.equal(chunked.retryable, false);
  });

  it('gives up on a body that never ends, at the deadline', async () => {
    const f = fetcher({ timeoutMs: 800 });
    const started = Date.now();
    const error = await refusal(f.fetch(`${host.url}/drip.jpg`));
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.retryable, true);
    assert.ok(Date.now() - started < 30_000);
  });

  it('stops a download whose first bytes the sniffer rejects', async () => {
    const f = fetcher();
    const error = await refusal(f.fetch(`${host.url}/claims-jpeg.html`, { sniff: (head) => head[0] === 0xff }));
    assert.equal(error.code, 'UNSUPPORTED_TYPE');
    const ok = await f.fetch(`${host.url}/photo.jpg`, { sniff: (head) => head[0] === 0xff });
    assert.equal(ok.body[0], 0xff);
  });

  it('says which HTTP failures are worth retrying', async () => {
    const f = fetcher();
    const missing = await refusal(f.fetch(`${host.url}/missing.jpg`));
    assert.deepEqual([missing.code, missing.status, missing.retryable], ['HTTP_STATUS', 404, false]);
    host.failNext('/photo.png', 1, 503);
    const unavailable = await refusal(f.fetch(`${host.url}/photo.png`));
    assert.deepEqual([unavailable.code, unavailable.status, unavailable.retryable], ['HTTP_STATUS', 503, true]);
    const closed = await refusal(f.fetch('http://127.0.0.1:1/', {}).catch((e) => Promise.reject(e)));
    assert.equal(closed.code, 'ADDRESS_NOT_ALLOWED');
    const refusedPort = await refusal(fetcher({ allowHosts: ['127.0.0.1:1'] }).fetch('http://127.0.0.1:1/'));
    assert.deepEqual([refusedPort.code, refusedPort.retryable], ['CONNECTION_FAILED', true]);
  });
});

/**
 * A webhook receiver that answers 200 and then streams a body that never ends, 4 KiB every 2 ms
 * (paced, so that what it counts as sent is what crossed to the client, not what the kernels
 * buffered): resolves with the bytes sent when the client closed the connection.
 */
async function endlessReceiver(): Promise<{
  url: string;
  closed: Promise<{ sent: number; ms: number }>;
  close(): Promise<void>;
}> {
  let closed!: (value: { sent: number; ms: number }) => void;
  const done = new Promise<{ sent: number; ms: number }>((resolve) => {
    closed = resolve;
  });
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const started = Date.now();
      let sent = 0;
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(4096, 120);
      const drip = setInterval(() => {
        sent += chunk.length;
        response.write(chunk);
      }, 2);
      response.on('close', () => {
        clearInterval(drip);
        closed({ sent, ms: Date.now() - started });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    closed: done,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('webhook POSTs', () => {
  it('cut an endless answer at 64 KiB, long before the deadline', async () => {
    const receiver = await endlessReceiver();
    try {
      const f = fetcher({ allowHosts: ['127.0.0.1'], timeoutMs: 10_000, maxBytes: WEBHOOK_ANSWER_MAX_BYTES });
      const started = Date.now();
      assert.deepEqual(await f.post(receiver.url, '{}', { 'content-type': 'application/json' }), { status: 200 });
      assert.ok(Date.now() - started < 5_000, 'the status is answered without waiting for the body');
      const { sent, ms } = await receiver.closed;
      // Read up to the limit (not dropped at the headers), then cut: at 2 MB/s the 10 s deadline
      // would have let about 20 MB through.
      assert.ok(sent >= WEBHOOK_ANSWER_MAX_BYTES, `sent ${sent}`);
      assert.ok(sent <= 2 * WEBHOOK_ANSWER_MAX_BYTES, `the receiver sent ${sent} bytes before the cut`);
      assert.ok(ms < 5_000, `cut after ${ms} ms, not at the deadline`);
    } finally {
      await receiver.close();
    }
  });
});
