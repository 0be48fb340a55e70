// The typed client as an npm package (issue 26, item 7), used as an integrator's fresh Node.js
// project uses it: clients/typescript packed with `npm pack` (its prepack script builds dist/),
// the tarball installed with no registry, then the first calls against the real server from a
// CommonJS script (`require`) and from an ES module (`import`), each run by plain `node` (no tsx),
// and a TypeScript consumer checked by `tsc` under `module: nodenext` with no other option.
// Before the package existed, `npm pack` in clients/typescript had no package.json to pack.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { markdownSection } from '../docs/markdown.ts';
import { type Finished, runProgram } from '../helpers/process.ts';
import { seedAccount } from '../helpers/seed.ts';
import { realServer } from '../helpers/server.ts';
import type { ProvisionedAccount } from '../helpers/tenants.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = fs.mkdtempSync(path.join(process.env.GATEHOUSE_TEST_WORKDIR ?? os.tmpdir(), 'client-package-'));
/** The integrator's project: a package.json with a name, and nothing else until the tarball is installed. */
const project = path.join(work, 'project');
const PACKAGE = '@gatehouse/client';

let account: ProvisionedAccount;
const served = realServer(
  {},
  {
    async prepare(database) {
      account = await seedAccount(database.env, { facilities: 2, name: 'Packaged Storage' });
      return undefined;
    },
  },
);

/**
 * `file args` in `cwd`, with this process's environment less what would make it something else
 * than what an integrator runs: no npm settings inherited from `npm test`, no NODE_OPTIONS (tsx).
 */
function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  const inherited = Object.keys(process.env).filter((name) => /^npm_/i.test(name) || name === 'NODE_OPTIONS');
  // runProgram spreads process.env first; an undefined value leaves the variable out of the child's.
  const unset = Object.fromEntries(inherited.map((name) => [name, undefined])) as unknown as Record<string, string>;
  return runProgram(file, args, {
    cwd,
    env: { ...unset, npm_config_cache: path.join(work, 'npm-cache'), npm_config_update_notifier: 'false', ...env },
    timeoutMs: 180_000,
  });
}

