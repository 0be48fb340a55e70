// scripts/build.mjs bundles the service into dist/: a package bundled there that finds its own files
// through __dirname or __filename would look in dist/ (or fail: the bundle is an ES module), so the
// build refuses it and names the line. (bin.test.ts runs the service from a build.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
// @ts-expect-error: a plain ES module without types
import { refuseDirnameReads } from '../../scripts/build.mjs';

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
