// The shape of the house, checked — derived from the tree, so that a new face is checked the day it
// lands: every face folder (a folder of src/ with routes/) has the one anatomy (docs/ARCHITECTURE.md),
// route files hold no SQL, other folders reach a face only through its index.ts, no face keeps a
// module-level cache keyed by a database, pool or service, and the architecture page's map names
// exactly the folders that exist.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

const exists = (...parts: string[]) => fs.existsSync(path.join(src, ...parts));
const filesOf = (dir: string) => fs.readdirSync(path.join(src, dir)).filter((name) => name.endsWith('.ts'));
const folders = fs
  .readdirSync(src, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The faces: folders that serve routes of their own. */
const FACES = folders.filter((folder) => exists(folder, 'routes'));

function modulesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modulesUnder(full);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

/** Every relative import of src/, as [importing file, imported file], both relative to src/. */
const imports: [string, string][] = modulesUnder(src).flatMap((file) =>
  [...fs.readFileSync(file, 'utf8').matchAll(IMPORT)].map((match): [string, string] => [
    path.relative(src, file),
    path.relative(src, path.resolve(path.dirname(file), match[1] ?? match[2]!)),
  ]),
);

const folderOf = (file: string) => (file.includes(path.sep) ? file.split(path.sep)[0]! : null);

/**
 * Imports of a face's inner files that remain while issue 24's rooms are built (the push face's
 * readers of events, the command queue's and facility status's rooms). Each leaves this list when its
 * room lands; an entry that no longer exists fails the test, so the list only shrinks.
 */
const PENDING_DOORS = new Set<string>([]);

describe('one anatomy for every face', () => {
  it('finds the faces from the tree', () => {
    // The faces the service has had since its first routes; a new one is found, never listed.
    for (const face of ['ops', 'auth', 'tenancy', 'auctions', 'access-control', 'gateway', 'events', 'console', 'push'])
      assert.ok(FACES.includes(face), `${face} is a face (it has routes/)`);
  });

  for (const face of FACES) {
    it(`${face}: routes/ (one file per resource, one routes/index.ts), no route files beside them`, () => {
      assert.ok(exists(face, 'routes', 'index.ts'), `src/${face}/routes/index.ts is missing`);
      const strays = filesOf(face).filter((name) => /(^|-)routes?\.ts$/.test(name));
      assert.deepEqual(strays, [], `route files outside src/${face}/routes/`);
    });
  }

  it('a face with parts of its own shows them in index.ts', () => {
    for (const face of FACES) {
      const inner = filesOf(face).filter((name) => name !== 'index.ts');
      if (inner.length > 0) assert.ok(exists(face, 'index.ts'), `src/${face} has ${inner.join(', ')} but no index.ts`);
    }
  });

  it('route files hold no SQL: it lives in the faces’ repositories', () => {
    const sql = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\.query\(|\bsql`/;
    for (const face of FACES) {
      for (const name of filesOf(path.join(face, 'routes'))) {
        const text = fs.readFileSync(path.join(src, face, 'routes', name), 'utf8');
        assert.doesNotMatch(text, sql, `src/${face}/routes/${name} runs SQL`);
      }
    }
  });

  it('job names are <face>.<verb-noun>, the face being a folder of src/', async () => {
    const names = new Set<string>();
    for (const folder of folders) {
      for (const file of ['jobs.ts', 'job-names.ts'].filter((name) => exists(folder, name))) {
        const text = fs.readFileSync(path.join(src, folder, file), 'utf8');
        for (const match of text.matchAll(/['"]([a-z-]+\.[a-z-]+)['"]/g)) names.add(match[1]!);
      }
    }
    assert.ok(names.size >= 3, `found ${[...names].join(', ')}`);
    for (const name of names) {
      assert.match(name, /^[a-z-]+\.[a-z]+(-[a-z]+)*$/);
      const owner = name.split('.')[0]!;
      assert.ok(folders.includes(owner), `job ${name}: no folder src/${owner}/`);
    }
  });

  it('job names are declared one way: `export const <VERB_NOUN>_JOB = "<folder>.<verb-noun>"` in the folder’s jobs.ts, and written nowhere else', () => {
    const declared = new Map<string, string>();
    for (const folder of folders) {
      assert.ok(!exists(folder, 'job-names.ts'), `src/${folder}/job-names.ts: job names belong in jobs.ts`);
      if (!exists(folder, 'jobs.ts')) continue;
      const text = fs.readFileSync(path.join(src, folder, 'jobs.ts'), 'utf8');
      const constants = [...text.matchAll(/^export const (\w+_JOB) = '([^']+)';$/gm)];
      assert.ok(constants.length > 0, `src/${folder}/jobs.ts declares no <VERB_NOUN>_JOB constant`);
      for (const [, constant, name] of constants) {
        const [owner, verbNoun] = name!.split('.');
        assert.equal(owner, folder, `${constant} = '${name}': a job of src/${folder}/ is named ${folder}.<verb-noun>`);
        assert.equal(constant, `${verbNoun!.toUpperCase().replaceAll('-', '_')}_JOB`, `the constant of '${name}'`);
        declared.set(name!, `${folder}/jobs.ts`);
      }
      // No other form of declaring names (an object of names, a bare constant).
      const otherNames = [
        ...text.matchAll(/^(?!export const \w+_JOB = )(?!\s*formerNames:).*['"]([a-z-]+\.[a-z-]+)['"]/gm),
      ];
      assert.deepEqual(
        otherNames.map((m) => m[1]),
        [],
        `src/${folder}/jobs.ts writes job names outside its _JOB constants`,
      );
    }
    for (const file of modulesUnder(src)) {
      const relative = path.relative(src, file);
      const text = fs.readFileSync(file, 'utf8');
      for (const [name, home] of declared) {
        if (relative !== home)
          assert.ok(
            !text.includes(`'${name}'`),
            `${relative} writes the job name '${name}': use its constant from ${home}`,
          );
      }
    }
  });
});

describe('faces meet only at their front door', () => {
  it('another folder imports a face only through its index.ts (app.ts registers routes/index.ts; db/tables.ts assembles the faces’ tables.ts)', () => {
    const strays: string[] = [];
    for (const [from, to] of imports) {
      const face = folderOf(to);
      if (face === null || !FACES.includes(face) || folderOf(from) === face) continue;
      if (to === path.join(face, 'index.ts')) continue;
      // app.ts registers each face's one route plugin.
      if (from === 'app.ts' && to === path.join(face, 'routes', 'index.ts')) continue;
      if (from === path.join('db', 'tables.ts') && to === path.join(face, 'tables.ts')) continue;
      strays.push(`${from} -> ${to}`);
    }
    const unexpected = strays.filter((stray) => !PENDING_DOORS.has(stray));
    assert.deepEqual(unexpected, [], 'imports of a face’s inner files');
    const gone = [...PENDING_DOORS].filter((pending) => !strays.includes(pending));
    assert.deepEqual(gone, [], 'PENDING_DOORS lists imports that no longer exist: take them off');
  });

  it('push reads the facts it delivers through their owners: its SQL names no table but its own', () => {
    // Events, command settlements, facility status changes and auction history are read by the
    // owners' fact readers (src/<owner>/facts.ts), handed to createPush by the composition root;
    // subscriptions' owners and facilities are asked of tenancy's face. The tables and their owners
    // are read from each folder's tables.ts (`interface …Tables { name: …Table }`).
    const ownerOfTable = new Map<string, string>();
    for (const folder of folders) {
      if (!exists(folder, 'tables.ts')) continue;
      const declared = fs
        .readFileSync(path.join(src, folder, 'tables.ts'), 'utf8')
        .match(/interface \w+Tables \{([^}]*)\}/);
      for (const [, table] of (declared?.[1] ?? '').matchAll(/^\s*(\w+):/gm)) ownerOfTable.set(table!, folder);
    }
    assert.ok(ownerOfTable.get('gateway_events') === 'events' && ownerOfTable.get('facilities') === 'tenancy');
    const named = /\b(?:from|join|into|update)\s+(\w+)|\b(?:selectFrom|insertInto|updateTable|deleteFrom)\(\s*'(\w+)'/g;
    for (const file of modulesUnder(path.join(src, 'push'))) {
      const code = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const match of code.matchAll(named)) {
        const table = match[1] ?? match[2]!;
        const owner = ownerOfTable.get(table);
        assert.ok(
          owner === undefined || owner === 'push',
          `${path.relative(root, file)} names ${table}, a table of ${owner}`,
        );
      }
    }
  });

  it('no face keeps a module-level cache keyed by a database, pool or service: such state is a field of its owner', () => {
    // A module-level (unindented) Map or WeakMap whose key is a database handle or a part of the service.
    const cache =
      /^(?:export\s+)?(?:const|let)\s+\w+\s*(?::[^=]+)?=\s*new\s+(?:Weak)?Map\s*<\s*(?:object|pg\.Pool|Pool|Db|Database|Kysely<[^>]*>|Services|\w+Service)\s*,/m;
    for (const face of FACES) {
      for (const file of modulesUnder(path.join(src, face))) {
        const text = fs.readFileSync(file, 'utf8');
        assert.doesNotMatch(text, cache, `${path.relative(root, file)} keeps a module-level cache keyed by a database`);
      }
    }
  });
});

describe('the map', () => {
  it('docs/ARCHITECTURE.md maps every folder of src/, and only folders that exist', () => {
    const page = fs.readFileSync(path.join(root, 'docs', 'ARCHITECTURE.md'), 'utf8');
    // Named as `src/<folder>/`, or as `<folder>/` in the tree drawn under `src/`.
    for (const folder of folders)
      assert.match(
        page,
        new RegExp(`src/${folder}/|(^|\\s)${folder}/(\\s|$)`, 'm'),
        `src/${folder}/ is not on the map`,
      );
    for (const [, named] of page.matchAll(/`src\/([a-z-]+(?:\/[a-z.-]+)*)`/g)) {
      assert.ok(fs.existsSync(path.join(src, named!)), `the map names src/${named}, which does not exist`);
    }
  });
});
