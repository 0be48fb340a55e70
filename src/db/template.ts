// Prepared templates of the embedded database. A new PGlite data directory costs an `initdb` in
// WASM (~5 s here) plus every migration; instead, a fresh DATA_DIR/pgdata is a copy of a template
// kept in the project's .cache/ (git-ignored):
//   base-<PGlite version>   the cluster right after initdb
//   prepared-<hash>         base + this version's migrations + the job queue's schema, keyed by a
//                           hash of PGlite's and pg-boss's versions and of the migration files, so
//                           that a new or changed migration makes a new template.
// A template holds no secret: the signing keys, the gate-code key and the cursor key are made per
// data directory at its first start (in DATA_DIR/keys and by the faces, after the copy).
// Templates are built in a temporary directory and renamed into place, never changed after: a
// process copying one never sees it half-written, and two first starts at once each build theirs,
// the second rename loses and uses the first one's.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { projectRoot } from '../code-dir.ts';
import { EMBEDDED_PORT } from './data-dir.ts';
import { startEmbeddedServer } from './embedded.ts';
import { migrate, readMigrations, type Migration } from './migrate.ts';

const FORMAT = 'template-1';
export const TEMPLATE_CACHE = path.join(projectRoot, '.cache', 'pglite');

/** A data directory's cluster exists (PostgreSQL writes PG_VERSION first). */
export function hasCluster(pgData: string): boolean {
  return fs.existsSync(path.join(pgData, 'PG_VERSION'));
}

function packageVersion(name: string): string {
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json for ${name}`);
    dir = up;
  }
}

export interface TemplateKeys {
  base: string;
  prepared: string;
}

export function templateKeys(migrations: Migration[] = readMigrations()): TemplateKeys {
  const pglite = packageVersion('@electric-sql/pglite');
  const hash = createHash('sha256').update(`${FORMAT}\0${pglite}\0${packageVersion('pg-boss')}`);
  for (const m of migrations) hash.update(`\0${m.version}\0${m.name}\0${m.checksum}`);
  return { base: `base-${pglite}`, prepared: `prepared-${hash.digest('hex').slice(0, 16)}` };
}

/**
 * Copies a directory into place under `target` atomically (a temporary sibling, then a rename).
 * Asynchronous (the copy of ~1,200 files runs on libuv's threads): the server loads its modules
 * meanwhile. Copy-on-write where the filesystem can.
 */
async function copyInto(source: string, target: string): Promise<void> {
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fs.promises.cp(source, tmp, { recursive: true, mode: fs.constants.COPYFILE_FICLONE });
    try {
      fs.renameSync(tmp, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another process put its copy there first: same key, same content.
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && hasCluster(target)) return;
      throw error;
    }
  } finally {
    await fs.promises.rm(tmp, { recursive: true, force: true });
  }
}

/** What a template holds beyond initdb: the migrations and the job queue's schema. */
async function applySchema(pool: pg.Pool): Promise<void> {
  const result = await migrate(pool);
  if (result.changed.length > 0) throw new Error(`migrations changed: ${result.changed.join(', ')}`);
  const { installJobSchema } = await import('../jobs/queue.ts');
  await installJobSchema(pool);
}

/**
 * The prepared template's pgdata for this version, built (once) when missing: from the base
 * template when there is one, otherwise from an initdb, which is then kept as the base.
 */
export async function preparedTemplate(cacheDir: string = TEMPLATE_CACHE): Promise<string> {
  const keys = templateKeys();
  const prepared = path.join(cacheDir, keys.prepared);
  if (hasCluster(prepared)) return prepared;
  fs.mkdirSync(cacheDir, { recursive: true });
  const base = path.join(cacheDir, keys.base);
  // Built under the system's temporary directory: the database socket's path must stay short.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-tpl-'));
  const pgData = path.join(work, 'pgdata');
  try {
    if (hasCluster(base)) await fs.promises.cp(base, pgData, { recursive: true, mode: fs.constants.COPYFILE_FICLONE });
    else {
      // initdb, then a clean shutdown: the base is the cluster as initdb leaves it.
      await (await startEmbeddedServer(work)).stop();
      await copyInto(pgData, base);
    }
    const server = await startEmbeddedServer(work);
    try {
      const { default: pgModule } = await import('pg');
      const pool = new pgModule.Pool({
        host: work,
        port: EMBEDDED_PORT,
        user: 'postgres',
        database: 'postgres',
        max: 2,
      });
      try {
        await applySchema(pool);
      } finally {
        await pool.end();
      }
    } finally {
      await server.stop();
    }
    await copyInto(pgData, prepared);
    return prepared;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Makes `pgData` (which holds no cluster) a copy of the template, atomically. */
export async function seedFromTemplate(template: string, pgData: string): Promise<void> {
  // An empty directory left by an earlier attempt is replaced; anything else is not touched.
  if (fs.existsSync(pgData)) {
    if (fs.readdirSync(pgData).length > 0) throw new Error(`${pgData} is not empty`);
    fs.rmdirSync(pgData);
  }
  await copyInto(template, pgData);
}
