// The shape of the house, checked: every face folder has the one anatomy (docs/ARCHITECTURE.md),
// route files hold no SQL, and the architecture page's map names exactly the folders that exist.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

/** The faces: folders that serve routes of their own. */
const FACES = [
  'ops',
  'auth',
  'tenancy',
  'auctions',
  'access-control',
  'facility-status',
  'commands',
  'gateway',
  'events',
  'console',
];
/** Faces with parts or operations of their own: their surface is index.ts. The others are routes only. */
const FACES_WITH_PARTS = ['auth', 'tenancy', 'auctions', 'access-control', 'facility-status', 'commands', 'events'];
/**
 * Faces already walked to meet others only at their front door (DESIGN.md §6): they import another
 * face through its index.ts alone. (auth/principal.ts and auth/guard.ts are still everyone's.)
 */
const FRONT_DOOR_ONLY = ['facility-status', 'commands'];
const SHARED = ['http', 'db', 'net', 'jobs'];

const exists = (...parts: string[]) => fs.existsSync(path.join(src, ...parts));
const filesOf = (dir: string) => fs.readdirSync(path.join(src, dir)).filter((name) => name.endsWith('.ts'));

describe('one anatomy for every face', () => {
  for (const face of FACES) {
    it(`${face}: routes/ (one file per resource, one routes/index.ts), no route files beside them`, () => {
      if (FACES_WITH_PARTS.includes(face)) assert.ok(exists(face, 'index.ts'), `src/${face}/index.ts is missing`);
      assert.ok(exists(face, 'routes', 'index.ts'), `src/${face}/routes/index.ts is missing`);
      const strays = filesOf(face).filter((name) => /(^|-)routes?\.ts$/.test(name));
      assert.deepEqual(strays, [], `route files outside src/${face}/routes/`);
    });
  }

  it('route files hold no SQL: it lives in the faces’ repositories', () => {
    const sql = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\.query\(|\bsql`/;
    for (const face of FACES) {
      for (const name of filesOf(path.join(face, 'routes'))) {
        const text = fs.readFileSync(path.join(src, face, 'routes', name), 'utf8');
        assert.doesNotMatch(text, sql, `src/${face}/routes/${name} runs SQL`);
      }
    }
  });

  it('job names are <face>.<verb-noun>', async () => {
    const names = new Set<string>();
    for (const face of FACES) {
      for (const file of ['jobs.ts', 'job-names.ts'].filter((name) => exists(face, name))) {
        const text = fs.readFileSync(path.join(src, face, file), 'utf8');
        for (const match of text.matchAll(/['"]([a-z-]+\.[a-z-]+)['"]/g)) names.add(match[1]!);
      }
    }
    assert.ok(names.size >= 3, `found ${[...names].join(', ')}`);
    for (const name of names)
      assert.match(name, /^(auctions|access-control|events|push|facility-status|commands)\.[a-z]+(-[a-z]+)*$/);
  });

  it('the faces walked to their front door import other faces only through index.ts', () => {
    const filesUnder = (dir: string): string[] =>
      fs.readdirSync(path.join(src, dir), { withFileTypes: true }).flatMap((entry) => {
        const name = path.join(dir, entry.name);
        return entry.isDirectory() ? filesUnder(name) : name.endsWith('.ts') ? [name] : [];
      });
    for (const face of FRONT_DOOR_ONLY) {
      for (const file of filesUnder(face)) {
        const text = fs.readFileSync(path.join(src, file), 'utf8');
        for (const [, target] of text.matchAll(/\sfrom\s*'(\.[^']+)'/g)) {
          const resolved = path.relative(src, path.resolve(path.join(src, path.dirname(file)), target!));
          const [folder, ...rest] = resolved.split(path.sep);
          if (rest.length === 0 || folder === face || SHARED.includes(folder!)) continue;
          const door = rest.join('/') === 'index.ts' || ['auth/principal.ts', 'auth/guard.ts'].includes(resolved);
          assert.ok(door, `src/${file} imports src/${resolved}, another face's inside`);
        }
      }
    }
  });

  it('docs/ARCHITECTURE.md maps every folder of src/, and only folders that exist', () => {
    const page = fs.readFileSync(path.join(root, 'docs', 'ARCHITECTURE.md'), 'utf8');
    const folders = fs
      .readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
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
