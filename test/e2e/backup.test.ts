// Backups (issue 27, "Backups"), with the real server process. On the embedded database:
// `gatehouse backup` while the server serves and a controller keeps writing, `gatehouse restore`
// into a new data directory, a server started on it reads the same events, and a token issued
// before the backup verifies there (the same keys); what restore refuses, in one line; a stopped
// data directory backed up under its lock. On PostgreSQL: the documented pg_dump -Fc / pg_restore
// procedure, with DATA_DIR/keys beside it, gives the same.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { clientFor, ok, provisionThroughAdmin, tokenFor } from '../helpers/e2e.ts';
import { onPostgres } from '../helpers/harness.ts';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { realServer } from '../helpers/server.ts';

// The controller writes as fast as the server answers during the backup.
const served = realServer({ RATE_LIMIT_PER_MINUTE: '100000' });

/** Every event of the account, by cursor, as the PMS reads them: their ids. */
async function eventIds(base: string, token: string, accountId: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const { data, response }: { data?: unknown; response: Response } = await clientFor(base, token).GET(
      '/gatewayevents/accounts/{accountId}',
      { params: { path: { accountId }, query: { pageSize: 500, ...(cursor ? { cursor } : {}) } } },
    );
    assert.equal(response.status, 200);
    const page = data as { metadata: { nextCursor: string | null }; items: { id: string }[] };
    ids.push(...page.items.map((item) => item.id));
    cursor = page.metadata.nextCursor;
  } while (cursor);
  return ids.sort();
}

const batch = (prefix: string, size: number) =>
  Array.from({ length: size }, (_, i) => ({
    eventId: `${prefix}-${i}`,
    eventType: 18,
    occurredAt: new Date(Date.now() - (i + 1) * 1000).toISOString(),
    deviceName: 'Keypad 1',
  }));

/** A tenant with events and the tokens to read them, on the server at `base`. */
async function tenantWithEvents(base: string, database: { env: Record<string, string> }) {
  const tenant = await provisionThroughAdmin(base, database as never, 'Backup');
  const gateway = await tokenFor(base, {
    grant_type: 'client_credentials',
    client_id: tenant.gateway.clientId,
    client_secret: tenant.gateway.clientSecret,
  });
  const controller = clientFor(base, gateway);
  const post = (events: unknown[]) => ok(controller.POST('/gateway/v1/events', { body: { events } }), 200);
  assert.equal((await post(batch('before', 40))).accepted, 40);
  return { ...tenant, post };
}

