// Where the service's own files are. Run from the sources, this module is src/code-dir.ts; run from
// the build, it is part of a file at dist/'s top level (scripts/build.mjs bundles every module into
// files there, and copies the other files of src/ into the same tree). So the directory of this
// module is src/ or dist/, the project's root is its parent, and a file beside the code (a migration,
// the database's worker, the console's page) is found under it the same way in both.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** src/ or dist/: the code that runs. */
export const codeDir = path.dirname(fileURLToPath(import.meta.url));

/** The project's root: package.json, .cache/. */
export const projectRoot = path.dirname(codeDir);

/** A file that sits beside the code, by its path under src/ (`db/migrations`). */
export function codeFile(...parts: string[]): string {
  return path.join(codeDir, ...parts);
}

/** The version in package.json. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
