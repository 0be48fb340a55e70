// `gatehouse admin sandboxes create|list|delete` (issue 30): an account's sandboxes from the command
// line, over the same operations as the routes; one JSON object per answer, one line on stderr per refusal.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { cliJson, runCli } from '../helpers/process.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

it('creates a seeded sandbox with its credentials, lists it, deletes it; refuses a bad size naming it', async () => {
  const account = await cliJson(['admin', 'account', 'create', '--name', 'Acme'], database.env);
  const app = await cliJson(['admin', 'app', 'create', '--name', 'Acme PMS'], database.env);
  const a = String(account.id);
  const created = await cliJson(
    ['admin', 'sandboxes', 'create', '--account', a, '--app', app.clientId, '--name', 'CLI', '--facilities', 'small'],
    database.env,
  );
  assert.equal(created.ownerAccountId, account.id);
  assert.deepEqual(
    created.facilities.map((f: any) => [f.size, f.units, f.visitors]),
    [['small', 20, 10]],
  );
  assert.match(created.credentials.accountKey.apiKey, /^sbkey_/);
  assert.match(created.credentials.gateways[0].clientSecret, /^gh_sbgs_/);
  const listed = await cliJson(['admin', 'sandboxes', 'list', '--account', a], database.env);
  assert.deepEqual(
    listed.items.map((s: any) => s.id),
    [created.id],
  );
  const accounts = await cliJson(['admin', 'account', 'list'], database.env);
  assert.equal(accounts.items.find((x: any) => x.id === created.id).sandbox, true);

  const bad = await runCli(
    ['admin', 'sandboxes', 'create', '--account', a, '--app', app.clientId, '--name', 'X', '--facilities', 'huge'],
    database.env,
  );
  assert.notEqual(bad.code, 0);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /facilities\[0\]/);

  const deleted = await cliJson(
    ['admin', 'sandboxes', 'delete', '--account', a, '--sandbox', String(created.id)],
    database.env,
  );
  assert.deepEqual(deleted, { id: created.id, deleted: true });
  assert.deepEqual((await cliJson(['admin', 'sandboxes', 'list', '--account', a], database.env)).items, []);
  const again = await runCli(
    ['admin', 'sandboxes', 'delete', '--account', a, '--sandbox', String(created.id)],
    database.env,
  );
  assert.notEqual(again.code, 0);
});
