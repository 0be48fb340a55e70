// The embedded database: PGlite (PostgreSQL compiled to WASM) on its own thread, served over the
// PostgreSQL wire protocol on a Unix socket so that the service, its jobs and other `gatehouse`
// commands all talk to it with the ordinary `pg` driver. Plain .mjs: workers do not inherit the
// tsx loader on Node 20.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const { pgDataDir, socketPath, adminSocketPath, idleInTransactionTimeoutMs = 0, sharedBuffersMb = 16 } = workerData;
let db;
let server;
let admin;
try {
  db = await PGlite.create(pgDataDir, {
    // PGlite's own start parameters, plus the buffer pool's size (PostgreSQL's default 128 MB is
    // most of the idle memory of a small service). pg_temp last in the search path: a socket
    // client's temporary table never hides the service's table of the same name (every
    // connection shares the one backend's temporary schema).
    startParams: [
      ...PGlite.defaultStartParams,
      '-c',
      `shared_buffers=${sharedBuffersMb}MB`,
      '-c',
      'search_path=public,pg_temp',
    ],
  });
  server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 256 });
  guardConnections(server);
  // The user every connection starts as (the socket asks for no password: all are this one).
  const bootUser = (await db.query('select session_user as user')).rows[0].user;
  const queue = keepStatementsTogether(server, db, { idleInTransactionTimeoutMs, bootUser });
  await server.start();
  if (adminSocketPath) admin = await serveSnapshots(adminSocketPath, queue);
  parentPort.postMessage({ type: 'ready' });
} catch (error) {
  parentPort.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}

parentPort.on('message', async (message) => {
  if (message?.type !== 'close') return;
  try {
    admin?.close();
    await server?.stop();
    // Closing PGlite runs a clean shutdown of the backend: the next start needs no recovery.
    await db?.close();
    parentPort.postMessage({ type: 'closed' });
  } catch (error) {
    parentPort.postMessage({ type: 'closed', message: error instanceof Error ? error.message : String(error) });
  }
});