const succeeded = (what: string, result: Finished) =>
  assert.equal(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`);

/** docs/API.md's first calls, as an integrator copies them: its ```js blocks, the ES module's, then the CommonJS one. */
const DOCUMENTED = [
  ...markdownSection(fs.readFileSync(path.join(root, 'docs/API.md'), 'utf8'), 'The TypeScript client').matchAll(
    /^```js\n([\s\S]*?)^```$/gm,
  ),
].map((m) => m[1]!);
const DOCUMENTED_URL = "'https://gatehouse.example.com'";

/** The first calls, the same from either module system: a token, whoami, the facility list. */
const FIRST_CALLS = `
const baseUrl = process.env.GATEHOUSE_URL;
const { access_token } = await requestToken(createGatehouseClient({ baseUrl }), JSON.parse(process.env.GRANT));
const gatehouse = createGatehouseClient({ baseUrl, token: access_token });
const whoami = await gatehouse.GET('/auth/whoami');
const facilities = await gatehouse.GET('/facilities');
console.log(JSON.stringify({ loaded, whoami: whoami.data, facilities: facilities.data }));
`;

const SCRIPTS = {
  'first-call.cjs': `const { createGatehouseClient, requestToken } = require('${PACKAGE}');
const loaded = require.resolve('${PACKAGE}');
(async () => {${FIRST_CALLS}})();
`,
  'first-call.mjs': `import { createGatehouseClient, requestToken } from '${PACKAGE}';
const loaded = import.meta.resolve('${PACKAGE}');
${FIRST_CALLS}`,
};

/** What a TypeScript integrator writes, once per module system; the expected errors prove the types are the API's, not `any`. */
const consumer = (format: string) => `import { createGatehouseClient, requestToken, type Schemas } from '${PACKAGE}';

export async function facilityNames(baseUrl: string, grant: Parameters<typeof requestToken>[1]): Promise<string[]> {
  const { access_token } = await requestToken(createGatehouseClient({ baseUrl }), grant);
  const gatehouse = createGatehouseClient({ baseUrl, token: access_token, signal: AbortSignal.timeout(10_000) });
  const { data, response } = await gatehouse.GET('/facilities');
  if (!data) throw new Error(\`${format}: HTTP \${response.status}\`);
  const facilities: Schemas['Facility'][] = data;
  // @ts-expect-error a path the API does not have
  await gatehouse.GET('/no-such-path');
  // @ts-expect-error a facility's name is a string
  const name: number = facilities[0]!.name;
  return facilities.map((facility) => facility.name).concat(String(name));
}
`;

const TSCONFIG = { compilerOptions: { module: 'nodenext', strict: true, noEmit: true }, files: ['esm.mts', 'cjs.cts'] };

describe('the typed client, packed and installed in a fresh project', () => {
  let tarball: string;

  before(async () => {
    // The package as git holds it (no dist/ of an earlier build), in a tree shaped like the
    // repository's, so that its build finds the repository's esbuild and TypeScript.
    const copy = path.join(work, 'repository/clients/typescript');
    fs.cpSync(path.join(root, 'clients/typescript'), copy, {
      recursive: true,
      filter: (source) => !/[\\/](dist|node_modules)$/.test(source),
    });
    fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(work, 'repository/node_modules'));
    const packed = path.join(work, 'packed');
    fs.mkdirSync(packed);
    succeeded('npm pack', await run('npm', ['pack', '--pack-destination', packed], copy));
    const tarballs = fs.readdirSync(packed);
    const { version } = JSON.parse(fs.readFileSync(path.join(copy, 'package.json'), 'utf8'));
    assert.deepEqual(tarballs, [`gatehouse-client-${version}.tgz`]);
    tarball = path.join(packed, tarballs[0]!);

    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'integrator', private: true })}\n`);
    const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], project);
    succeeded('npm install of the tarball', install);
    // Nothing for the integrator to approve: the package has no script that npm counts as an install script.
    assert.doesNotMatch(install.stderr, /install-scripts/);
    for (const [name, text] of Object.entries(SCRIPTS)) fs.writeFileSync(path.join(project, name), text);
    assert.equal(DOCUMENTED.length, 2, 'docs/API.md shows a first call as an ES module and in CommonJS');
    for (const [name, text] of [
      ['documented.mjs', DOCUMENTED[0]!],
      ['documented.cjs', DOCUMENTED[1]!],
    ] as const) {
      assert.ok(text.includes(DOCUMENTED_URL), `${name} calls ${DOCUMENTED_URL}`);
      fs.writeFileSync(
        path.join(project, name),
        text.replaceAll(DOCUMENTED_URL, () => JSON.stringify(served.url)),
      );
    }
    fs.writeFileSync(path.join(project, 'esm.mts'), consumer('esm'));
    fs.writeFileSync(path.join(project, 'cjs.cts'), consumer('cjs'));
    fs.writeFileSync(path.join(project, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('installs built ESM, CommonJS and declarations, with no dependency to fetch', () => {
    const installed = path.join(project, 'node_modules', PACKAGE);
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined);
    assert.equal(manifest.peerDependencies, undefined);
    assert.deepEqual(manifest.exports['.'], {
      import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    });
    const files = fs.readdirSync(path.join(installed, 'dist'));
    for (const file of ['index.mjs', 'index.cjs', 'index.d.mts', 'index.d.cts', 'schema.d.mts', 'schema.d.cts'])
      assert.ok(files.includes(file), `dist/${file} is in the package (${files.join(', ')})`);
    assert.ok(!fs.existsSync(path.join(installed, 'index.ts')), 'the TypeScript sources are not');
    // The project's node_modules holds the client and nothing it brought along.
    assert.deepEqual(
      fs.readdirSync(path.join(project, 'node_modules')).filter((n) => !n.startsWith('.')),
      ['@gatehouse'],
    );
  });

  for (const [script, file] of [
    ['first-call.cjs', 'dist/index.cjs'],
    ['first-call.mjs', 'dist/index.mjs'],
  ] as const) {
    it(`${script}, run by plain node, gets a token and the seeded account's facilities through ${file}`, async () => {
      const grant = {
        grant_type: 'password',
        client_id: account.pms.clientId,
        client_secret: account.pms.clientSecret,
        username: account.key.apiKey,
        password: account.key.apiSecret,
      };
      const result = await run(process.execPath, [script], project, {
        GATEHOUSE_URL: served.url,
        GRANT: JSON.stringify(grant),
      });
      succeeded(script, result);
      const answer = JSON.parse(result.stdout);
      assert.ok(answer.loaded.endsWith(`/node_modules/${PACKAGE}/${file}`), answer.loaded);
      assert.equal(answer.whoami.kind, 'account');
      assert.equal(answer.whoami.accountId, account.accountId);
      assert.equal(answer.whoami.clientId, account.pms.clientId);
      assert.deepEqual(
        answer.facilities.map((f: { id: number; name: string }) => [f.id, f.name]).sort(),
        account.facilities.map((f) => [f.id, f.name]).sort(),
      );
    });
  }

  for (const script of ['documented.mjs', 'documented.cjs']) {
    it(`docs/API.md's first call (${script}) runs as written and prints the seeded account's facilities`, async () => {
      const result = await run(process.execPath, [script], project, {
        CLIENT_ID: account.pms.clientId,
        CLIENT_SECRET: account.pms.clientSecret,
        API_KEY: account.key.apiKey,
        API_SECRET: account.key.apiSecret,
      });
      succeeded(script, result);
      // console.log of the facility list: util.inspect's form, an `id: …,` and a `name: '…',` line per facility.
      const printed = (field: string) =>
        [...result.stdout.matchAll(new RegExp(`^\\s+${field}: '?([^',]*)'?,?$`, 'gm'))].map((m) => m[1]!).sort();
      assert.deepEqual(printed('id'), account.facilities.map((f) => String(f.id)).sort(), result.stdout);
      assert.deepEqual(printed('name'), account.facilities.map((f) => f.name).sort(), result.stdout);
    });
  }

  it("type-checks a consumer in each module system with the repository's tsc under module nodenext", async () => {
    const result = await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', project], project);
    succeeded('tsc', result);
  });
});
