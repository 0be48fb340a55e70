#!/usr/bin/env node
// Fails when a module of src/ imports itself through others, or a folder of src/ does (a file of
// `a/` imports `b/` and a file of `b/` imports `a/`, through any others). A value cycle makes
// construction order depend on which file loads first; a type-only cycle (`import type`) is harmless
// at run time but is the same tangle for a reader, so both count. Folders are the house's rooms: their
// dependencies run one way.   node scripts/check-cycles.mjs
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

function relativeImports(file, { valuesOnly = false } = {}) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .filter((match) => !valuesOnly || !/^\s*(?:import|export)\s+type\s/.test(match[0]))
    .map((match) => path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]));
}

const modules = listModules(src);
const graph = new Map(modules.map((file) => [file, relativeImports(file).filter((target) => fs.existsSync(target))]));

// Tarjan's strongly connected components: every component of more than one node is a cycle.
function stronglyConnected(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const components = [];
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
      if (component.length > 1 || selfImport) components.push(component);
    }
  }
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return components;
}

// A module's folder: its first path segment under src/ (files directly in src/ are each their own).
const folderOf = (file) => {
  const [first, ...rest] = path.relative(src, file).split(path.sep);
  return rest.length > 0 ? `${first}/` : first;
};
// Between folders only value imports count: the one database type (db/tables.ts) is assembled from
// every face's table types by type-only imports, which run no code and order no construction.
const valueGraph = new Map(
  modules.map((file) => [file, relativeImports(file, { valuesOnly: true }).filter((target) => fs.existsSync(target))]),
);
const folders = new Map();
for (const [file, targets] of valueGraph) {
  const from = folderOf(file);
  if (!folders.has(from)) folders.set(from, new Set());
  for (const target of targets) if (folderOf(target) !== from) folders.get(from).add(folderOf(target));
}
const folderGraph = new Map([...folders].map(([folder, targets]) => [folder, [...targets]]));

const moduleCycles = stronglyConnected(graph);
const folderCycles = stronglyConnected(folderGraph);
for (const cycle of moduleCycles)
  console.error(
    `import cycle: ${cycle
      .map((f) => path.relative(root, f))
      .sort()
      .join(' ↔ ')}`,
  );
for (const cycle of folderCycles) {
  // Name one import per step, so that the reader sees where to cut.
  const members = new Set(cycle);
  const steps = [];
  for (const [file, targets] of valueGraph) {
    const from = folderOf(file);
    if (!members.has(from)) continue;
    const target = targets.find((t) => folderOf(t) !== from && members.has(folderOf(t)));
    if (target && !steps.some((s) => s.startsWith(`${from} `)))
      steps.push(`${from} (${path.relative(src, file)} imports ${path.relative(src, target)})`);
  }
  console.error(`folder cycle: ${[...cycle].sort().join(' ↔ ')}: ${steps.sort().join('; ')}`);
}
if (moduleCycles.length === 0 && folderCycles.length === 0)
  console.log(
    `no import cycles in ${modules.length} modules of src/, none between its ${folderGraph.size} folders and files`,
  );
else process.exitCode = 1;
