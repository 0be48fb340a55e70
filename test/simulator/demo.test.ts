// `gatehouse demo`: starts the service on a fresh embedded database, provisions the demo account
// through the real faces, runs the simulated controllers, prints credentials and four curl commands.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runCli } from '../helpers/process.ts';

it('provisions, simulates for the given duration, prints credentials and the four curl commands, and cleans up', async () => {
  // DATABASE_URL is ignored on purpose: the demo always runs on its own embedded database.
  const result = await runCli(
    ['demo', '--duration', '4', '--port', '0'],
    { DATABASE_URL: 'postgres://127.0.0.1:1/not-used' },
    180_000,
  );
  assert.equal(result.code, 0, result.stderr);
  const out = result.stdout;
  const dataDir = /embedded database in (\S+) …/.exec(out)?.[1];
  assert.ok(dataDir);
  assert.match(out, /PMS\s+client_id app_\S+\s+client_secret gh_cs_\S+/);
  assert.match(out, /api key key_\S+\s+api secret gh_as_\S+/);
  assert.equal(
    (out.match(/gateway\s+Demo (North|South): client_id gwc_\S+\s+client_secret gh_gs_\S+/g) ?? []).length,
    2,
  );
  assert.match(out, /partner .*\(3 auctions for DEMO-NORTH-/);
  assert.match(out, /export TOKEN=eyJ/);
  const curls = out.split('\n').filter((line) => line.trim().startsWith('curl -s -H "Authorization: Bearer $TOKEN"'));
  assert.equal(curls.length, 4);
  assert.match(curls[0]!, /\/gatewayevents\/facilities\/[0-9]+\?pageSize=5/);
  assert.match(curls[1]!, /\/gatewayevents\/accounts\/[0-9]+\/export/);
  assert.match(curls[2]!, /\/facilities\/[0-9]+\/commands/);
  assert.match(curls[3]!, /\/facilities\/statuslist"$/);
  const stopped = /Stopped: (\d+) commands applied, (\d+) events sent, (\d+) errors\./.exec(out);
  assert.ok(stopped, out);
  // 2 facilities × (8 units, 6 tenants, 1 helper, 1 disable) = 32 commands.
  assert.equal(Number(stopped[1]), 32);
  assert.ok(Number(stopped[2]) > 32, 'at least an acknowledgement per command, plus site events');
  const { existsSync } = await import('node:fs');
  assert.equal(existsSync(dataDir), false, 'the temporary data directory is removed');
});
