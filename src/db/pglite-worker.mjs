// The embedded database: PGlite (PostgreSQL compiled to WASM) on its own thread, served over the
// PostgreSQL wire protocol on a Unix socket so that the service, its jobs and other `gatehouse`
// commands all talk to it with the ordinary `pg` driver. Plain .mjs: workers do not inherit the
// tsx loader on Node 20.
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const { pgDataDir, socketPath, idleInTransactionTimeoutMs = 0, sharedBuffersMb = 16 } = workerData;
let db;
let server;
try {
  db = await PGlite.create(pgDataDir, {
    // PGlite's own start parameters, plus the buffer pool's size (PostgreSQL's default 128 MB is
    // most of the idle memory of a small service).
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`],
  });
  server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 256 });
  keepStatementsTogether(server, db, { idleInTransactionTimeoutMs });
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
 *
 * Every connection is a session of the one backend, so named prepared statements and portals
 * would be shared by all of them: a second connection preparing the statement name another one
 * prepared failed with `prepared statement "…" already exists`. Each connection gets its own
 * namespace (namedStatements), as each has its own backend on a PostgreSQL server.
 *
 * A connection that keeps the queue (in a transaction, or in the middle of a message sequence)
 * and sends nothing holds every other connection. As PostgreSQL's
 * idle_in_transaction_session_timeout does, such a connection is ended (FATAL 25P03, its
 * transaction rolled back) once it has been idle for `idleInTransactionTimeoutMs` while others
 * wait.
 */
function keepStatementsTogether(server, db, { idleInTransactionTimeoutMs }) {
  const queue = server.queryQueue;
  const SYNC = 0x53;
  const QUERY = 0x51;
  const TERMINATE = 0x58;
  const names = namedStatements();
  let holder = null; // the handler whose message sequence is open
  let ownerIdleSince = 0; // when the handler that keeps the queue last finished a message
  let idleTimer = null;

  // The owner is idle while others wait: end it once it has been idle for the limit.
  const watchIdleOwner = (owner) => {
    clearTimeout(idleTimer);
    if (!(idleInTransactionTimeoutMs > 0)) return;
    const since = ownerIdleSince;
    idleTimer = setTimeout(
      () => {
        idleTimer = null;
        const stillOwner = holder === owner || (db.isInTransaction() && queue.lastHandlerId === owner);
        if (stillOwner && ownerIdleSince === since) endIdleConnection(server, owner);
      },
      Math.max(0, since + idleInTransactionTimeoutMs - Date.now()),
    );
  };

  queue.processQueue = async function processQueue() {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = db.isInTransaction() && this.lastHandlerId !== null ? this.lastHandlerId : holder;
        const index = owner === null ? 0 : this.queue.findIndex((item) => item.handlerId === owner);
        if (index === -1) {
          // Wait for the owner's next message.
          watchIdleOwner(owner);
          break;
        }
        const [item] = this.queue.splice(index, 1);
        // Not idle: a message is being served (the watch is set again at the next wait).
        clearTimeout(idleTimer);
        const type = item.message[0];
        holder = type === SYNC || type === QUERY || type === TERMINATE || type === 0 ? null : item.handlerId;
        let bytes = 0;
        try {
          const message = names.rewrite(item.message, item.handlerId);
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          item.reject(error);
          continue;
        } finally {
          ownerIdleSince = Date.now();
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
    // Its prepared statements go with it, as they would with its backend. Queued as one message
    // sequence of its own, so that it cannot land inside another connection's.
    for (const message of names.closeMessagesOf(handlerId)) {
      this.enqueue(handlerId, message, () => {}).catch(() => {});
    }
    await this.processQueue();
  };
}

/**
 * A namespace per connection for named prepared statements and portals: the names in Parse,
 * Bind, Describe, Close and Execute are prefixed with the connection's id (the unnamed ones are
 * left alone: a connection keeps the queue through its message sequence, so nobody else's can
 * come in between). The backend's answers carry no statement names, apart from the text of an
 * error. A connection's statements are remembered so that they can be closed when it goes away.
 */
function namedStatements() {
  const PARSE = 0x50;
  const BIND = 0x42;
  const DESCRIBE = 0x44;
  const CLOSE = 0x43;
  const EXECUTE = 0x45;
  const STATEMENT = 0x53; // 'S' in Describe and Close
  // PostgreSQL compares statement and portal names on their first NAMEDATALEN - 1 bytes.
  const MAX_NAME_BYTES = 63;
  const prepared = new Map(); // handler id → Set of its (namespaced) statement names, as latin1
  const ours = new WeakSet(); // messages made here, already namespaced

  const namespaced = (handlerId, name) => {
    const prefix = Buffer.from(`h${handlerId}_`);
    if (prefix.length + name.length <= MAX_NAME_BYTES) return Buffer.concat([prefix, name]);
    return Buffer.concat([prefix, Buffer.from(createHash('sha1').update(name).digest('hex'))]);
  };

  /** The [start, end) byte ranges of the names in a message, each with what it names. */
  const nameFields = (message) => {
    const stringAt = (start) => [start, message.indexOf(0, start)];
    switch (message[0]) {
      case PARSE:
        return [{ statement: true, range: stringAt(5) }];
      case BIND: {
        const portal = stringAt(5);
        return [
          { statement: false, range: portal },
          { statement: true, range: stringAt(portal[1] + 1) },
        ];
      }
      case EXECUTE:
        return [{ statement: false, range: stringAt(5) }];
      case DESCRIBE:
      case CLOSE:
        return [{ statement: message[5] === STATEMENT, range: stringAt(6) }];
      default:
        return [];
    }
  };

  return {
    rewrite(message, handlerId) {
      if (ours.has(message)) return message;
      const fields = nameFields(message);
      if (fields.every(({ range: [start, end] }) => end <= start)) return message;
      const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
      const parts = [];
      let at = 0;
      for (const { statement, range } of fields) {
        const [start, end] = range;
        if (end <= start) continue; // the unnamed statement or portal (or a malformed message: left to the backend)
        const name = namespaced(handlerId, bytes.subarray(start, end));
        parts.push(bytes.subarray(at, start), name);
        at = end;
        if (!statement) continue;
        const key = name.toString('latin1');
        if (message[0] === PARSE) {
          if (!prepared.has(handlerId)) prepared.set(handlerId, new Set());
          prepared.get(handlerId).add(key);
        } else if (message[0] === CLOSE) prepared.get(handlerId)?.delete(key);
      }
      parts.push(bytes.subarray(at));
      const rewritten = Buffer.concat(parts);
      rewritten.writeInt32BE(rewritten.length - 1, 1);
      return new Uint8Array(rewritten.buffer, rewritten.byteOffset, rewritten.length);
    },

    /** Close of each statement the connection prepared, then Sync; none when it prepared none. */
    closeMessagesOf(handlerId) {
      const statements = prepared.get(handlerId);
      prepared.delete(handlerId);
      if (!statements || statements.size === 0) return [];
      const messages = [...statements].map((key) => {
        const name = Buffer.from(key, 'latin1');
        const close = Buffer.alloc(1 + 4 + 1 + name.length + 1);
        close[0] = CLOSE;
        close.writeInt32BE(close.length - 1, 1);
        close[5] = STATEMENT;
        name.copy(close, 6);
        return new Uint8Array(close.buffer, close.byteOffset, close.length);
      });
      messages.push(new Uint8Array([0x53, 0, 0, 0, 4]));
      for (const message of messages) ours.add(message);
      return messages;
    },
  };
}

/** Ends a connection as PostgreSQL ends one idle in a transaction too long: FATAL 25P03, then close. */
function endIdleConnection(server, handlerId) {
  const handler = [...server.handlers].find((h) => h.handlerId === handlerId);
  if (!handler) return;
  const fields = ['SFATAL', 'VFATAL', 'C25P03', 'Mterminating connection due to idle-in-transaction timeout'];
  const body = Buffer.concat([...fields.map((f) => Buffer.from(`${f}\0`)), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header[0] = 0x45; // ErrorResponse
  header.writeInt32BE(body.length + 4, 1);
  handler.socket?.write(Buffer.concat([header, body]));
  // As a socket error does: the server forgets the handler, the handler rolls back and closes.
  handler.handleError(new Error('idle in transaction timeout'));
}
