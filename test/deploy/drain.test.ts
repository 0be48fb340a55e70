// The graceful drain on SIGTERM (src/server.ts), in the real server process, on both databases: for
// SHUTDOWN_DRAIN_DELAY_SECONDS /availability answers 503 (draining) while everything else is served as
// before — new connections too — so that a load balancer takes the instance out before it closes; then
// the waiting long polls are answered (no commands), the live streams end with a retry hint after their
// last event, and the process exits 0. And the rules: the setting's bounds, the stream's last frames.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { shutdownFrames } from '../../src/events/stream.ts';
import { provisionThroughAdmin } from '../helpers/e2e.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { startServerProcess } from '../helpers/process.ts';
import { event } from '../events/helpers.ts';
import { openStream } from '../events/sse-client.ts';

describe('SHUTDOWN_DRAIN_DELAY_SECONDS, read by the configuration', () => {
  it('is 0 (close at once) by default, and must be shorter than SHUTDOWN_TIMEOUT_SECONDS, which it is part of', () => {
    assert.equal(loadConfig({}).shutdownDrainDelaySeconds, 0);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_DELAY_SECONDS: '3' }).shutdownDrainDelaySeconds, 3);
    assert.equal(
      loadConfig({ SHUTDOWN_DRAIN_DELAY_SECONDS: '9', SHUTDOWN_TIMEOUT_SECONDS: '10' }).shutdownDrainDelaySeconds,
      9,
    );
    assert.throws(() => loadConfig({ SHUTDOWN_DRAIN_DELAY_SECONDS: '35' }), {
      name: 'ConfigError',
      message:
        'SHUTDOWN_DRAIN_DELAY_SECONDS: must be less than SHUTDOWN_TIMEOUT_SECONDS (35), which it is part of (got 35)',
    });
    assert.throws(() => loadConfig({ SHUTDOWN_DRAIN_DELAY_SECONDS: '-1' }), {
      message: 'SHUTDOWN_DRAIN_DELAY_SECONDS: must be a whole number of seconds from 0 (close at once) to 600 (got -1)',
    });
  });
});

describe("a stream's last frames at shutdown", () => {
  it('say when to reconnect, spread between retryMs and twice that, and why', () => {
    const why = ': the service is shutting down: reconnect, sending Last-Event-ID\n\n';
    assert.equal(shutdownFrames(1000, 0), `retry: 1000\n\n${why}`);
    assert.equal(shutdownFrames(1000, 0.25), `retry: 1250\n\n${why}`);
    assert.equal(shutdownFrames(1000, 1), `retry: 2000\n\n${why}`);
    assert.equal(shutdownFrames(1000, 7), `retry: 2000\n\n${why}`);
  });
});

/** A GET on a connection of its own (no keep-alive pool): a new connection, as a balancer's would be. */
function getOnNewConnection(url: string, token?: string): Promise<{ status: number; body: any; headers: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    http
      .get(url, { agent: false, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text), headers: response.headers }),
        );
      })
      .once('error', reject);
  });
}

describe('SIGTERM with a drain delay, in the real server process', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('answers /availability 503 at once, serves the rest for the delay, then answers polls, ends streams with a retry hint, exits 0', async () => {
    const delayMs = 2000;
    const server = await startServerProcess({
      ...database.env,
      SHUTDOWN_DRAIN_DELAY_SECONDS: String(delayMs / 1000),
      SHUTDOWN_TIMEOUT_SECONDS: '10',
    });
    try {
      const tenant = await provisionThroughAdmin(server.url, database, 'Drain');
      const available = await getOnNewConnection(`${server.url}/availability`);
      assert.equal(available.status, 200);
      assert.equal(available.body.draining, undefined);

      const { clientId, clientSecret } = tenant.gateway;
      const gatewayToken = await fetch(`${server.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
      }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
      const report = (details: string) =>
        fetch(`${server.url}/gateway/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gatewayToken}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ events: [event({ details }, 0)] }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

      const stream = await openStream(`${server.url}/gatewayevents/accounts/${tenant.account.id}/stream`, tenant.pms);
      assert.equal(stream.status, 200);
      await stream.waitFor(() => stream.comments().includes('stream open'));
      assert.equal((await report('before the signal')).status, 200);
      await stream.waitForEvents(1, 10_000);
      let pollAnsweredAt = 0;
      const poll = fetch(`${server.url}/gateway/v1/commands?after=0&wait=30`, {
        headers: { authorization: `Bearer ${gatewayToken}` },
      }).then(async (r) => {
        pollAnsweredAt = Date.now();
        return { status: r.status, body: await r.json() };
      });
      await new Promise((r) => setTimeout(r, 300)); // the poll is held

      const signalledAt = Date.now();
      const exited = server.kill('SIGTERM');
      await server.logged('"shutting down"');
      // At once: the balancer's next check takes the instance out.
      const draining = await getOnNewConnection(`${server.url}/availability`);
      assert.equal(draining.status, 503);
      assert.equal(draining.body.status, 'unavailable');
      assert.equal(draining.body.draining, true);
      assert.equal(draining.body.checks.database, true, 'the instance itself is healthy: it drains');
      assert.equal(draining.headers['retry-after'], '5');
      // Meanwhile everything else is served, on new connections too: a request the balancer sent before it
      // noticed is answered, not refused. The event reported now reaches the stream still open.
      const health = await getOnNewConnection(`${server.url}/health`);
      assert.equal(health.status, 200);
      const during = await report('during the drain delay');
      assert.equal(during.status, 200, JSON.stringify(during.body));
      assert.equal(during.body.accepted, 1);
      await stream.waitForEvents(2, 5000);
      assert.equal(pollAnsweredAt, 0, 'the long poll is still held during the delay');
      assert.equal(stream.isEnded(), false, 'the stream is still open during the delay');
      assert.ok(Date.now() - signalledAt < delayMs, 'checked within the delay');

      // Then the close: the poll is answered as the contract says for an empty poll …
      assert.deepEqual(await poll, { status: 200, body: { commands: [] } });
      assert.ok(pollAnsweredAt - signalledAt >= delayMs - 100, `answered ${pollAnsweredAt - signalledAt} ms after`);
      // … and the stream ends after its last event with when to reconnect and why.
      await stream.ended;
      const last = stream.frames.slice(-2);
      assert.ok(last[0]!.retry! >= 1000 && last[0]!.retry! <= 2000, JSON.stringify(stream.frames));
      assert.equal(last[1]!.comment, 'the service is shutting down: reconnect, sending Last-Event-ID');
      assert.deepEqual(
        stream.events().map((e) => e.event.details),
        ['before the signal', 'during the drain delay'],
      );
      assert.equal(await exited, 0, server.output().slice(-3000));
      const lines = server.output().split('\n');
      const at = (msg: string) => lines.findIndex((l) => l.includes(`"msg":"${msg}"`));
      assert.match(lines[at('shutting down')]!, /"signal":"SIGTERM","drainDelaySeconds":2/);
      assert.ok(at('shutting down') < at('drain delay over: closing'));
      assert.ok(at('drain delay over: closing') < at('stopped'));
    } finally {
      await server.kill('SIGKILL');
    }
  });
});
