// What `gatehouse --help` and each command's help tell a newcomer: every command described, every
// required option marked, examples, the scopes an account key may hold (from the list the service
// checks), and the version.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { Command, Option } from 'commander';
import { ACCOUNT_KEY_SCOPES, DEFAULT_ACCOUNT_SCOPES } from '../../src/http/caller.ts';
import { SCOPE_DESCRIPTIONS } from '../../src/http/access.ts';
import { buildProgram } from '../../src/main.ts';
import { runCli } from '../helpers/process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function commands(command: Command, prefix = ''): [string, Command][] {
  const name = `${prefix}${command.name()}`;
  return [[name, command], ...command.commands.flatMap((sub) => commands(sub, `${name} `))];
}

async function help(args: string[]): Promise<string> {
  const result = await runCli([...args, '--help'], {});
  assert.equal(result.code, 0, `${args.join(' ')} --help: ${result.stderr}`);
  return result.stdout;
}

describe('gatehouse help', () => {
  it('describes every command and subcommand, and marks every required option "(required)"', async () => {
    const tree = commands(await buildProgram(['node', 'gatehouse', '--help']));
    assert.ok(tree.length > 25, 'the whole tree');
    const undescribed = tree.filter(([, c]) => c.description().trim() === '').map(([name]) => name);
    assert.deepEqual(undescribed, [], 'commands without a description');
    const unmarked = tree.flatMap(([name, c]) =>
      (c.options as Option[])
        .filter((o) => o.mandatory && !o.description.endsWith('(required)'))
        .map((o) => `${name} ${o.long}`),
    );
    assert.deepEqual(unmarked, [], 'required options not marked');
    // The marking shows in the help a person reads.
    assert.match(await help(['admin', 'account', 'create']), /--name <name>\s+display name \(required\)/);
    const facility = await help(['admin', 'facility', 'create']);
    for (const flag of ['--account <accountId>', '--name <name>', '--time-zone <IANA>'])
      assert.match(facility, new RegExp(`${flag}\\s+[^\\n]*\\(required\\)`), flag);
    assert.doesNotMatch(facility, /--guid <guid>\s+[^\n]*\(required\)/, 'an optional option is not marked');
  });

  it('lists the scopes an account key may hold, each with what it allows, from the list the service checks', async () => {
    const text = await help(['admin', 'account-key', 'create']);
    for (const scope of ACCOUNT_KEY_SCOPES) {
      const line = text.split('\n').find((l) => l.trim().startsWith(`${scope} `));
      assert.ok(line, `${scope} listed`);
      assert.ok(line.includes(SCOPE_DESCRIPTIONS[scope]), `${scope} described`);
      assert.equal(line.includes('(default)'), DEFAULT_ACCOUNT_SCOPES.includes(scope), `${scope}: default or not`);
    }
    assert.match(text, /Examples:\n {2}\$ gatehouse admin account-key create/);
  });

  it('ends the main commands’ help with examples', async () => {
    for (const args of [[], ['serve'], ['migrate'], ['admin'], ['simulate'], ['demo'], ['admin', 'app', 'create']]) {
      assert.match(await help(args), /\nExamples:\n {2}\$ gatehouse /, `gatehouse ${args.join(' ')} --help`);
    }
    assert.match(await help([]), /--data-dir <dir>/, 'the data directory option');
  });

  it('prints the version of package.json with --version', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], {});
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `${version}\n`);
    }
  });
});
