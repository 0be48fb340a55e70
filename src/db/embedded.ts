// Starts and stops the PGlite worker thread that serves the embedded database.
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { codeFile } from '../code-dir.ts';
import { dataDirLayout, DataDirError } from './data-dir.ts';

export interface EmbeddedServer {
  stop(): Promise<void>;
}

type WorkerMessage = { type: 'ready' } | { type: 'failed'; message: string } | { type: 'closed'; message?: string };

function nextMessage(worker: Worker): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: WorkerMessage) => {
      cleanup();
      resolve(message);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`embedded database thread exited (${code})`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

export interface EmbeddedServerOptions {
  /** A connection idle this long in a transaction while others wait is ended (0: never). */
  idleInTransactionTimeoutMs?: number;
  /** PostgreSQL's shared_buffers for the embedded database, in MiB (PostgreSQL's default: 128). */
  sharedBuffersMb?: number;
}

export async function startEmbeddedServer(
  dataDir: string,
  options: EmbeddedServerOptions = {},
): Promise<EmbeddedServer> {
  const { pgData, socketPath, adminSocketPath } = dataDirLayout(dataDir);
  fs.mkdirSync(pgData, { recursive: true });
  // A socket file left by a process that was killed would make listen() fail; the caller holds
  // the data directory lock, so no live server owns it.
  fs.rmSync(socketPath, { force: true });
  fs.rmSync(adminSocketPath, { force: true });
  const worker = new Worker(codeFile('db', 'pglite-worker.mjs'), {
    // The database's data lives in WASM memory, not in this thread's JS heap, whose objects are
    // short-lived wrappers of protocol messages: a small young generation is enough and keeps
    // ~30 MiB off the idle RSS (measured: 294 → 245–266 MiB for the server process).
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
    workerData: {
      pgDataDir: pgData,
      socketPath,
      adminSocketPath,
      idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? 0,
      sharedBuffersMb: options.sharedBuffersMb ?? 16,
    },
  });
  const first = await nextMessage(worker);
  if (first.type !== 'ready') {
    await worker.terminate();
    throw new DataDirError(
      `embedded database in ${pgData} could not start: ${'message' in first ? first.message : first.type}`,
    );
  }
  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= (async () => {
        const closed = nextMessage(worker);
        worker.postMessage({ type: 'close' });
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
        } finally {
          clearTimeout(timer);
          await worker.terminate();
          fs.rmSync(socketPath, { force: true });
          fs.rmSync(adminSocketPath, { force: true });
        }
      })();
      return stopped;
    },
  };
}
