// `gatehouse backup <file>` and `gatehouse restore <file>`: the embedded data directory — its
// database, its keys (token signing keys, the gate-code key) and its blobs — as one archive
// (archive.ts), and back. While a server runs on the directory, the database is a snapshot that
// server takes between two transactions (its admin socket, pglite-worker.mjs); otherwise the
// directory is copied under its lock, so that no server starts meanwhile. With DATABASE_URL the
// database lives on PostgreSQL: pg_dump and pg_restore (docs/OPERATIONS.md, "Backups").
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Command } from 'commander';
import { packageVersion } from '../code-dir.ts';
import { loadConfig } from '../config.ts';
import { dataDirLayout, lockDataDir, prepareDataDir, readLockOwner, socketAccepts } from '../db/data-dir.ts';
import {
  ArchiveError,
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  extractArchive,
  listTree,
  type Manifest,
  writeArchive,
} from './archive.ts';
import { CliError, printJson, requireServiceData, tell } from './support.ts';

/** What a data directory holds that a backup keeps, as named in the archive. */
const CONTENTS = ['pgdata', 'keys', 'blobs'] as const;

const examples = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;

function refuseDatabaseUrl(command: string, instead: string): void {
  if (loadConfig().databaseUrl) {
    throw new CliError(
      `gatehouse ${command} is for the embedded database's data directory; with DATABASE_URL the database is on PostgreSQL: ${instead} (docs/OPERATIONS.md, "Backups")`,
    );
  }
}

/** Asks the running server for a snapshot of its database into `folder`; answers how long it held the database. */
function askSnapshot(adminSocketPath: string, folder: string): Promise<{ heldMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(adminSocketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ snapshot: folder })}\n`));
    socket.on('data', (text) => (answer += text));
    socket.on('error', (error) => reject(new CliError(`the running server's admin socket failed: ${error.message}`)));
    socket.on('close', () => {
      try {
        const parsed = JSON.parse(answer) as { ok: boolean; heldMs?: number; error?: string };
        if (parsed.ok) resolve({ heldMs: parsed.heldMs ?? 0 });
        else reject(new CliError(`the running server could not take a snapshot: ${parsed.error}`));
      } catch {
        reject(new CliError('the running server closed its admin socket without an answer'));
      }
    });
  });
}