const SYNC = 0x53;
const QUERY = 0x51;
const TERMINATE = 0x58;
const PARSE = 0x50;

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
function keepStatementsTogether(server, db, { idleInTransactionTimeoutMs, bootUser }) {
  const queue = server.queryQueue;
  const names = namedStatements();
  const sessions = separateSessions(db, bootUser);
  let holder = null; // the handler whose message sequence is open
  let ownerIdleSince = 0; // when the handler that keeps the queue last finished a message
  let idleTimer = null;
  const exclusive = []; // work that needs the backend to itself, between transactions (snapshots)

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
    if (this.processing || (this.queue.length === 0 && exclusive.length === 0)) return;
    this.processing = true;
    try {
      while (this.queue.length > 0 || exclusive.length > 0) {
        const owner = db.isInTransaction() && this.lastHandlerId !== null ? this.lastHandlerId : holder;
        if (owner === null && exclusive.length > 0) {
          // No transaction and no message sequence open: a consistent point for a snapshot.
          const { run, resolve, reject } = exclusive.shift();
          await this.db.runExclusive(run).then(resolve, reject);
          continue;
        }
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
        // The first message of a sequence outside a transaction: the backend may pass to another connection.
        if (owner === null) await this.db.runExclusive(() => sessions.enter(item.handlerId));
        holder = type === SYNC || type === QUERY || type === TERMINATE || type === 0 ? null : item.handlerId;
        sessions.read(item.handlerId, item.message);
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
          if (holder === null && !db.isInTransaction()) sessions.leave(item.handlerId);
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
    sessions.forget(handlerId);
    // Its prepared statements go with it, as they would with its backend. Queued as one message
    // sequence of its own, so that it cannot land inside another connection's.
    for (const message of names.closeMessagesOf(handlerId)) {
      this.enqueue(handlerId, message, () => {}).catch(() => {});
    }
    await this.processQueue();
  };
  return {
    /** Runs `run` with the backend to itself, at the next moment no transaction or message sequence is open. */
    exclusively(run) {
      return new Promise((resolve, reject) => {
        exclusive.push({ run, resolve, reject });
        queue.processQueue();
      });
    },
  };
}

/**
 * One session per connection. Every connection of the socket is a session of the one backend, so
 * a setting made by one — pg_dump's `set_config('search_path', '', false)`, a `SET ROLE` in psql
 * — reached every other: the service then could not find its tables (500 `relation
 * "applications" does not exist`) until a restart. Here the backend holds at most one
 * connection's changed settings at a time:
 *
 * - after a connection's message sequence, it is marked as having changed its session when it
 *   sent a statement that changes settings (SET, RESET, DISCARD, LOAD, set_config, DO, CALL: read
 *   from the text of its Query and Parse messages), or when the role, the session user or the
 *   search_path — what decides which tables a statement reaches and whether it may — differs from
 *   what it was (read from the backend itself, a few microseconds: this also sees a function that
 *   changes them);
 * - when the backend passes from such a connection to another, that connection's settings are
 *   read (pg_settings, the role, the session user) and kept, and the backend is reset (SET SESSION
 *   AUTHORIZATION to the original user, which also resets the role; RESET ALL); when it passes
 *   back, they are set again. The service's connections, which change nothing, cost nothing.
 */
function separateSessions(db, bootUser) {
  const mod = db.mod;
  const cString = (text) => mod.stringToNewUTF8(text);
  const SEARCH_PATH = cString('search_path');
  // What a statement's meaning depends on most: who runs it, and where its names are looked up.
  const fingerprint = () =>
    `${mod._GetUserId()}/${mod._GetSessionUserId()}/${mod.UTF8ToString(mod._GetConfigOption(SEARCH_PATH, false, false))}`;
  const clean = fingerprint();

  const saved = new Map(); // handler id → the settings it changed: [name, value][]
  const changed = new Set(); // connections that may have changed their session since it was last read
  let holds = null; // the connection whose settings the backend holds; null: the defaults
  let at = clean; // the fingerprint when the backend was last known to hold `holds`' settings

  const reset = async () => {
    await internalQuery(db, `SET SESSION AUTHORIZATION ${literal(bootUser)}; RESET ALL`);
    holds = null;
    at = fingerprint();
  };

  return {
    /** Before a connection's message sequence: the backend takes its settings. */
    async enter(handlerId) {
      if (holds === handlerId) return;
      if (holds !== null) {
        if (changed.delete(holds)) {
          const settings = await readSettings(db, bootUser);
          if (settings.length > 0) saved.set(holds, settings);
          else saved.delete(holds);
        }
        await reset();
      }
      const settings = saved.get(handlerId);
      if (!settings) return;
      for (const [name, value] of settings) {
        const statement =
          name === 'session_authorization'
            ? `SET SESSION AUTHORIZATION ${literal(value)}`
            : name === 'role'
              ? `SET ROLE ${literal(value)}`
              : `SELECT pg_catalog.set_config(${literal(name)}, ${literal(value)}, false)`;
        // One by one: a setting that cannot be set again (a role dropped since) leaves the others.
        await internalQuery(db, statement);
      }
      holds = handlerId;
      at = fingerprint();
    },
    /** Each message of a connection: does its text change the session? */
    read(handlerId, message) {
      if ((message[0] === QUERY || message[0] === PARSE) && changesSession(message)) changed.add(handlerId);
    },
    /** After a connection's message sequence, outside a transaction. */
    leave(handlerId) {
      const now = fingerprint();
      if (now !== at) changed.add(handlerId);
      if (changed.has(handlerId)) {
        holds = handlerId;
        at = now;
      }
    },
    /** The connection is gone: its settings go with it (the backend is reset at the next switch). */
    forget(handlerId) {
      saved.delete(handlerId);
      changed.delete(handlerId);
    },
  };
}

// A statement that changes the session's settings: SET (not SET LOCAL / TRANSACTION / CONSTRAINTS,
// which end with their transaction), RESET, DISCARD, LOAD, DO and CALL (their bodies may SET) at
// the start of a statement — after comments — and set_config anywhere.
const SESSION_STATEMENT =
  /(?:^|;)\s*(?:(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)\s*)*(?:set(?!\s+(?:local|transaction|constraints)\b)|reset|discard|load|do|call)\b|\bset_config\b/i;

/** The SQL text of a Query or Parse message. */
function statementText(message) {
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  let start = 5;
  if (message[0] === PARSE) start = bytes.indexOf(0, 5) + 1; // after the statement's name
  const end = bytes.indexOf(0, start);
  return bytes.toString('utf8', start, end === -1 ? bytes.length : end);
}

function changesSession(message) {
  return SESSION_STATEMENT.test(statementText(message));
}

/** A string literal whatever standard_conforming_strings says: E'…' with \ and ' escaped. */
function literal(text) {
  return `E'${String(text).replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** The settings this session changed, as [name, value] pairs to set again (the role and session user last). */
async function readSettings(db, bootUser) {
  const { rows } = await internalQuery(
    db,
    `select name, current_setting(name) from pg_catalog.pg_settings
       where source = 'session' and name not like 'transaction\\_%' and name not in ('role', 'session_authorization')
     union all select 'session_authorization', session_user where session_user <> ${literal(bootUser)}
     union all select 'role', current_setting('role') where current_setting('role') <> 'none'`,
  );
  return rows;
}

/**
 * A simple query of the worker's own, outside any connection's sequence; its answer read here
 * (text columns of its data rows, and whether it failed) and never sent to a client.
 */
async function internalQuery(db, sql) {
  const text = Buffer.from(`${sql}\0`);
  const message = Buffer.alloc(5 + text.length);
  message[0] = QUERY;
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  const chunks = [];
  // Streamed, with a callback of its own: PGlite keeps the last stream callback for the next raw
  // call, which would hand this answer to the last client served.
  let done = false;
  await db.execProtocolRawStream(new Uint8Array(message.buffer, message.byteOffset, message.length), {
    onRawData: (data) => {
      if (!done) chunks.push(Buffer.from(data));
    },
  });
  done = true;
  const answer = Buffer.concat(chunks);
  const rows = [];
  let error = null;
  for (let at = 0; at + 5 <= answer.length; ) {
    const type = answer[at];
    const length = answer.readInt32BE(at + 1);
    const body = answer.subarray(at + 5, at + 1 + length);
    if (type === 0x44) {
      const row = [];
      let offset = 2;
      for (let column = body.readInt16BE(0); column > 0; column--) {
        const size = body.readInt32BE(offset);
        offset += 4;
        row.push(size < 0 ? null : body.toString('utf8', offset, offset + size));
        offset += Math.max(size, 0);
      }
      rows.push(row);
    } else if (type === 0x45) error = body.toString('utf8');
    at += 1 + length;
  }
  return { rows, error };
}

/**
 * A namespace per connection for named prepared statements and portals: the names in Parse,
 * Bind, Describe, Close and Execute are prefixed with the connection's id (the unnamed ones are
 * left alone: a connection keeps the queue through its message sequence, so nobody else's can
 * come in between). The backend's answers carry no statement names, apart from the text of an
 * error. A connection's statements are remembered so that they can be closed when it goes away.
 */
function namedStatements() {
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

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3_0 = 196608;
/** The frontend messages of protocol 3.0 after the start-up that the engine serves. */
const SERVED = new Set([...'QPBEDCSHXF'].map((c) => c.charCodeAt(0)));
/** CopyData, CopyDone, CopyFail: outside a COPY FROM STDIN (which is refused) PostgreSQL ignores them too. */
const IGNORED = new Set([...'dcf'].map((c) => c.charCodeAt(0)));
// PostgreSQL's own bounds: a start-up packet of at most 10,000 bytes, a message under 1 GiB.
const MAX_STARTUP_BYTES = 10_000;
const MAX_MESSAGE_BYTES = 0x3fffffff;
const COPY_FROM_STDIN = /\bcopy\b[\s\S]*?\bfrom\s+stdin\b/i;

/**
 * What reaches the backend from a socket client. PGlite runs PostgreSQL's one backend in this
 * thread, so what would end one backend process on a server ends or stalls it for every
 * connection: an unknown message type (PostgreSQL's FATAL "invalid frontend message type") froze
 * the thread for good; COPY FROM STDIN (psql's \copy, a plain-format restore) read past the end of
 * its message, failed with FATAL "protocol synchronization was lost" and handed that error to
 * another connection; a replication start-up turns the one backend into a WAL sender; a start-up
 * in another protocol version, or bytes that are not the protocol at all, left the client waiting
 * for ever. Each is refused here, as PostgreSQL refuses what it does not serve — an error with a
 * SQLSTATE, then the connection closed (or, for COPY FROM STDIN, an error for that statement) —
 * and the backend never sees it.
 */
function guardConnections(server) {
  const handlers = server.handlers;
  const add = handlers.add.bind(handlers);
  // The server adds each new connection's handler here before it reads a byte of it.
  handlers.add = (handler) => {
    guard(handler);
    return add(handler);
  };
}

function guard(handler) {
  const handleData = handler.handleData.bind(handler);
  let started = false;
  let refused = false;
  let pending = Buffer.alloc(0);
  const refuse = (code, message) => {
    refused = true;
    pending = Buffer.alloc(0);
    endConnection(handler, code, message);
    return 0;
  };
  handler.handleData = (chunk) => {
    if (refused) return 0;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const passed = [];
    for (;;) {
      if (!started) {
        if (pending.length < 8) break;
        const length = pending.readInt32BE(0);
        const code = pending.readInt32BE(4);
        if (length < 8 || length > MAX_STARTUP_BYTES) return refuse('08P01', 'invalid length of startup packet');
        if (pending.length < length) break;
        const packet = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          // Not offered: the client goes on in the clear on the same connection (or gives up).
          handler.socket?.write(Buffer.from('N'));
          continue;
        }
        if (code === CANCEL_REQUEST) {
          // A statement here cannot be interrupted (one WASM thread); PostgreSQL closes such a connection at once.
          refused = true;
          handler.handleError(new Error('cancel request'));
          return 0;
        }
        if (code !== PROTOCOL_3_0) {
          return refuse(
            '0A000',
            `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}: the embedded database serves protocol 3.0`,
          );
        }
        const replication = startupParameter(packet, 'replication');
        if (replication !== null && !['false', 'off', 'no', '0'].includes(replication.toLowerCase())) {
          return refuse(
            '0A000',
            'the embedded database serves no replication connections (pg_basebackup, WAL streaming)',
          );
        }
        started = true;
        passed.push(packet);
        continue;
      }
      if (pending.length < 5) break;
      const type = pending[0];
      const length = pending.readInt32BE(1);
      if (!SERVED.has(type) && !IGNORED.has(type)) {
        return refuse('08P01', `invalid frontend message type ${type}: the embedded database does not serve it`);
      }
      if (length < 4 || length > MAX_MESSAGE_BYTES) return refuse('08P01', 'invalid message length');
      if (pending.length < 1 + length) break;
      const message = pending.subarray(0, 1 + length);
      pending = pending.subarray(1 + length);
      if (IGNORED.has(type)) continue;
      passed.push(
        (type === QUERY || type === PARSE) && COPY_FROM_STDIN.test(statementText(message))
          ? refusedCopy(message)
          : message,
      );
    }
    return passed.length > 0 ? handleData(Buffer.concat(passed)) : 0;
  };
}

/** A start-up packet's parameter (name and value pairs after the protocol version), or null. */
function startupParameter(packet, wanted) {
  const fields = packet.toString('utf8', 8).split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === wanted) return fields[i + 1];
  return null;
}

/**
 * The statement put in place of a COPY … FROM STDIN: it fails in the backend as that statement
 * would there (an error for the statement, its transaction aborted), without reading past its
 * message. A Parse keeps its name and parameter types.
 */
function refusedCopy(message) {
  const sql =
    "DO $gatehouse$ BEGIN RAISE EXCEPTION USING ERRCODE = 'feature_not_supported', " +
    "MESSAGE = 'COPY FROM STDIN is not served by the embedded database''s socket', " +
    "HINT = 'send the rows as INSERT statements (pg_dump --inserts), or use a PostgreSQL server'; END $gatehouse$";
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const head = message[0] === PARSE ? bytes.subarray(5, bytes.indexOf(0, 5) + 1) : Buffer.alloc(0);
  const tail = message[0] === PARSE ? bytes.subarray(bytes.indexOf(0, head.length + 5) + 1) : Buffer.alloc(0);
  const body = Buffer.concat([head, Buffer.from(`${sql}\0`), tail]);
  const rewritten = Buffer.alloc(5 + body.length);
  rewritten[0] = message[0];
  rewritten.writeInt32BE(4 + body.length, 1);
  body.copy(rewritten, 5);
  return rewritten;
}

/**
 * The admin socket: `gatehouse backup` asks the running server for a consistent copy of its
 * database here (one JSON line each way). At a moment when no transaction and no message sequence
 * is open, the backend is held, a CHECKPOINT writes every change into the data files, and the
 * data directory is copied into the folder the command made under the data directory; then the
 * backend serves again. The command archives the copy, the keys and the blobs while it serves.
 */
async function serveSnapshots(adminSocketPath, queue) {
  const dataDir = fs.realpathSync(path.dirname(adminSocketPath));
  const snapshot = async (target) => {
    // Only into a fresh folder of the backup command's, directly under this data directory.
    const resolved = fs.realpathSync(String(target));
    if (path.dirname(resolved) !== dataDir || !path.basename(resolved).startsWith('.backup-')) {
      throw new Error('a snapshot goes into a .backup-* folder of the data directory');
    }
    if (fs.readdirSync(resolved).length > 0) throw new Error(`${resolved} is not empty`);
    return queue.exclusively(async () => {
      const started = Date.now();
      const { error } = await internalQuery(db, 'CHECKPOINT');
      if (error) throw new Error(`CHECKPOINT failed: ${error}`);
      await fs.promises.cp(pgDataDir, path.join(resolved, 'pgdata'), { recursive: true });
      return { heldMs: Date.now() - started };
    });
  };
  const adminServer = net.createServer((socket) => {
    let request = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', async (text) => {
      request += text;
      const end = request.indexOf('\n');
      if (end === -1) return;
      let answer;
      try {
        const { snapshot: target } = JSON.parse(request.slice(0, end));
        answer = { ok: true, ...(await snapshot(target)) };
      } catch (error) {
        answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
      socket.end(`${JSON.stringify(answer)}\n`);
    });
  });
  fs.rmSync(adminSocketPath, { force: true });
  await new Promise((resolve, reject) => {
    adminServer.once('error', reject);
    adminServer.listen(adminSocketPath, resolve);
  });
  return { close: () => adminServer.close() };
}

/** Ends a connection as PostgreSQL ends one: ErrorResponse FATAL with the SQLSTATE, then close. */
function endConnection(handler, code, message) {
  const fields = ['SFATAL', 'VFATAL', `C${code}`, `M${message}`];
  const body = Buffer.concat([...fields.map((f) => Buffer.from(`${f}\0`)), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header[0] = 0x45; // ErrorResponse
  header.writeInt32BE(body.length + 4, 1);
  // As a socket error does: the server forgets the handler, the handler rolls back and closes —
  // once the answer has left (the handler destroys its socket, which drops what is not sent yet).
  const end = () => handler.handleError(new Error(message));
  if (handler.socket?.writable) handler.socket.write(Buffer.concat([header, body]), end);
  else end();
}

/** Ends a connection as PostgreSQL ends one idle in a transaction too long: FATAL 25P03, then close. */
function endIdleConnection(server, handlerId) {
  const handler = [...server.handlers].find((h) => h.handlerId === handlerId);
  if (handler) endConnection(handler, '25P03', 'terminating connection due to idle-in-transaction timeout');
}
