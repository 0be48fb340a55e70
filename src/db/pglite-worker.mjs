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
  keepStatementsTogether(server.queryQueue, db);
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

/**
 * pglite-socket (0.2.17) puts the wire-protocol messages of every connection in one queue and
 * keeps a connection's messages together only inside an explicit transaction. An extended-
 * protocol query outside one (Parse, Bind, Execute, Sync: what `pg` sends for every query with
 * parameters) could be interleaved with another connection's messages: one connection's unnamed
 * statement replaced by another's (the wrong rows, or another statement run again), or another
 * connection's BEGIN landing inside it (a hang). Here a connection keeps the queue from its first
 * message until the end of its message sequence (Sync, a simple Query, Terminate), and, as
 * before, until the end of its transaction. A failed message no longer stops the queue for good.
 */
function keepStatementsTogether(queue, db) {
  const SYNC = 0x53;
  const QUERY = 0x51;
  const TERMINATE = 0x58;
  let holder = null; // the handler whose message sequence is open
  queue.processQueue = async function processQueue() {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = db.isInTransaction() && this.lastHandlerId !== null ? this.lastHandlerId : holder;
        const index = owner === null ? 0 : this.queue.findIndex((item) => item.handlerId === owner);
        if (index === -1) break; // wait for the owner's next message
        const [item] = this.queue.splice(index, 1);
        const type = item.message[0];
        holder = type === SYNC || type === QUERY || type === TERMINATE || type === 0 ? null : item.handlerId;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          item.reject(error);
          continue;
        }
        this.lastHandlerId = item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };
  const clearTransaction = queue.clearTransactionIfNeeded.bind(queue);
  queue.clearTransactionIfNeeded = async function clearTransactionIfNeeded(handlerId) {
    if (holder === handlerId) {
      // The connection went away in the middle of a message sequence: end it for it.
      holder = null;
      await db.runExclusive(() => db.execProtocolRaw(new Uint8Array([SYNC, 0, 0, 0, 4]))).catch(() => {});
    }
    await clearTransaction(handlerId);
    await this.processQueue();
  };
}
