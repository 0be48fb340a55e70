// Several instances share throttling and rate-limit state through Redis when REDIS_URL is set.
// Redis runs on the project's machines and CI sets REDIS_URL for the PostgreSQL run; on a
// machine without Redis there is nothing to share and this file has no test to run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { typedClient } from '../helpers/client.ts';
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
      const wrong = {
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: 'gh_cs_wrong',
      } as const;
      const address = '198.51.100.1';
      const token = (instance: TestApp, remoteAddress: string) =>
        typedClient(instance, null, { remoteAddress }).POST('/auth/token', { body: wrong });
      for (let i = 0; i < 3; i++) assert.equal((await token(one, address)).response.status, 400);
      const there = (await token(two, address)).response;
      assert.equal(there.status, 429);
      assert.ok(Number(there.headers.get('retry-after')) > 0);
      // Per (client, address): from another address the client's requests are still checked.
      assert.equal((await token(two, '198.51.100.99')).response.status, 400);
    });

    it('the request rate limit is counted across instances', async () => {
      const address = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
      const remaining = async (instance: TestApp) => {
        const { response } = await typedClient(instance, null, { remoteAddress: address }).GET(
          '/.well-known/jwks.json',
        );
        assert.equal(response.status, 200);
        return Number(response.headers.get('ratelimit-remaining'));
      };
      let last = 0;
      for (let i = 0; i < 30; i++) last = await remaining(one);
      assert.equal(await remaining(two), last - 1);
    });

    it('the liveness probe is counted in process memory only', async () => {
      const address = `192.0.2.${Math.floor(Math.random() * 200) + 1}`;
      for (let i = 0; i < 5; i++) await typedClient(one, null, { remoteAddress: address }).GET('/health');
      const { response } = await typedClient(two, null, { remoteAddress: address }).GET('/health');
      assert.equal(response.status, 200);
      assert.equal(
        Number(response.headers.get('ratelimit-remaining')),
        49,
        'the other instance has not seen the first five',
      );
    });
  });
}
