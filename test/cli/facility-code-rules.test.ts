// `gatehouse admin facility create|update --code-characters --code-min-length --code-max-length`: a
// facility's gate-code rules (issue 28, SPEC §1 accessCodeRules) set and read from the command line;
// a bad flag fails in one line on stderr naming the sub-field, and changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { cliJson, runCli } from '../helpers/process.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await database.drop();
});

const gatehouse = (...args: string[]) => cliJson(['admin', ...args], database.env);
const rulesOf = async (facilityId: number) =>
  (await gatehouse('facility', 'list')).items.find((f: { id: number }) => f.id === facilityId).accessCodeRules;

describe('a facility’s gate-code rules from the command line', () => {
  let account: number;
  before(async () => {
    account = (await gatehouse('account', 'create', '--name', 'Rules Storage')).id;
  });
  const create = (...flags: string[]) =>
    gatehouse('facility', 'create', '--account', String(account), '--name', 'Main', '--time-zone', 'UTC', ...flags);

  it('creates a facility with the default rules, or with those given; lists them', async () => {
    const plain = await create();
    assert.deepEqual(await rulesOf(plain.id), { characters: 'digits', minLength: 4, maxLength: 10 });
    const own = await create('--code-characters', 'alphanumeric', '--code-min-length', '6', '--code-max-length', '8');
    assert.deepEqual(Object.keys(own).sort(), ['guid', 'id'], 'create prints what it printed before');
    assert.deepEqual(await rulesOf(own.id), { characters: 'alphanumeric', minLength: 6, maxLength: 8 });
  });

  it('updates the rules given, keeping the others; prints the facility id and its rules', async () => {
    const { id } = await create();
    const updated = await gatehouse('facility', 'update', '--facility', String(id), '--code-min-length', '6');
    assert.deepEqual(updated, { id, accessCodeRules: { characters: 'digits', minLength: 6, maxLength: 10 } });
    await gatehouse('facility', 'update', '--facility', String(id), '--code-characters', 'alphanumeric');
    assert.deepEqual(await rulesOf(id), { characters: 'alphanumeric', minLength: 6, maxLength: 10 });
  });

  it('refuses bad rules in one line naming each sub-field, exit 1, nothing changed', async () => {
    const { id } = await create();
    const refusals: [string[], RegExp][] = [
      [
        ['facility', 'update', '--facility', String(id), '--code-min-length', '12'],
        /accessCodeRules\.minLength must be at most maxLength \(10\)/,
      ],
      [
        ['facility', 'update', '--facility', String(id), '--code-min-length', '8', '--code-max-length', '6'],
        /accessCodeRules\.maxLength must be at least minLength \(8\)/,
      ],
      [
        ['facility', 'update', '--facility', String(id), '--code-characters', 'letters', '--code-max-length', 'ten'],
        /accessCodeRules\.characters must be digits or alphanumeric; accessCodeRules\.maxLength must be a whole number from 1 to 16/,
      ],
      [
        [
          'facility',
          'create',
          '--account',
          String(account),
          '--name',
          'M',
          '--time-zone',
          'UTC',
          '--code-max-length',
          '17',
        ],
        /accessCodeRules\.maxLength must be a whole number from 1 to 16/,
      ],
      [['facility', 'update', '--facility', '999999', '--code-min-length', '5'], /facility was not found/i],
    ];
    const facilities = (await gatehouse('facility', 'list')).items.length;
    for (const [args, said] of refusals) {
      const result = await runCli(['admin', ...args], database.env);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 2, `the database line, then one line: ${result.stderr}`);
      assert.match(lines[1]!, said);
    }
    assert.deepEqual(await rulesOf(id), { characters: 'digits', minLength: 4, maxLength: 10 });
    assert.equal((await gatehouse('facility', 'list')).items.length, facilities);
  });
});
