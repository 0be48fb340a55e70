// `gatehouse demo`: starts the service on a fresh embedded database, provisions the demo account
// through the real faces, runs the simulated controllers, prints credentials and four curl commands,
// and acts as the PMS now and then so that commands keep flowing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { BIN, runCli } from '../helpers/process.ts';

/** A directory for the demo's temporary directories (its TMPDIR), to see that it leaves none. */
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'demo-tmp-'));
/** The demo's temporary data directories in `tmp` (tsx keeps its cache there too). */
const demoDirs = (tmp: string) => fs.readdirSync(tmp).filter((name) => name.startsWith('gatehouse-demo-'));

/**
 * Starts `gatehouse demo`, sends `signal` once the output shows `when`, and resolves with the exit
 * code, the output and how long the exit took after the signal.
 */
function signalDemo(
  when: RegExp,
  signal: NodeJS.Signals,
  TMPDIR: string,
): Promise<{ code: number | string; output: string; ms: number }> {
  const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--pms-every', '0'], {
    env: { ...process.env, LOG_LEVEL: 'warn', TMPDIR },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let signalled = 0;
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (!signalled && when.test(output)) {
      signalled = Date.now();
      child.kill(signal);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise((resolve) =>
    child.once('exit', (code, sig) => {
      clearTimeout(killer);
      resolve({ code: code ?? sig ?? -1, output, ms: signalled ? Date.now() - signalled : -1 });
    }),
  );
}

it('provisions, simulates for the given duration, prints credentials and the five curl commands, heals each controller’s drift, and cleans up', async () => {
  // DATABASE_URL is ignored on purpose: the demo always runs on its own embedded database.
  const result = await runCli(
    // No PMS change after set-up (--pms-every 0): the count of commands below is exact.
    ['demo', '--duration', '6', '--port', '0', '--pms-every', '0'],
    { DATABASE_URL: 'postgres://127.0.0.1:1/not-used' },
    180_000,
  );
  assert.equal(result.code, 0, result.stderr);
  const out = result.stdout;
  const dataDir = /embedded database in (\S+) …/.exec(out)?.[1];
  assert.ok(dataDir);
  assert.match(out, /PMS\s+client_id app_\S+\s+client_secret gh_cs_\S+/);
  assert.match(out, /api key key_\S+\s+api secret gh_as_\S+/);
  assert.equal((out.match(/gateway\s+Demo (East|West): client_id gwc_\S+\s+client_secret gh_gs_\S+/g) ?? []).length, 2);
  // The zones of src/demo/data.ts, three hours apart all year (test/demo/data.test.ts).
  assert.match(out, /facility\s+Demo East \(America\/New_York\)/);
  assert.match(out, /facility\s+Demo West \(America\/Los_Angeles\)/);
  assert.match(out, /partner .*\(3 auctions for DEMO-EAST-\S+, 1 Pending in the console\)/);
  assert.match(out, /console\s+http:\/\/localhost:\d+\/console\s+client_id app_\S+\s+client_secret gh_cs_\S+/);
  assert.match(out, /export TOKEN=eyJ/);
  const curls = out.split('\n').filter((line) => line.trim().startsWith('curl -s -H "Authorization: Bearer $TOKEN"'));
  assert.equal(curls.length, 5);
  assert.match(curls[0]!, /\/gatewayevents\/facilities\/[0-9]+\?pageSize=5/);
  assert.match(curls[1]!, /\/gatewayevents\/accounts\/[0-9]+\/export/);
  assert.match(curls[2]!, /\/facilities\/[0-9]+\/commands/);
  assert.match(curls[3]!, /\/facilities\/statuslist"$/);
  assert.match(curls[4]!, /\/facilities\/[0-9]+\/drift"$/);
  // Each controller drifts once (a visitor lost, a unit changed, a code added at the controller) and is healed.
  const drifts =
    out.match(/^Drift at Demo (East|West): .* found and healed by 3 corrective commands in \d+ ms/gm) ?? [];
  assert.equal(drifts.length, 2, out);
  assert.match(out, /running for 6 s; no PMS changes \(--pms-every 0\):/);
  const stopped = /Stopped: (\d+) commands applied, (\d+) events sent, (\d+) errors, 0 PMS changes\./.exec(out);
  assert.ok(stopped, out);
  // 2 facilities × (8 units, 6 tenants, 1 helper, 1 disable, 3 corrections) = 38 commands.
  assert.equal(Number(stopped[1]), 38);
  assert.ok(Number(stopped[2]) > 38, 'at least an acknowledgement per command, plus site events');
  const { existsSync } = await import('node:fs');
  assert.equal(existsSync(dataDir), false, 'the temporary data directory is removed');
});

it('refuses a port in use at once, in one line, leaving no temporary directory', async () => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as net.AddressInfo;
  const TMPDIR = tmpDir();
  try {
    // By --port, and by PORT (the demo's default); each is named in the fix.
    for (const [args, env, fix] of [
      [['--port', String(port)], {}, 'set --port (or --port 0 for any free port)'],
      [[], { PORT: String(port) }, 'set PORT (or PORT=0 for any free port)'],
    ] as const) {
      // --duration does not matter: it used to hang here forever, the image server still open.
      const result = await runCli(['demo', '--duration', '5', ...args], { ...env, TMPDIR }, 60_000);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr, `gatehouse: port ${port} is in use: ${fix}\n`);
      // About 2 s on an idle machine (loading the commands); the bound only catches a hang.
      assert.ok(result.ms < 20_000, `took ${result.ms} ms`);
      assert.doesNotMatch(result.stdout, /Starting Gatehouse/);
      assert.deepEqual(demoDirs(TMPDIR), []);
    }
  } finally {
    blocker.close();
  }
});

it('refuses a --port that is not a port number', async () => {
  for (const bad of ['http', '-1', '70000', '80.5']) {
    const TMPDIR = tmpDir();
    const result = await runCli(['demo', `--port=${bad}`], { TMPDIR }, 60_000);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `gatehouse: --port must be a port number (0 for any free port), got "${bad}"\n`);
    assert.deepEqual(demoDirs(TMPDIR), []);
  }
});

