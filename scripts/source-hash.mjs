// The hash of the sources that dist/ is built from (every file under src/ and the typed client's
// code beside it, clients/typescript/*.ts, by path and content, and the build's own format): scripts/build.mjs records it in dist/SOURCE_HASH, bin/gatehouse
// compares it before running dist/. Reading and hashing src/ takes a few milliseconds.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SOURCE_HASH_FILE = 'SOURCE_HASH';
/** Bump when the build's output changes shape: an older dist/ is then not run. */
const BUILD_FORMAT = 'esbuild-bundle-1';

export function sourceHash(srcDir) {
  const hash = createHash('sha256').update(BUILD_FORMAT);
  const walk = (dir, include = () => true) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full, include);
      else if (entry.isFile() && include(entry.name)) {
        hash.update(`\0${path.relative(srcDir, full)}\0`);
        hash.update(fs.readFileSync(full));
      }
    }
  };
  walk(srcDir);
  // The client's code is bundled into dist/ (its generated types are not: they leave no code).
  const clientDir = path.join(path.dirname(srcDir), 'clients', 'typescript');
  if (fs.existsSync(clientDir)) walk(clientDir, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
  return hash.digest('hex');
}

/** True when distDir holds a build of srcDir as it is now. */
export function distIsCurrent(srcDir, distDir) {
  try {
    const recorded = fs.readFileSync(path.join(distDir, SOURCE_HASH_FILE), 'utf8').trim();
    return recorded === sourceHash(srcDir);
  } catch {
    return false;
  }
}
