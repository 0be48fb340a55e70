// `gatehouse admin maintenance schedule|list|cancel` (issue 28): a facility's maintenance windows from
// the command line, each answer one JSON object, each bad input one line on stderr naming the field.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { cliJson, runCli } from '../helpers/process.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

it('schedules, lists and cancels a window; refuses bad input in one line naming the field', async () => {
  const account = await cliJson(['admin', 'account', 'create', '--name', 'Acme'], database.env);
  const facility = await cliJson(
    ['admin', 'facility', 'create', '--account', String(account.id), '--name', 'Main St', '--time-zone', 'UTC'],
    database.env,
  );
  const f = String(facility.id);
  const now = await cliJson(
    ['admin', 'maintenance', 'schedule', '--facility', f, '--ends-at', inMinutes(30), '--reason', 'Firmware'],
    database.env,
  );
  assert.deepEqual([now.facilityId, now.state, now.reason], [facility.id, 'underway', 'Firmware']);
  assert.match(now.scheduledBy, /^cli(:|$)/);
  const later = await cliJson(
    ['admin', 'maintenance', 'schedule', '--facility', f, '--starts-at', inMinutes(60), '--ends-at', inMinutes(90)],
    database.env,
  );
  assert.equal(later.state, 'scheduled');

  const listed = await cliJson(['admin', 'maintenance', 'list', '--facility', f], database.env);
  assert.deepEqual(
    listed.items.map((w: { id: number }) => w.id),
    [now.id, later.id],
  );
  const cancelled = await cliJson(
    ['admin', 'maintenance', 'cancel', '--facility', f, '--window', String(now.id)],
    database.env,
  );
  assert.deepEqual([cancelled.state, cancelled.cancelledBy], ['cancelled', now.scheduledBy]);
  const upcoming = await cliJson(['admin', 'maintenance', 'list', '--facility', f], database.env);
  assert.deepEqual(
    upcoming.items.map((w: { id: number }) => w.id),
    [later.id],
  );
  const all = await cliJson(['admin', 'maintenance', 'list', '--facility', f, '--all'], database.env);
  assert.deepEqual(
    all.items.map((w: { id: number }) => w.id),
    [later.id, now.id],
  );

  const failure = async (args: string[]) => {
    const result = await runCli(['admin', 'maintenance', ...args], database.env);
    assert.notEqual(result.code, 0, args.join(' '));
    assert.equal(result.stdout, '');
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 2, `the database line, then one line: ${result.stderr}`);
    return lines[1]!;
  };
  assert.match(
    await failure(['schedule', '--facility', f, '--starts-at', inMinutes(10), '--ends-at', inMinutes(5)]),
    /endsAt must be after startsAt/,
  );
  assert.match(
    await failure(['schedule', '--facility', f, '--ends-at', 'tomorrow', '--reason', 'x'.repeat(201)]),
    /endsAt must be an ISO 8601 date-time with an offset.*; reason must be at most 200 characters/,
  );
  assert.match(
    await failure(['schedule', '--facility', '999999', '--ends-at', inMinutes(5)]),
    /facility was not found/,
  );
  assert.match(await failure(['cancel', '--facility', f, '--window', '999999']), /maintenance window was not found/);
  // (Every bad input of the routes, which run the same operations: test/facility-status/maintenance-windows.test.ts.)
});
