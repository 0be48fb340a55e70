// scripts/build.mjs bundles the service into dist/: a package bundled there that finds its own files
// through __dirname or __filename would look in dist/ (or fail: the bundle is an ES module), and a
// CommonJS package loaded by a dynamic import would give only `default`; the build refuses both and
// names where. (bin.test.ts runs the service from a build.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
// @ts-expect-error: a plain ES module without types
import { refuseDefaultOnlyDynamicImports, refuseDirnameReads } from '../../scripts/build.mjs';

function outDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

it('refuses bundled code that reads __dirname or __filename, naming the file and line', () => {
  const dir = outDir({
    'chunk-A.js': 'var a = 1;\n  return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json")));\n',
    'chunk-B.js': 'const here = __filename;\n',
  });
  assert.throws(
    () => refuseDirnameReads(dir),
    (error: Error) =>
      /chunk-A\.js:2: return JSON\.parse/.test(error.message) &&
      /chunk-B\.js:1: const here = __filename/.test(error.message) &&
      /UNBUNDLED/.test(error.message),
  );
});

it('accepts what only names them: comments, guarded reads, other identifiers and properties', () => {
  const dir = outDir({
    'chunk-C.js': [
      '// a comment about __dirname',
      ' * or require.main.filename, or __filename.',
      'var currentFilename = typeof __filename !== "undefined" ? __filename : void 0;',
      'const x = options.__dirname; const my__dirname = 1;',
    ].join('\n'),
    'notes.txt': 'path.join(__dirname)',
  });
  assert.doesNotThrow(() => refuseDirnameReads(dir));
});

/** An esbuild metafile's outputs: each chunk's exports, its dynamic imports, its first input. */
function metafile(outputs: Record<string, { exports: string[]; dynamic?: string[]; input: string }>) {
  return {
    outputs: Object.fromEntries(
      Object.entries(outputs).map(([file, o]) => [
        file,
        {
          exports: o.exports,
          imports: (o.dynamic ?? []).map((p) => ({ path: p, kind: 'dynamic-import' })),
          inputs: { [o.input]: {} },
        },
      ]),
    ),
  };
}

it('refuses a dynamic import of a chunk that exports only default (a bundled CommonJS package), naming the package', () => {
  const meta = metafile({
    'dist/chunk-APP.js': { exports: ['safeFetch'], dynamic: ['dist/chunk-CJS.js'], input: 'src/net/safe-fetch.ts' },
    'dist/chunk-CJS.js': { exports: ['default'], input: 'node_modules/undici/index.js' },
  });
  assert.throws(
    () => refuseDefaultOnlyDynamicImports(meta),
    (error: Error) =>
      /chunk-APP\.js imports chunk-CJS\.js \(undici\)/.test(error.message) && /UNBUNDLED/.test(error.message),
  );
});

it('accepts dynamic imports of chunks with named exports, and a default-only chunk imported statically', () => {
  const meta = metafile({
    'dist/main.js': { exports: ['main'], dynamic: ['dist/chunk-CLI.js'], input: 'src/main.ts' },
    'dist/chunk-CLI.js': { exports: ['adminCommand', 'default'], input: 'src/cli/admin.ts' },
    'dist/chunk-LIB.js': { exports: ['default'], input: 'node_modules/some-cjs/index.js' },
  });
  assert.doesNotThrow(() => refuseDefaultOnlyDynamicImports(meta));
});
