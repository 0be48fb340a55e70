#!/usr/bin/env node
// `npm run build` (also the `prepare` script: it runs on `npm install` / `npm ci` in a clone).
// Then prepares the embedded database's template in .cache/ (src/db/template.ts): an initdb and
// every migration, done once here instead of at the first start.
// Transpiles src/ to plain JavaScript in dist/ (one file per source file, the same tree, imports of
// `./x.ts` rewritten to `./x.js`; the other files — SQL migrations, the worker, the console's page —
// copied), so that `gatehouse` starts without compiling TypeScript. dist/SOURCE_HASH records the
// hash of the sources it was built from: bin/gatehouse runs dist/ only while src/ still has that
// hash, and runs the sources through tsx otherwise. A failed build never fails the install: it
// says so in one line and gatehouse runs through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceHash, SOURCE_HASH_FILE } from './source-hash.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function build({ srcDir = path.join(root, 'src'), distDir = path.join(root, 'dist') } = {}) {
  const { build: esbuild } = await import('esbuild');
  const hash = sourceHash(srcDir);
  const tmp = `${distDir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const files = listFiles(srcDir);
  const entryPoints = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await esbuild({
    entryPoints,
    outbase: srcDir,
    outdir: tmp,
    bundle: true, // so that the plugin sees every import: each one is left external, .ts → .js
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'silent', // a failure is reported in one line below
    plugins: [
      {
        name: 'imports-stay-imports',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const relative = args.path.startsWith('./') || args.path.startsWith('../');
            // The typed client (clients/typescript) lies outside src/: it is bundled into the file that uses it.
            if (relative && !path.resolve(args.resolveDir, args.path).startsWith(srcDir + path.sep)) return undefined;
            return { path: relative ? args.path.replace(/\.ts$/, '.js') : args.path, external: true };
          });
        },
      },
    ],
  });
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    const target = path.join(tmp, path.relative(srcDir, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
  // Written last: a dist/ without it is never run.
  fs.writeFileSync(path.join(tmp, SOURCE_HASH_FILE), `${hash}\n`);
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.renameSync(tmp, distDir);
  return { hash, files: entryPoints.length };
}

function listFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let started = Date.now();
  let built = false;
  try {
    const { files } = await build();
    built = true;
    console.log(`gatehouse: built dist/ (${files} files) in ${Date.now() - started} ms`);
  } catch (error) {
    // Not fatal: bin/gatehouse runs the sources through tsx when dist/ is missing or stale.
    console.warn(`gatehouse: build of dist/ failed, gatehouse will run through tsx: ${error?.message ?? error}`);
  }
  if (built && !process.argv.includes('--no-template')) {
    started = Date.now();
    try {
      const { preparedTemplate } = await import(pathToFileURL(path.join(root, 'dist/db/template.js')).href);
      await preparedTemplate();
      console.log(`gatehouse: embedded database template ready in ${Date.now() - started} ms`);
    } catch (error) {
      // Not fatal either: the first start of a new data directory then makes it.
      console.warn(`gatehouse: the embedded database template was not prepared: ${error?.message ?? error}`);
    }
  }
}