if (!onPostgres)
  describe('gatehouse backup and restore (embedded)', () => {
    it('backs up while the server serves and writes; a server on the restored directory reads the same events and verifies an earlier token', async () => {
      const tenant = await tenantWithEvents(served.url, served.database);
      const dataDir = served.database.env.DATA_DIR!;
      const scratch = fs.mkdtempSync(path.join(path.dirname(dataDir), 'backup-'));
      // A stored blob (an auction image's bytes), as the blob store keeps it.
      const blob = path.join('blobs', 'ab', 'cd', `abcd${'0'.repeat(60)}.png`);
      fs.mkdirSync(path.dirname(path.join(dataDir, blob)), { recursive: true });
      fs.writeFileSync(path.join(dataDir, blob), Buffer.from('not really a png'));

      // The controller keeps writing while the backup runs.
      let writing = true;
      let batches = 0;
      const writer = (async () => {
        while (writing) {
          await tenant.post(batch(`during-${batches++}`, 10));
          await new Promise((r) => setTimeout(r, 25));
        }
      })();
      const acknowledgedBefore = await eventIds(served.url, tenant.pms, tenant.account.id);
      while (batches < 3) await new Promise((r) => setTimeout(r, 20));
      const archive = path.join(scratch, 'gatehouse.tar.gz');
      const made = await runCli(['backup', archive], served.database.env);
      const writtenDuring = batches;
      writing = false;
      await writer;
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stderr, /a snapshot from the running server, process \d+/);
      const answer = JSON.parse(made.stdout);
      assert.equal(answer.snapshot, `running server (process ${served.server.child.pid})`);
      assert.ok(batches > writtenDuring - 1 && writtenDuring >= 3, 'writes went on during the backup');
      const original = await eventIds(served.url, tenant.pms, tenant.account.id);

      // A server stays on the original; the copy goes into a new directory.
      const restoredDir = path.join(scratch, 'restored');
      const restored = await runCli(['restore', archive], { ...served.database.env, DATA_DIR: restoredDir });
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(fs.readFileSync(path.join(restoredDir, blob), 'utf8'), 'not really a png');
      let server: ServerProcess | undefined;
      let after: string[] = [];
      try {
        server = await startServerProcess({ ...served.env, DATA_DIR: restoredDir });
        // The PMS token issued before the backup verifies: the same signing keys.
        after = await eventIds(server.url, tenant.pms, tenant.account.id);
        const missing = acknowledgedBefore.filter((id) => !after.includes(id));
        assert.deepEqual(missing, [], 'every event stored before the backup began is in it');
        const invented = after.filter((id) => !original.includes(id));
        assert.deepEqual(invented, [], 'and nothing the original never stored');
        assert.ok(after.length >= 40 + 30, `the writes acknowledged before the snapshot (${after.length} events)`);
        const jwks = async (base: string) => (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as unknown;
        assert.deepEqual(await jwks(server.url), await jwks(served.url));
        // The gate-code key came along: a server with another one would have refused to start.
        assert.equal((await fetch(`${server.url}/availability`)).status, 200);

        // What restore refuses, in one line, leaving the target as it was.
        const refusals: [string[], Record<string, string>, RegExp][] = [
          [['restore', archive], { DATA_DIR: restoredDir }, /is in use by process \d+ \(gatehouse serve/],
          [['restore', '--force', archive], { DATA_DIR: restoredDir }, /is in use by process \d+ \(gatehouse serve/],
        ];
        const cut = path.join(scratch, 'cut.tar.gz');
        fs.writeFileSync(cut, fs.readFileSync(archive).subarray(0, 4096));
        const foreign = path.join(scratch, 'notes.txt');
        fs.writeFileSync(foreign, 'not an archive\n');
        const empty = path.join(scratch, 'empty');
        refusals.push(
          [
            ['restore', cut],
            { DATA_DIR: empty },
            /cut\.tar\.gz cannot be restored: it is damaged .*; nothing was restored$/,
          ],
          [
            ['restore', foreign],
            { DATA_DIR: empty },
            /notes\.txt is not a Gatehouse backup \(it is not a gzip file\); nothing was restored$/,
          ],
          [['backup', archive], {}, /gatehouse\.tar\.gz exists: name a new file, or add --force to replace it$/],
        );
        for (const [args, env, refusal] of refusals) {
          const result = await runCli(args, { ...served.database.env, ...env });
          assert.equal(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
          const lines = result.stderr.trim().split('\n');
          assert.match(lines.at(-1)!, refusal);
          assert.doesNotMatch(result.stderr, /unexpected failure| {4}at /);
        }
        assert.deepEqual(fs.readdirSync(empty), [], 'a refused archive leaves nothing behind');
      } finally {
        await server?.kill();
      }

      // A stopped data directory: archived under its lock; a non-empty target needs --force.
      const again = path.join(scratch, 'again.tar.gz');
      const stopped = await runCli(['backup', again], { ...served.database.env, DATA_DIR: restoredDir });
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.equal(JSON.parse(stopped.stdout).snapshot, 'stopped data directory');
      const notEmpty = await runCli(['restore', again], { ...served.database.env, DATA_DIR: restoredDir });
      assert.equal(notEmpty.code, 1);
      assert.match(
        notEmpty.stderr,
        /is not empty \(blobs, keys, pgdata\): restore into a new or empty directory, or add --force/,
      );
      const forced = await runCli(['restore', '--force', again], { ...served.database.env, DATA_DIR: restoredDir });
      assert.equal(forced.code, 0, forced.stderr);
      const third = await startServerProcess({ ...served.env, DATA_DIR: restoredDir });
      try {
        assert.deepEqual(await eventIds(third.url, tenant.pms, tenant.account.id), after);
      } finally {
        await third.kill();
      }
      fs.rmSync(scratch, { recursive: true, force: true });
    });
  });

if (onPostgres)
  describe('pg_dump -Fc and pg_restore, with DATA_DIR/keys beside (PostgreSQL)', () => {
    it('a server on the restored database reads the same events and verifies an earlier token', async () => {
      const tenant = await tenantWithEvents(served.url, served.database);
      const url = served.database.env.DATABASE_URL!;
      const scratch = fs.mkdtempSync(path.join(path.dirname(served.database.env.DATA_DIR!), 'pgdump-'));
      const dump = path.join(scratch, 'gatehouse.dump');
      // docs/OPERATIONS.md, "Backups", as written.
      const dumped = spawnSync('pg_dump', ['-Fc', '--no-owner', '-d', url, '-f', dump], { encoding: 'utf8' });
      // The PostgreSQL run of npm test needs the client tools (README): a missing one fails, saying so.
      assert.equal(dumped.error, undefined, `pg_dump (apt-get install postgresql-client): ${dumped.error?.message}`);
      assert.equal(dumped.status, 0, dumped.stderr);
      fs.cpSync(path.join(served.database.env.DATA_DIR!, 'keys'), path.join(scratch, 'data', 'keys'), {
        recursive: true,
      });
      const original = await eventIds(served.url, tenant.pms, tenant.account.id);

      const restoredName = `${new URL(url).pathname.slice(1)}_restored`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create database ${restoredName}`);
      await admin.end();
      const restoredUrl = new URL(url);
      restoredUrl.pathname = `/${restoredName}`;
      let server: ServerProcess | undefined;
      try {
        const restored = spawnSync(
          'pg_restore',
          ['--no-owner', '--exit-on-error', '-d', restoredUrl.toString(), dump],
          {
            encoding: 'utf8',
          },
        );
        assert.equal(restored.status, 0, restored.stderr);
        server = await startServerProcess({
          ...served.env,
          DATABASE_URL: restoredUrl.toString(),
          DATA_DIR: path.join(scratch, 'data'),
        });
        assert.deepEqual(await eventIds(server.url, tenant.pms, tenant.account.id), original);
        const jwks = async (base: string) => (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as unknown;
        assert.deepEqual(await jwks(server.url), await jwks(served.url));
      } finally {
        await server?.kill();
        const cleanup = new pg.Client({ connectionString: url });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${restoredName} with (force)`);
        await cleanup.end();
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    });
  });
