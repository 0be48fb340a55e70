#!/usr/bin/env node
// Builds the typed client as an npm package in dist/. It is the package.json's `prepack` script, so
// `npm pack` builds it first: a tarball never holds an old build, or none.
// `prepack` rather than `prepare`: npm lists a `prepare` as an install script to approve when the
// tarball is installed, though it never runs there. Run from the Gatehouse repository: it uses the
// repository's esbuild (scripts/build.mjs uses it too) and TypeScript. `node build.mjs` builds alone.
//
//   dist/index.mjs, dist/index.cjs    index.ts as ESM and as CommonJS, openapi-fetch bundled in: the
//                                     package has no runtime dependency, so installing it needs no registry
//   dist/index.d.mts, dist/index.d.cts  tsc's declarations of index.ts, one per module system, beside
//                                     the types they import (schema.d.ts, openapi-fetch's and its helpers'),
//                                     copied with the same extension: a consumer's `tsc` resolves every
//                                     type inside the package, with no option of its own
//
// openapi-fetch and its helpers are MIT-licensed: their licences travel with the code and types taken from them.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** A package as installed for `from` (the repository's node_modules): its version, its `.d.mts` (ESM flavour) and licence. */
function installed(name, from = require) {
  const root = path.dirname(from.resolve(`${name}/package.json`));
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return {
    root,
    version,
    types: fs.readFileSync(path.join(root, 'dist/index.d.mts'), 'utf8'),
    licence: fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'),
  };
}

export async function buildClient({ dir = here } = {}) {
  const [{ build: esbuild }, { default: ts }] = await Promise.all([import('esbuild'), import('typescript')]);
  const entry = path.join(dir, 'index.ts');
  const dist = path.join(dir, 'dist');
  const tmp = `${dist}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });

  const fetchPackage = installed('openapi-fetch');
  const helpers = installed('openapi-typescript-helpers', createRequire(path.join(fetchPackage.root, 'package.json')));
  const banner = `/*! @gatehouse/client. Bundles openapi-fetch ${fetchPackage.version} (MIT licence: LICENSE.openapi-fetch.txt) */`;
  for (const [format, extension] of [
    ['esm', 'mjs'],
    ['cjs', 'cjs'],
  ]) {
    await esbuild({
      entryPoints: [entry],
      absWorkingDir: dir, // the paths in its comments are from here, wherever npm runs it
      outfile: path.join(tmp, `index.${extension}`),
      bundle: true,
      format,
      // Plain fetch code: for Node.js ≥ 20, browsers and bundlers alike.
      platform: 'neutral',
      target: 'es2022',
      banner: { js: banner },
      logLevel: 'silent',
    });
  }

  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    allowImportingTsExtensions: true, // index.ts imports './schema.d.ts', as the repository's code does
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], // fetch's types, as a consumer's default lib has them
  };
  const program = ts.createProgram({ rootNames: [entry], options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length > 0) {
    throw new Error(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => dir,
        getNewLine: () => '\n',
      }),
    );
  }
  let declarations;
  program.emit(
    undefined,
    (file, text) => {
      if (path.basename(file) === 'index.d.ts') declarations = text;
    },
    undefined,
    true,
  );
  if (!declarations) throw new Error('tsc emitted no declarations of index.ts');

  // Each declaration file under its name in dist/, with what it imports (left) as it is named there.
  const files = {
    index: { text: declarations, imports: { './schema.d.ts': 'schema', 'openapi-fetch': 'openapi-fetch' } },
    schema: { text: fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8'), imports: {} },
    'openapi-fetch': {
      text: fetchPackage.types,
      imports: { 'openapi-typescript-helpers': 'openapi-typescript-helpers' },
    },
    'openapi-typescript-helpers': { text: helpers.types, imports: {} },
  };
  for (const [name, { text, imports }] of Object.entries(files)) {
    for (const extension of ['mts', 'cts']) {
      const target = `${name}.d.${extension}`;
      fs.writeFileSync(path.join(tmp, target), retarget(ts, target, text, imports, extension.replace('t', 'j')));
    }
  }
  fs.writeFileSync(path.join(tmp, 'LICENSE.openapi-fetch.txt'), fetchPackage.licence);
  fs.writeFileSync(path.join(tmp, 'LICENSE.openapi-typescript-helpers.txt'), helpers.licence);

  fs.rmSync(dist, { recursive: true, force: true });
  fs.renameSync(tmp, dist);
  return fs.readdirSync(dist).sort();
}

/**
 * `text` with each module it imports renamed to its file in dist/ (`./schema.mjs` → schema.d.mts);
 * an import the package does not hold, a module declaration or a reference directive fails the
 * build: a consumer's `tsc` would not find what it names.
 */
function retarget(ts, file, text, imports, extension) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const references = [...source.referencedFiles, ...source.typeReferenceDirectives, ...source.libReferenceDirectives];
  if (references.length > 0) throw new Error(`${file}: a reference directive (${references[0].fileName})`);
  const specifiers = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      specifiers.push(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) specifiers.push(node.argument.literal);
    else if (ts.isExternalModuleReference(node)) specifiers.push(node.expression);
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name))
      throw new Error(`${file}: a declaration of module ${node.name.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  let result = '';
  let at = 0;
  for (const specifier of specifiers) {
    const name = imports[specifier.text];
    if (!name) throw new Error(`${file} imports ${specifier.text}, which the package does not hold`);
    result += `${text.slice(at, specifier.getStart(source))}'./${name}.${extension}'`;
    at = specifier.getEnd();
  }
  return result + text.slice(at);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const files = await buildClient();
  console.log(`@gatehouse/client: built dist/ (${files.join(', ')}) in ${Date.now() - started} ms`);
}
