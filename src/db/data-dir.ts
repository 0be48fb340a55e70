// The data directory: its layout, and the lock that makes one process its owner.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { explainDataDirFailure } from './start-failures.ts';

export const EMBEDDED_PORT = 5432;

export function dataDirLayout(dataDir: string) {
  return {
    pgData: path.join(dataDir, 'pgdata'),
    /** `pg` reaches a Unix socket as host = directory, port = the number in the file name. */
    socketDir: dataDir,
    socketPath: path.join(dataDir, `.s.PGSQL.${EMBEDDED_PORT}`),
    /** The running server's admin socket: `gatehouse backup` asks it for a consistent copy of the database. */
    adminSocketPath: path.join(dataDir, '.s.gatehouse'),
    lockFile: path.join(dataDir, 'gatehouse.lock'),
    keysDir: path.join(dataDir, 'keys'),
    blobsDir: path.join(dataDir, 'blobs'),
  };
}

export class DataDirError extends Error {
  override name = 'DataDirError';
}

export interface LockOwner {
  pid: number;
  command: string;
  startedAt: string;
}

/** Creates the directory and proves it writable, or says plainly why not. */
export function prepareDataDir(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    const probe = path.join(dataDir, `.write-test-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.rmSync(probe);
  } catch (error) {
    throw dataDirFailure(dataDir, error);
  }
  const { socketPath } = dataDirLayout(dataDir);
  if (Buffer.byteLength(socketPath) > 100) {
    throw new DataDirError(
      `DATA_DIR ${dataDir} is too long a path for the database socket (at most ~85 characters): choose a shorter DATA_DIR`,
    );
  }
}

/** The one-line refusal for a data directory the file system would not let this process use. */
function dataDirFailure(dataDir: string, error: unknown): DataDirError {
  // What stands where the directory should be: it, or the nearest parent that exists.
  let existing = dataDir;
  let stats: fs.Stats | undefined;
  for (;;) {
    try {
      stats = fs.statSync(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  return new DataDirError(
    explainDataDirFailure({
      code: (error as NodeJS.ErrnoException).code ?? 'error',
      dataDir,
      existing,
      existingIsDirectory: stats?.isDirectory() ?? true,
      uid: process.getuid?.() ?? null,
    }),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLockOwner(dataDir: string): LockOwner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(dataDirLayout(dataDir).lockFile, 'utf8')) as LockOwner;
    return owner.pid !== process.pid && isAlive(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data directory for this process. A directory held by a live process is refused;
 * a lock left by a process that died is taken over.
 */
export function lockDataDir(dataDir: string, command: string): { release(): void } {
  const { lockFile } = dataDirLayout(dataDir);
  const me: LockOwner = { pid: process.pid, command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, JSON.stringify(me), { flag: 'wx' });
      return {
        release() {
          try {
            const owner = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as LockOwner;
            if (owner.pid === process.pid) fs.rmSync(lockFile);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw dataDirFailure(dataDir, error);
      const owner = readLockOwner(dataDir);
      if (owner) {
        throw new DataDirError(
          `data directory ${dataDir} is in use by process ${owner.pid} (gatehouse ${owner.command}, since ${owner.startedAt}); stop it first or use another DATA_DIR`,
        );
      }
      fs.rmSync(lockFile, { force: true }); // stale: its owner is gone
    }
  }
  throw new DataDirError(`could not lock data directory ${dataDir}`);
}

/** True when a server is accepting connections on the embedded database socket. */
export function socketAccepts(socketPath: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
