// Which database a command uses, said on stderr; --data-dir in place of DATA_DIR; and a command
// that only reads or writes service data refused, in one line, when the data directory it is
// given holds none — without creating anything there.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { buildProgram } from '../../src/main.ts';
import { runCli } from '../helpers/process.ts';

let database: TestDatabase;
let scratch: string;
before(async () => {
  database = await createTestDatabase();
  scratch = fs.mkdtempSync(path.join(path.dirname(database.env.DATA_DIR!), 'cli-'));
});
after(async () => {
  await database.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** A command that worked: its stderr (the database line) and its one JSON object. */
async function json(args: string[], env: Record<string, string>) {
  const result = await runCli(args, env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON object on stdout, got: ${result.stdout}`);
  return { stderr: result.stderr, answer: JSON.parse(lines[0]!) };
}

describe('the database a command uses', () => {
  it('is named on stderr, in one line, and never with a password', async () => {
    if (onPostgres) {
      // The test server trusts local connections: a password in the URL is accepted and ignored.
      const url = new URL(database.env.DATABASE_URL!);
      url.username = 'postgres';
      url.password = 'not-to-be-shown';
      const { stderr } = await json(['admin', 'account', 'list'], { ...database.env, DATABASE_URL: url.toString() });
      assert.equal(
        stderr,
        `gatehouse: database: PostgreSQL at ${url.hostname}:${url.port || '5432'}${url.pathname} (DATABASE_URL)\n`,
      );
      assert.doesNotMatch(stderr, /not-to-be-shown/);
    } else {
      const { stderr } = await json(['admin', 'account', 'list'], database.env);
      assert.equal(stderr, `gatehouse: database: embedded, data directory ${database.env.DATA_DIR}\n`);
    }
    const migrate = await json(['migrate'], database.env);
    assert.match(migrate.stderr, /^gatehouse: database: (embedded, data directory|PostgreSQL at) /);
  });

  it('is the one --data-dir names, in place of DATA_DIR, before or after the command', async () => {
    const missing = path.join(scratch, 'not-here');
    const env = { ...database.env, DATA_DIR: missing };
    const made = await json(
      ['--data-dir', database.env.DATA_DIR!, 'admin', 'account', 'create', '--name', 'Via flag'],
      env,
    );
    const listed = await json(['admin', 'account', 'list', '--data-dir', database.env.DATA_DIR!], env);
    assert.ok(
      listed.answer.items.some((a: { id: number }) => a.id === made.answer.id),
      'the same database',
    );
    if (!onPostgres) assert.match(listed.stderr, new RegExp(`data directory ${database.env.DATA_DIR}\\n`));
    assert.equal(fs.existsSync(missing), false, 'DATA_DIR was not used');
  });

  it('is handed to a command that has its own --data-dir (the demo: the directory to keep)', async () => {
    const kept = path.join(scratch, 'demo-data');
    const before = process.env.DATA_DIR;
    try {
      for (const argv of [
        ['--data-dir', kept, 'demo'],
        ['demo', '--data-dir', kept],
      ]) {
        const program = await buildProgram(['node', 'gatehouse', ...argv]);
        let given: string | undefined;
        // The demo itself is not run: its action is replaced by one that records what it was given.
        program.commands
          .find((c) => c.name() === 'demo')!
          .action((o: { dataDir?: string }) => {
            given = o.dataDir;
          });
        await program.parseAsync(['node', 'gatehouse', ...argv]);
        assert.equal(given, kept, argv.join(' '));
        assert.equal(process.env.DATA_DIR, kept, 'and DATA_DIR for the rest of the process');
      }
    } finally {
      if (before === undefined) delete process.env.DATA_DIR;
      else process.env.DATA_DIR = before;
    }
  });
});

// With DATABASE_URL the data directory holds only signing keys and blobs: there is nothing to check.
if (onPostgres) {
  it('is not looked into with DATABASE_URL: the data lives on the server', async () => {
    const { answer } = await json(['admin', 'account', 'list'], {
      ...database.env,
      DATA_DIR: path.join(scratch, 'keys-only'),
    });
    assert.ok(Array.isArray(answer.items));
  });
}

if (!onPostgres)
  describe('a data directory that holds no Gatehouse data', () => {
    const refusal = (dir: string, why: string) =>
      `gatehouse: ${dir} holds no Gatehouse data (${why}): name the server's data directory with --data-dir (or DATA_DIR), or run \`gatehouse migrate\` to create one\n`;

    it('is refused by admin commands in one line, exit 1, and nothing is created', async () => {
      const missing = path.join(scratch, 'typo', 'data');
      for (const args of [
        ['admin', 'account', 'list'],
        ['admin', 'account', 'create', '--name', 'Lost'],
        ['admin', 'keys', 'rotate'],
      ]) {
        const result = await runCli(args, { ...database.env, DATA_DIR: missing });
        assert.equal(result.code, 1, args.join(' '));
        assert.equal(result.stdout, '');
        assert.equal(result.stderr, refusal(missing, 'it does not exist'));
      }
      assert.equal(fs.existsSync(path.join(scratch, 'typo')), false, 'no directory created');

      const empty = fs.mkdtempSync(path.join(scratch, 'empty-'));
      const inEmpty = await runCli(['--data-dir', empty, 'admin', 'app', 'list'], database.env);
      assert.equal(inEmpty.code, 1);
      assert.equal(inEmpty.stderr, refusal(empty, 'it is empty'));
      assert.deepEqual(fs.readdirSync(empty), [], 'still empty');

      const other = fs.mkdtempSync(path.join(scratch, 'other-'));
      fs.writeFileSync(path.join(other, 'notes.txt'), 'not a database');
      const inOther = await runCli(['admin', 'app', 'list', '--data-dir', other], database.env);
      assert.equal(inOther.code, 1);
      assert.equal(inOther.stderr, refusal(other, 'it has no database'));
      assert.deepEqual(fs.readdirSync(other), ['notes.txt']);
    });

    it('is made by migrate, after which admin commands work', async () => {
      const fresh = path.join(scratch, 'fresh');
      const migrated = await json(['migrate', '--data-dir', fresh], database.env);
      assert.equal(migrated.answer.upToDate, true);
      assert.equal(migrated.stderr, `gatehouse: database: embedded, data directory ${fresh}\n`);
      const listed = await json(['--data-dir', fresh, 'admin', 'account', 'list'], database.env);
      assert.deepEqual(listed.answer, { items: [] });
    });
  });
