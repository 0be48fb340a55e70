// The contract check of the end-to-end tests (test/helpers/contract.ts) can fail: with the document
// a real server serves, an answer with a field the document does not name, a field of the wrong
// type, or a status the operation does not document is a violation, through the typed client as
// well as alone; the server's own answers pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGatehouseClient } from '../../clients/typescript/index.ts';
import { contractCheck, contractFor, contractMiddleware } from '../helpers/contract.ts';
import { clientFor, ok } from '../helpers/e2e.ts';
import { realServer } from '../helpers/server.ts';

const served = realServer();

const json = (status: number, body: unknown, type = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

/** A typed client whose every answer is `answer` (the server is not asked), contract-checked against the real document. */
function clientAnswering(answer: () => Response) {
  const client = createGatehouseClient({ baseUrl: served.url, fetch: async () => answer() });
  client.use(contractMiddleware(served.url));
  return client;
}

describe('the contract check', () => {
  it("passes the server's own answers", async () => {
    const client = clientFor(served.url);
    assert.deepEqual(await ok(client.GET('/health'), 200), { status: 'ok' });
    const refused = await client.GET('/auth/whoami');
    assert.equal(refused.response.status, 401);
    const contract = await contractFor(served.url);
    assert.deepEqual(contract.violations, []);
  });

  it('fails an answer with a field the document does not name', async () => {
    const contract = await contractFor(served.url);
    const violations = await contract.check('GET', '/health', json(200, { status: 'ok', extra: 1 }));
    assert.deepEqual(
      violations.map((v) => [v.status, v.pointer, v.message]),
      [[200, '/extra', 'is a field the document does not name']],
    );
    assert.match(violations[0]!.operation, /GET \/health/);
    await assert.rejects(
      clientAnswering(() => json(200, { status: 'ok', extra: 1 })).GET('/health'),
      (error: Error) => {
        assert.equal(error.name, 'AssertionError');
        assert.match(error.message, /GET \/health\) → 200: \/extra is a field the document does not name/);
        return true;
      },
    );
  });

  it('fails an answer with a field of the wrong type', async () => {
    const contract = await contractFor(served.url);
    const violations = await contract.check('GET', '/health', json(200, { status: 5 }));
    assert.ok(violations.length > 0);
    assert.ok(violations.every((v) => v.pointer === '/status'));
    assert.match(violations[0]!.message, /must be string/);
    await assert.rejects(clientAnswering(() => json(200, { status: 5 })).GET('/health'), /\/status must be string/);
  });

  it('fails a status the operation does not document, and a media type it does not', async () => {
    const contract = await contractFor(served.url);
    const [teapot] = await contract.check('GET', '/health', json(418, { status: 'ok' }));
    assert.match(teapot!.message, /status 418 is not documented/);
    await assert.rejects(
      clientAnswering(() => json(418, { status: 'ok' })).GET('/health'),
      /status 418 is not documented/,
    );
    const [text] = await contract.check(
      'GET',
      '/health',
      new Response('ok', { status: 200, headers: { 'content-type': 'text/plain' } }),
    );
    assert.match(text!.message, /media type text\/plain is not documented/);
  });

  it('fails an error answer that is not the documented error body', async () => {
    const contract = await contractFor(served.url);
    const violations = await contract.check(
      'GET',
      '/facilities/{facilityId}',
      json(404, { message: 'not found' }, 'application/problem+json'),
    );
    assert.ok(violations.some((v) => v.pointer === '/message'));
    assert.ok(violations.some((v) => /must have required property/.test(v.message)));
  });

  it('closes a named schema extended by an allOf without refusing the extension', async () => {
    // As POST /webhooks/subscriptions answers: the subscription, and its secret beside it.
    const subscription = {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'integer' }, health: { type: 'object', properties: { ok: { type: 'boolean' } } } },
    };
    const extended = {
      allOf: [
        { $ref: '#/components/schemas/Subscription' },
        { type: 'object', properties: { secret: { type: 'string' } } },
      ],
    };
    const contract = contractCheck({
      openapi: '3.1.0',
      components: { schemas: { Subscription: subscription } },
      paths: {
        '/subscriptions': {
          post: {
            operationId: 'createSubscription',
            responses: { 201: { description: 'Created.', content: { 'application/json': { schema: extended } } } },
          },
        },
      },
    });
    const answer = (body: unknown) => contract.check('POST', '/subscriptions', json(201, body));
    assert.deepEqual(await answer({ id: 1, secret: 's', health: { ok: true } }), []);
    assert.deepEqual(
      (await answer({ id: 1, secret: 's', extra: 1 })).map((v) => [v.operation, v.pointer]),
      [['createSubscription (POST /subscriptions)', '/extra']],
    );
    assert.deepEqual(
      (await answer({ id: 1, health: { ok: true, more: 1 } })).map((v) => v.pointer),
      ['/health/more'],
    );
  });
});