/** Staging folders of backups whose process is gone (killed mid-way): they hold only copies. */
function removeAbandonedStaging(dataDir: string): void {
  for (const name of fs.readdirSync(dataDir)) {
    const match = /^\.backup-(\d+)-/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    let alive = pid === process.pid;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch (error) {
      alive ||= (error as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (!alive) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
  }
}

export async function backup(file: string, options: { force?: boolean }): Promise<void> {
  refuseDatabaseUrl('backup', 'back it up with pg_dump -Fc, and DATA_DIR/keys and the blob store beside it');
  const config = loadConfig();
  requireServiceData(config);
  const dataDir = config.dataDir;
  const layout = dataDirLayout(dataDir);
  const target = path.resolve(file);
  if (fs.existsSync(target) && !options.force)
    throw new CliError(`${target} exists: name a new file, or add --force to replace it`);
  if (!fs.existsSync(path.dirname(target))) throw new CliError(`${path.dirname(target)} does not exist`);
  const createdAt = new Date().toISOString();
  const base = { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, createdAt, gatehouse: packageVersion() } as const;
  const keysAndBlobs = () => [...listTree(layout.keysDir, 'keys'), ...listTree(layout.blobsDir, 'blobs')];
  /** What the command answers: the archive written, and how long the server's database was held for it. */
  const written = (manifest: Manifest, heldMs: number) =>
    printJson({
      file: target,
      dataDir,
      createdAt,
      snapshot: manifest.snapshot,
      heldMs,
      files: manifest.files,
      bytes: manifest.bytes,
      archiveBytes: fs.statSync(target).size,
    });

  const server = readLockOwner(dataDir);
  if (server) {
    if (!(await socketAccepts(layout.adminSocketPath)))
      throw new CliError(
        `data directory ${dataDir} is in use by process ${server.pid} (gatehouse ${server.command}), which takes no snapshots: stop it, or try again once it has finished`,
      );
    tell(`database: embedded, data directory ${dataDir} (a snapshot from the running server, process ${server.pid})`);
    removeAbandonedStaging(dataDir);
    const staging = fs.mkdtempSync(path.join(dataDir, `.backup-${process.pid}-`));
    try {
      const { heldMs } = await askSnapshot(layout.adminSocketPath, staging);
      // The blobs after the database: every blob a row of the snapshot names was stored before that row.
      const items = [...listTree(path.join(staging, 'pgdata'), 'pgdata'), ...keysAndBlobs()];
      const manifest = await writeArchive(
        target,
        { ...base, database: 'embedded', snapshot: `running server (process ${server.pid})` },
        items,
      );
      written(manifest, heldMs);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    return;
  }
  // No server: the directory as it is, under its lock (a server that starts meanwhile is refused).
  const lock = lockDataDir(dataDir, 'backup');
  try {
    tell(`database: embedded, data directory ${dataDir}`);
    const items = [...listTree(layout.pgData, 'pgdata'), ...keysAndBlobs()];
    const manifest = await writeArchive(
      target,
      { ...base, database: 'embedded', snapshot: 'stopped data directory' },
      items,
    );
    written(manifest, 0);
  } finally {
    lock.release();
  }
}

export async function restore(file: string, options: { force?: boolean }): Promise<void> {
  refuseDatabaseUrl('restore', 'restore it with pg_restore, and DATA_DIR/keys and the blob store beside it');
  const config = loadConfig();
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new CliError(`${source} does not exist`);
  const dataDir = config.dataDir;
  prepareDataDir(dataDir);
  // Refuses a directory a server (or another command) uses, and keeps one from starting meanwhile.
  const lock = lockDataDir(dataDir, 'restore');
  try {
    const { lockFile } = dataDirLayout(dataDir);
    const present = fs.readdirSync(dataDir).filter((name) => name !== path.basename(lockFile));
    if (present.length > 0 && !options.force) {
      throw new CliError(
        `${dataDir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): restore into a new or empty directory, or add --force to replace what it holds`,
      );
    }
    tell(`restoring ${source} into data directory ${dataDir}`);
    const staging = fs.mkdtempSync(path.join(dataDir, '.restore-'));
    try {
      let manifest: Awaited<ReturnType<typeof extractArchive>>;
      try {
        manifest = await extractArchive(source, staging);
      } catch (error) {
        if (!(error instanceof ArchiveError)) throw error;
        throw new CliError(
          error.foreign
            ? `${source} is not a Gatehouse backup (${error.message}); nothing was restored`
            : `${source} cannot be restored: ${error.message}; nothing was restored`,
        );
      }
      // Only now, with the whole archive read and checked, is what the directory held replaced.
      for (const name of present) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
      for (const name of CONTENTS) {
        if (fs.existsSync(path.join(staging, name))) fs.renameSync(path.join(staging, name), path.join(dataDir, name));
      }
      printJson({
        file: source,
        dataDir,
        createdAt: manifest.createdAt,
        snapshot: manifest.snapshot,
        files: manifest.files,
        bytes: manifest.bytes,
      });
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  } finally {
    lock.release();
  }
}

export function backupCommand(): Command {
  return new Command('backup')
    .description('Archive the embedded data directory (database, keys, blobs) into one .tar.gz file, while it serves.')
    .argument('<file>', 'the archive to write (a .tar.gz)')
    .option('--force', 'replace the file if it exists')
    .action(backup)
    .addHelpText(
      'after',
      `
While a server runs on the data directory, it takes the database's snapshot between two
transactions (it holds its database for the copy: about a second per GB); otherwise the directory
is archived under its lock. Prints one JSON object; \`gatehouse restore\` puts it back. With
DATABASE_URL use pg_dump instead (docs/OPERATIONS.md, "Backups").
${examples(
  'gatehouse --data-dir /var/lib/gatehouse backup /backups/gatehouse-$(date +%F).tar.gz',
  'tar -tzvf /backups/gatehouse-2026-11-27.tar.gz | head            # what it holds',
)}`,
    );
}

export function restoreCommand(): Command {
  return new Command('restore')
    .description('Restore a `gatehouse backup` archive into a new or empty data directory.')
    .argument('<file>', 'an archive written by gatehouse backup')
    .option('--force', 'replace what the data directory holds (never one a running server uses)')
    .action(restore)
    .addHelpText(
      'after',
      `
The whole archive is read and checked (its manifest, every header, gzip's checksum, the counts)
before anything in the data directory is replaced. A directory in use by a server is refused;
a non-empty one too, unless --force. Then start the server on it.
${examples(
  'gatehouse --data-dir /var/lib/gatehouse-restored restore /backups/gatehouse-2026-11-27.tar.gz',
  'gatehouse --data-dir /var/lib/gatehouse restore --force /backups/gatehouse-2026-11-27.tar.gz   # server stopped',
)}`,
    );
}
