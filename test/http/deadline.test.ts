// The request deadline, on fixture routes: a request not answered in REQUEST_TIMEOUT_MS gets 503
// problem+json with Retry-After; the handler finishing later changes nothing and harms nothing;
// a long-poll gets its wait on top; a stream that has begun is not cut; a slow upload is not counted.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { typedClient } from '../helpers/client.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

const DEADLINE_MS = 400;
let t: TestApp;
let lateHandlersDone = 0;

before(async () => {
  t = await startTestApp({
    runJobs: false,
    env: { REQUEST_TIMEOUT_MS: String(DEADLINE_MS) },
    extend: (app) => {
      app.get('/test/slow', { config: { access: 'public' } }, async () => {
        await sleep(DEADLINE_MS * 2);
        lateHandlersDone++;
        return { ok: true };
      });
      app.get('/test/slow-failure', { config: { access: 'public' } }, async () => {
        await sleep(DEADLINE_MS * 2);
        lateHandlersDone++;
        throw new Error('the database answered too late');
      });
      app.get('/test/slow-reply', { config: { access: 'public' } }, async (_request, reply) => {
        await sleep(DEADLINE_MS * 2);
        lateHandlersDone++;
        return reply.code(201).send({ ok: true });
      });
      app.get('/test/long-poll', { config: { access: 'public', waitsUpToMs: DEADLINE_MS * 2 } }, async () => {
        await sleep(DEADLINE_MS * 2);
        return { ok: true };
      });
      app.get('/test/stream', { config: { access: 'public' } }, async (_request, reply) => {
        const chunks = async function* () {
          for (let i = 0; i < 5; i++) {
            yield `chunk ${i}\n`;
            await sleep(DEADLINE_MS / 2);
          }
        };
        return reply.type('text/plain').send(Readable.from(chunks()));
      });
      app.post('/test/upload', { config: { access: 'public' } }, async (request) => ({
        received: JSON.stringify(request.body).length,
      }));
    },
  });
});
after(() => t.close());

describe('the request deadline', () => {
  it('answers 503 problem+json with Retry-After when the handler has not answered in time', async () => {
    const started = Date.now();
    const response = await t.app.inject({
      method: 'GET',
      url: '/test/slow',
      headers: { 'x-correlation-id': 'deadline-1' },
    });
    const ms = Date.now() - started;
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers['retry-after'], '5');
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    const body = response.json();
    assert.equal(body.code, 'DEADLINE_EXCEEDED');
    assert.equal(body.traceId, 'deadline-1');
    assert.ok(ms >= DEADLINE_MS - 20 && ms < DEADLINE_MS * 2, `answered after ${ms} ms`);
  });

  it('lets the handler finish later, with a value, an error or a reply of its own, without harm', async () => {
    const before = lateHandlersDone;
    for (const url of ['/test/slow', '/test/slow-failure', '/test/slow-reply']) {
      assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 503, url);
    }
    while (lateHandlersDone < before + 3) await sleep(20);
    await sleep(50);
    // Still serving, and nothing sent twice.
    assert.equal((await typedClient(t).GET('/health')).response.status, 200);
    const requestLines = t.logs.lines.filter((line) => line.includes('"msg":"request"') && line.includes('/test/slow'));
    assert.ok(
      requestLines.every((line) => line.includes('"statusCode":503')),
      requestLines.join('\n'),
    );
    // The late answers are dropped with a line that says so (not fastify's "did you forget to return reply").
    assert.ok(
      t.logs.lines.filter((line) => line.includes('finished after the request deadline')).length >= 2,
      t.logs.text,
    );
    assert.ok(!t.logs.text.includes('Reply was already sent'), t.logs.text);
  });

  it('gives a long-poll its wait on top of the deadline', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/long-poll' });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('does not cut a stream that began before the deadline', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/stream' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, 'chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n');
  });

  it('does not count the time the client takes to upload its body', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const body = JSON.stringify({ text: 'x'.repeat(1000) });
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/test/upload',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      // Half the body, a pause longer than the deadline, then the rest.
      request.write(body.slice(0, 500));
      setTimeout(() => request.end(body.slice(500)), DEADLINE_MS * 2);
    });
    assert.equal(status, 200);
  });
});
