// Several instances share throttling and rate-limit state through Redis when REDIS_URL is set.
// Redis runs on the project's machines and CI sets REDIS_URL for the PostgreSQL run; on a
// machine without Redis there is nothing to share and this file has no test to run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

const redisUrl = process.env.REDIS_URL;

if (redisUrl) {
  describe('state shared through Redis', () => {
    let one: TestApp;
    let two: TestApp;
    before(async () => {
      const env = {
        REDIS_URL: redisUrl,
        TOKEN_FAILURE_LIMIT: '3',
        TOKEN_FAILURE_WINDOW_SECONDS: '30',
        RATE_LIMIT_PER_MINUTE: '50',
      };
      one = await startTestApp({ env });
      two = await startTestApp({ env });
    });
    after(async () => {
      await one.close();
      await two.close();
    });

    it('failures counted by one instance throttle the client at that address on another', async () => {
      const app = await one.services.tenancy.createApplication({ name: 'Shared' });
      const wrong = { grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'gh_cs_wrong' };
      const address = '198.51.100.1';
      for (let i = 0; i < 3; i++) {
        const response = await one.app.inject({
          method: 'POST',
          url: '/auth/token',
          payload: wrong,
          remoteAddress: address,
        });
        assert.equal(response.statusCode, 401);
      }
      const there = await two.app.inject({
        method: 'POST',
        url: '/auth/token',
        payload: wrong,
        remoteAddress: address,
      });
      assert.equal(there.statusCode, 429);
      assert.ok(Number(there.headers['retry-after']) > 0);
      // Per (client, address): from another address the client's requests are still checked.
      const elsewhere = await two.app.inject({
        method: 'POST',
        url: '/auth/token',
        payload: wrong,
        remoteAddress: '198.51.100.99',
      });
      assert.equal(elsewhere.statusCode, 401);
    });

    it('the request rate limit is counted across instances', async () => {
      const address = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
      const route = '/.well-known/jwks.json';
      let last = 0;
      for (let i = 0; i < 30; i++)
        last = Number(
          (await one.app.inject({ method: 'GET', url: route, remoteAddress: address })).headers['ratelimit-remaining'],
        );
      const remaining = Number(
        (await two.app.inject({ method: 'GET', url: route, remoteAddress: address })).headers['ratelimit-remaining'],
      );
      assert.equal(remaining, last - 1);
    });

    it('the liveness probe is counted in process memory only', async () => {
      const address = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
      for (let i = 0; i < 5; i++) await one.app.inject({ method: 'GET', url: '/health', remoteAddress: address });
      const response = await two.app.inject({ method: 'GET', url: '/health', remoteAddress: address });
      assert.equal(response.statusCode, 200);
      assert.equal(
        Number(response.headers['ratelimit-remaining']),
        49,
        'the other instance has not seen the first five',
      );
    });
  });
}
