#!/usr/bin/env node
// Fails when a module of src/ imports itself through others. A value cycle makes construction
// order depend on which file loads first; a type-only cycle (`import type`) is harmless at run
// time but is the same tangle for a reader, so both count.   node scripts/check-cycles.mjs
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');

function listModules(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listModules(full);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

// Relative imports and re-exports: `import x from './a.ts'`, `import type { y } from`,
// `export … from`, `import './a.ts'`, `import('./a.ts')`.
const IMPORT =
  /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function relativeImports(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]));
}

const modules = listModules(src);
const graph = new Map(modules.map((file) => [file, relativeImports(file).filter((target) => fs.existsSync(target))]));

// Tarjan's strongly connected components: every component of more than one module is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function visit(node) {
  state.set(node, { index, low: index, onStack: true });
  index++;
  stack.push(node);
  for (const next of graph.get(node) ?? []) {
    if (!state.has(next)) {
      visit(next);
      state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
    } else if (state.get(next).onStack) {
      state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
    }
  }
  if (state.get(node).low === state.get(node).index) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    const selfImport = component.length === 1 && (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || selfImport) cycles.push(component);
  }
}
for (const node of graph.keys()) if (!state.has(node)) visit(node);

if (cycles.length === 0) {
  console.log(`no import cycles in ${modules.length} modules of src/`);
} else {
  for (const cycle of cycles)
    console.error(
      `import cycle: ${cycle
        .map((f) => path.relative(root, f))
        .sort()
        .join(' ↔ ')}`,
    );
  process.exitCode = 1;
}
