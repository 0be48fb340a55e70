// The embedded database: PGlite (PostgreSQL compiled to WASM) on its own thread, served over the
// PostgreSQL wire protocol on a Unix socket so that the service, its jobs and other `gatehouse`
// commands all talk to it with the ordinary `pg` driver. Plain .mjs: workers do not inherit the
// tsx loader on Node 20.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const { pgDataDir, socketPath } = workerData;
let db;
let server;
try {
  db = await PGlite.create(pgDataDir);
  server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 256 });
  await server.start();
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}

parentPort.on('message', async (message) => {
  if (message?.type !== 'close') return;
  try {
    await server?.stop();
    // Closing PGlite runs a clean shutdown of the backend: the next start needs no recovery.
    await db?.close();
    parentPort.postMessage({ type: 'closed' });
  } catch (error) {
    parentPort.postMessage({ type: 'closed', message: error instanceof Error ? error.message : String(error) });
  }
});
