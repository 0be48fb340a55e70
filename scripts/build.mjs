#!/usr/bin/env node
// `npm run build` (also the `prepare` script: it runs on `npm install` / `npm ci` in a clone).
// Then prepares the embedded database's template in .cache/ (src/db/template.ts): an initdb and
// every migration, done once here instead of at the first start.
// Bundles src/ and the packages it uses into plain JavaScript in dist/, so that `gatehouse` starts
// without compiling TypeScript or resolving thousands of package files one by one (a start loaded
// ~2,400 modules: 1.3 s of the start-up; bundled, 0.4 s). Every file it writes sits at dist/'s top
// level — the entry points and their shared chunks — so src/code-dir.ts finds the files beside the
// code (migrations, the worker, the console's page: copied into the same tree as in src/) the same
// way from src/ and from dist/. dist/SOURCE_HASH records the hash of the sources it was built from:
// bin/gatehouse runs dist/ only while src/ still has that hash, and runs the sources through tsx
// otherwise. A failed build never fails the install: it says so in one line and gatehouse runs
// through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceHash, SOURCE_HASH_FILE } from './source-hash.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What is run from dist/: the command line, and the template's preparation (below). */
const ENTRY_POINTS = [
  ['main', 'main.ts'],
  ['template', 'db/template.ts'],
];

/**
 * Packages loaded from node_modules as they are: those that read files of their own beside their code
 * (PGlite's WASM, the API docs page's assets, pino's transport worker, a package.json read through
 * __dirname), a native addon (sharp), what is optional (pg-native) or a development tool (tsx,
 * esbuild, playwright-core). The build fails if any other bundled package names __dirname. And a
 * CommonJS package that src/ loads by a dynamic `import()` (undici): esbuild puts it in a chunk of
 * its own that exports only `default`, so `const { Agent } = await import(…)` would find nothing.
 */
const UNBUNDLED = [
  '@electric-sql/*',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'ioredis',
  'undici',
  'pino',
  'sharp',
  'pg-native',
  'tsx',
  'esbuild',
  'playwright-core',
];

export async function build({ srcDir = path.join(root, 'src'), distDir = path.join(root, 'dist') } = {}) {
  const { build: esbuild } = await import('esbuild');
  const hash = sourceHash(srcDir);
  const tmp = `${distDir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  let modules;
  try {
    const result = await esbuild({
      entryPoints: ENTRY_POINTS.map(([name, file]) => ({ in: path.join(srcDir, file), out: name })),
      outdir: tmp,
      bundle: true,
      // A module loaded only by a dynamic import (a command's, S3's) is a chunk of its own, read when first used.
      splitting: true,
      chunkNames: 'chunk-[hash]',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      metafile: true,
      external: UNBUNDLED,
      // The CommonJS packages in the bundle call require() for node's modules and for the packages left out.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'silent', // a failure is reported in one line below
    });
    modules = Object.keys(result.metafile.inputs).length;
    refuseDirnameReads(tmp);
    refuseDefaultOnlyDynamicImports(result.metafile);
    for (const file of listFiles(srcDir).filter((f) => !f.endsWith('.ts'))) {
      const target = path.join(tmp, path.relative(srcDir, file));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
    }
    // Written last: a dist/ without it is never run.
    fs.writeFileSync(path.join(tmp, SOURCE_HASH_FILE), `${hash}\n`);
  } catch (error) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  fs.rmSync(distDir, { recursive: true, force: true });
  fs.renameSync(tmp, distDir);
  return { hash, modules };
}

/**
 * A bundled package that finds its own files through __dirname or __filename would find dist/ (or
 * nothing: the bundle is an ES module): such a package belongs in UNBUNDLED.
 */
export function refuseDirnameReads(outDir) {
  const uses = [];
  for (const file of fs.readdirSync(outDir).filter((f) => f.endsWith('.js'))) {
    fs.readFileSync(path.join(outDir, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        const code = line.trimStart();
        if (code.startsWith('*') || code.startsWith('//')) return;
        // What is read only where it exists (`typeof __filename !== 'undefined' ? __filename : …`) is no use.
        const guarded = line.replace(/typeof (__dirname|__filename)\b[^?]*\?\s*\1/g, '');
        if (/(?<![\w$.])__(dirname|filename)\b/.test(guarded)) uses.push(`${file}:${index + 1}: ${code.slice(0, 120)}`);
      });
  }
  if (uses.length > 0)
    throw new Error(`bundled code reads __dirname or __filename (add its package to UNBUNDLED):\n${uses.join('\n')}`);
}

/**
 * A CommonJS package bundled and loaded by a dynamic `import()` becomes a chunk that exports only
 * `default`: the names the code destructures from it would be undefined. Such a package belongs in
 * UNBUNDLED (node's own import of it gives its names).
 */
export function refuseDefaultOnlyDynamicImports(metafile) {
  const defaultOnly = new Set(
    Object.entries(metafile.outputs)
      .filter(([, output]) => output.exports.length === 1 && output.exports[0] === 'default')
      .map(([file]) => file),
  );
  const refused = Object.entries(metafile.outputs).flatMap(([file, output]) =>
    output.imports
      .filter((edge) => edge.kind === 'dynamic-import' && defaultOnly.has(edge.path))
      .map(
        (edge) =>
          `${path.basename(file)} imports ${path.basename(edge.path)} (${describeChunk(metafile.outputs[edge.path])})`,
      ),
  );
  if (refused.length > 0)
    throw new Error(`a CommonJS package is loaded by a dynamic import (add it to UNBUNDLED):\n${refused.join('\n')}`);
}

/** The package a chunk holds, by its first input's path under node_modules. */
function describeChunk(output) {
  const input = Object.keys(output.inputs)[0] ?? '';
  return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input;
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
    const { modules } = await build();
    built = true;
    console.log(`gatehouse: built dist/ (${modules} modules) in ${Date.now() - started} ms`);
  } catch (error) {
    // Not fatal: bin/gatehouse runs the sources through tsx when dist/ is missing or stale.
    console.warn(`gatehouse: build of dist/ failed, gatehouse will run through tsx: ${error?.message ?? error}`);
  }
  if (built && !process.argv.includes('--no-template')) {
    started = Date.now();
    try {
      const { preparedTemplate } = await import(pathToFileURL(path.join(root, 'dist/template.js')).href);
      await preparedTemplate();
      console.log(`gatehouse: embedded database template ready in ${Date.now() - started} ms`);
    } catch (error) {
      // Not fatal either: the first start of a new data directory then makes it.
      console.warn(`gatehouse: the embedded database template was not prepared: ${error?.message ?? error}`);
    }
  }
}
