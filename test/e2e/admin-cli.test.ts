// `gatehouse admin …` beside a running server (on the embedded database, through its socket),
// the acknowledged-write guarantee through the service's own HTTP face, and `gatehouse simulate`
// against it. (Commands that open the data directory themselves are exercised by
// test/cli/data-dir.test.ts, server-process.test.ts and the other e2e tests.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onPostgres } from '../helpers/harness.ts';
import { clientFor, ok, tokenFor } from '../helpers/e2e.ts';
import { runCli } from '../helpers/process.ts';
import { realServer } from '../helpers/server.ts';

const served = realServer();

/** The line every command that opens the database writes on stderr: through the server's socket when embedded. */
const databaseLine = () =>
  onPostgres
    ? /^gatehouse: database: PostgreSQL at 127\.0\.0\.1:\d+\/\w+ \(DATABASE_URL\)\n/
    : new RegExp(
        `^gatehouse: database: embedded, data directory ${served.database.env.DATA_DIR} \\(through the socket of the running server, process ${served.server.child.pid}\\)\n`,
      );

async function cli(args: string[]) {
  const result = await runCli(args, served.database.env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  assert.match(result.stderr, databaseLine());
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON object on stdout, got: ${result.stdout}`);
  return JSON.parse(lines[0]!);
}

describe('gatehouse admin', () => {
  let operator: { clientId: string; clientSecret: string };

  it('creates an account, a facility, applications, an account key and gateway credentials, each as one JSON object', async () => {
    const account = await cli(['admin', 'account', 'create', '--name', 'Acme Storage']);
    assert.ok(Number.isSafeInteger(account.id) && account.id > 0, 'an integer id');
    const facility = await cli([
      'admin',
      'facility',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Main St',
      '--time-zone',
      'America/Denver',
      '--guid',
      'FAC-0042',
      '--property-number',
      '42',
      '--charity-enrolled',
    ]);
    assert.equal(facility.guid, 'FAC-0042');
    const pms = await cli(['admin', 'app', 'create', '--name', 'Acme PMS']);
    assert.match(pms.clientId, /^app_/);
    assert.match(pms.clientSecret, /^gh_cs_/);
    const key = await cli(['admin', 'account-key', 'create', '--account', String(account.id), '--app', pms.clientId]);
    assert.match(key.apiKey, /^key_/);
    assert.match(key.apiSecret, /^gh_as_/);
    const gateway = await cli(['admin', 'gateway', 'create', '--facility', String(facility.id)]);
    assert.match(gateway.clientId, /^gwc_/);
    operator = await cli(['admin', 'app', 'create', '--name', 'Ops', '--operator']);
    const apps = await cli(['admin', 'app', 'list']);
    assert.equal(apps.items.length, 2);
    assert.ok(
      apps.items.every((app: Record<string, unknown>) => !('clientSecret' in app) && !('secret_hash' in app)),
      'lists never show secrets',
    );
    const revoked = await cli(['admin', 'gateway', 'revoke', '--client-id', gateway.clientId]);
    assert.equal(revoked.revoked, true);

    // Action groups: "Main Gate" from the start; more by the operator.
    const dock = await cli(['admin', 'action-group', 'create', '--facility', String(facility.id), '--name', 'Dock']);
    assert.deepEqual([dock.name, dock.isManual, dock.facilityId], ['Dock', true, facility.id]);
    const groups = await cli(['admin', 'action-group', 'list', '--facility', String(facility.id)]);
    assert.deepEqual(
      groups.items.map((g: { name: string }) => g.name),
      ['Main Gate', 'Dock'],
    );
    const twice = await runCli(
      ['admin', 'action-group', 'create', '--facility', String(facility.id), '--name', 'dock'],
      served.database.env,
    );
    assert.notEqual(twice.code, 0);
    assert.match(twice.stderr, /already has an action group named "dock"/);
  });

  it('fails with one line on stderr and a non-zero exit for bad input', async () => {
    const result = await runCli(
      ['admin', 'facility', 'create', '--account', 'nope', '--name', 'X', '--time-zone', 'Mars/Olympus'],
      served.database.env,
    );
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    // The database it used, then the failure in one line.
    const [used, failure, ...more] = result.stderr.trim().split('\n');
    assert.match(`${used}\n`, databaseLine());
    assert.deepEqual(more, []);
    assert.match(
      failure!,
      /accountId must be an account id \(a positive integer\); timeZone must be an IANA time zone/,
    );
    const missing = await runCli(['admin', 'account', 'create'], served.database.env);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /required option '--name <name>'/);
  });

  it('has --help for every command', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['admin', 'facility', 'create', '--help']]) {
      const result = await runCli(args, served.database.env);
      assert.equal(result.code, 0, args.join(' '));
      assert.match(result.stdout, /Usage: gatehouse/);
    }
  });

  it('simulates a gateway: a run that worked exits 0; a refused credential is named in words and exits 1 at once', async () => {
    const facilities = await cli(['admin', 'facility', 'list']);
    const gateway = await cli(['admin', 'gateway', 'create', '--facility', String(facilities.items[0].id)]);
    const worked = await runCli(
      [
        'simulate',
        '--url',
        served.url,
        '--gateway',
        `${gateway.clientId}:${gateway.clientSecret}`,
        '--duration',
        '2',
        '--json',
      ],
      {},
    );
    assert.equal(worked.code, 0, worked.stderr);
    assert.ok(JSON.parse(worked.stdout).requestsAnswered > 0);

    const refused = await runCli(
      ['simulate', '--url', served.url, '--gateway', `${gateway.clientId}:wrong-secret`, '--duration', '60'],
      {},
    );
    assert.equal(refused.code, 1);
    const told = `the gateway credential ${gateway.clientId} was refused (400 invalid_client): check --gateway clientId:clientSecret`;
    assert.ok(refused.stderr.includes(`gatehouse: ${told}\n`), refused.stderr);
    assert.ok(
      refused.stderr.endsWith(`gatehouse: the service accepted nothing during the run: ${told}\n`),
      refused.stderr,
    );
    assert.ok(refused.ms < 30_000, `stopped at once, not after --duration (${refused.ms} ms)`);
  });

  it("reaches the running server's database, and keeps every acknowledged write across a SIGKILL", async () => {
    // A command while the server runs: same database (through its socket when embedded).
    const account = await cli(['admin', 'account', 'create', '--name', 'Made while serving']);
    const operatorToken = await tokenFor(served.url, {
      grant_type: 'client_credentials',
      client_id: operator.clientId,
      client_secret: operator.clientSecret,
    });
    const admin = clientFor(served.url, operatorToken);
    const listed = await ok(admin.GET('/admin/accounts'), 200);
    assert.ok(listed.some((a) => a.id === account.id));

    // Writers create accounts until the kill; every 201 must survive it.
    const acknowledged: number[] = [];
    let stop = false;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const { data, response } = await admin.POST('/admin/accounts', { body: { name: `kill-test ${n}-${i}` } });
          if (response.status === 201) acknowledged.push(data!.id);
        } catch (error) {
          // The kill ends the writers; an answer that differs from the API description fails the test.
          if (error instanceof assert.AssertionError) throw error;
          return;
        }
      }
    };
    const writers = [writer(1), writer(2), writer(3), writer(4)];
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 20));
    served.server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    assert.equal(await served.server.exited, 'SIGKILL');

    const restarted = await served.restart(); // stopped by the fixture
    const afterToken = await tokenFor(restarted.url, {
      grant_type: 'client_credentials',
      client_id: operator.clientId,
      client_secret: operator.clientSecret,
    });
    const accounts = await ok(clientFor(restarted.url, afterToken).GET('/admin/accounts'), 200);
    const stored = new Set(accounts.map((a) => a.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged writes lost`);
  });
});