it('refuses a --pms-every that is not a number of seconds', async () => {
  for (const bad of ['soon', '-5']) {
    const TMPDIR = tmpDir();
    const result = await runCli(['demo', `--pms-every=${bad}`], { TMPDIR }, 60_000);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `gatehouse: --pms-every must be a number of seconds (0: no changes), got "${bad}"\n`);
    assert.deepEqual(demoDirs(TMPDIR), []);
  }
});

it('acts as the PMS after set-up: each change is a line, a command the controller acknowledges', async () => {
  const TMPDIR = tmpDir();
  const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--pms-every', '0.5'], {
    env: { ...process.env, LOG_LEVEL: 'warn', TMPDIR },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const until = async (what: string, ready: () => Promise<boolean> | boolean) => {
    for (const started = Date.now(); !(await ready()); ) {
      if (Date.now() - started > 120_000 || child.exitCode !== null)
        assert.fail(`never: ${what}\n${stdout}\n${stderr.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const changeLines = () => stdout.split('\n').filter((line) => line.startsWith('PMS change at '));
  try {
    await until('three PMS changes', () => changeLines().length >= 3);
    for (const line of changeLines())
      assert.match(
        line,
        /^PMS change at Demo (East|West): (unit [AB]1\d\d (is delinquent|paid up|rented to|vacated)|.+ \(unit [AB]1\d\d\) has a new gate code)/,
      );
    // What the PMS sees through the API: commands beyond the set-up's 16 per facility (8 units,
    // 6 tenants, a helper, a disabled unit), and the simulated controllers acknowledging them.
    const url = /Gatehouse demo: (http:\/\/\S+)/.exec(stdout)![1]!;
    const token = /export TOKEN=(\S+)/.exec(stdout)![1]!;
    const facilityIds = [...stdout.matchAll(/facility\s+Demo \w+ \([^)]+\)\s+(\d+)/g)].map((m) => Number(m[1]));
    assert.equal(facilityIds.length, 2);
    const laterCommands = async () => {
      const lists = await Promise.all(
        facilityIds.map(async (id) => {
          const response = await fetch(`${url}/facilities/${id}/commands?after=16`, {
            headers: { authorization: `Bearer ${token}` },
          });
          assert.equal(response.status, 200);
          return (await response.json()) as { sequence: number; status: string }[];
        }),
      );
      return lists.flat();
    };
    const made = changeLines().length;
    assert.ok((await laterCommands()).length >= made, 'a command for every change printed');
    await until(
      'three of them acknowledged',
      async () => (await laterCommands()).filter((c) => c.status === 'acknowledged').length >= 3,
    );
  } finally {
    child.kill('SIGINT');
    clearTimeout(killer);
  }
  // Ctrl-C while the PMS is at work: its last change finishes before the service closes, nothing
  // fails or is left unhandled.
  assert.equal(await exited, 0, stderr.slice(-2000));
  const stopped = /Stopped: \d+ commands applied, \d+ events sent, 0 errors, (\d+) PMS changes\./.exec(stdout);
  assert.ok(stopped, stdout);
  assert.equal(Number(stopped[1]), changeLines().length);
  assert.doesNotMatch(stdout + stderr, /failed:|unhandled|error:/i);
  assert.deepEqual(demoDirs(TMPDIR), []);
});

it('stops at once on SIGINT while starting, exits non-zero and removes its temporary directory', async () => {
  const TMPDIR = tmpDir();
  const result = await signalDemo(/embedded database in \S+ …/, 'SIGINT', TMPDIR);
  assert.equal(result.code, 130, result.output);
  assert.match(result.output, /gatehouse: demo interrupted \(SIGINT\) while starting: stopping/);
  assert.ok(result.ms < 5_000, `took ${result.ms} ms after the signal`);
  assert.deepEqual(demoDirs(TMPDIR), [], 'the temporary data directory is removed');
});

it('stops on SIGTERM while the controllers run, with its summary, and removes its temporary directory', async () => {
  const TMPDIR = tmpDir();
  const result = await signalDemo(/controllers for 2 facilities are running/, 'SIGTERM', TMPDIR);
  // Stopping the running demo (Ctrl-C, as it says) is its normal end: the summary and exit 0.
  assert.equal(result.code, 0, result.output);
  assert.match(result.output, /Stopped: \d+ commands applied/);
  assert.ok(result.ms < 15_000, `took ${result.ms} ms after the signal`);
  assert.deepEqual(demoDirs(TMPDIR), [], 'the temporary data directory is removed');
});
