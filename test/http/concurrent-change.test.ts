// 409 CONCURRENT_CHANGE is the one conflict that a repeat of the same request is the remedy for
// (issue 23, item 9): two changes of the same rows at one moment (a deadlock or a serialization
// failure the database reports, or a visitor moved by another request meanwhile). It carries
// Retry-After, in every face's shape; other conflicts (the state itself is in the way) do not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { concurrentChange, conflict, CONCURRENT_CHANGE_RETRY_AFTER_SECONDS } from '../../src/errors.ts';
import { databaseLabel, startTestApp, type TestApp } from '../helpers/harness.ts';

let t: TestApp;

/** The database itself raises the SQLSTATE, as it does for a deadlock or a serialization failure. */
const raise = (sqlstate: string) => () =>
  t.services.database.pool.query(`do $$ begin raise exception 'conflict' using errcode = '${sqlstate}'; end $$`);

before(async () => {
  t = await startTestApp({
    extend(app) {
      app.get('/test/deadlock', { config: { access: 'public' } }, raise('40P01'));
      app.get('/test/serialization', { config: { access: 'public' } }, raise('40001'));
      app.get('/api/3/test/deadlock', { config: { access: 'public' } }, raise('40P01'));
      app.get('/test/visitor-moved', { config: { access: 'public' } }, async () => {
        throw concurrentChange('The visitor was changed by another request at the same moment; retry the request.');
      });
      app.get('/test/unit-vacant', { config: { access: 'public' } }, async () => {
        throw conflict('UNIT_VACANT', 'The unit is vacant.');
      });
    },
  });
});
after(() => t.close());

describe(`409 CONCURRENT_CHANGE carries Retry-After (${databaseLabel})`, () => {
  it('a deadlock and a serialization failure from the database: 409 problem+json with Retry-After 1', async () => {
    assert.equal(CONCURRENT_CHANGE_RETRY_AFTER_SECONDS, 1);
    for (const url of ['/test/deadlock', '/test/serialization', '/test/visitor-moved']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 409, response.body);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assert.equal(JSON.parse(response.body).code, 'CONCURRENT_CHANGE');
      assert.equal(response.headers['retry-after'], '1', url);
    }
  });

  it('in the /api/3 envelope too', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/3/test/deadlock' });
    assert.equal(response.statusCode, 409, response.body);
    const body = JSON.parse(response.body);
    assert.equal(body.meta.ack, false);
    assert.equal(body.meta.errors[0].code, 'CONCURRENT_CHANGE');
    assert.equal(response.headers['retry-after'], '1');
  });

  it('a conflict with the state itself carries no Retry-After: repeating it as it is would not help', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/test/unit-vacant' });
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.headers['retry-after'], undefined);
  });
});
