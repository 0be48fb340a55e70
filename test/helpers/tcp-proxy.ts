// A TCP proxy on loopback that a reliability test puts between the server and a dependency
// (PostgreSQL, Redis) to play the network: pass traffic, freeze it (a partition: connections stay
// open, nothing moves), cut it (every connection reset, new ones accepted and reset at once), or
// take the dependency away (every connection reset and nothing listening: a new one is refused,
// ECONNREFUSED, as when the database server stops, restarts or fails over) — for a given time with
// `cutFor`. It can also listen on and reach Unix sockets (the embedded database's socket), and tell
// when a statement is in flight: bytes went upstream and no answer has come back yet.
import { EventEmitter, once } from 'node:events';
import net from 'node:net';

/**
 * `down`: every connection reset, a new one accepted and reset at once (a proxy or balancer in front
 * of a dead server). `refuse`: every connection reset, and nothing listens, so that a new one is
 * refused (the server itself stopped, restarting, or failed over); any other mode listens again.
 */
export type ProxyMode = 'pass' | 'freeze' | 'down' | 'refuse';

export interface TcpProxy {
  port: number;
  /** `host:port` of the proxy, for a URL (the socket's path when it listens on one). */
  address: string;
  mode: ProxyMode;
  setMode(mode: ProxyMode): void;
  /**
   * An outage of `ms`: every connection cut at once and new ones refused (mode `refuse`), then
   * traffic passes again. Resolves with when it began and when the proxy listened again.
   */
  cutFor(ms: number): Promise<{ cutAt: number; backAt: number }>;
  /** Connections relayed now. */
  readonly connections: number;
  /** Connections that sent bytes upstream and have had no answer yet (a statement in flight). */
  readonly awaitingReply: number;
  /** Resolves once a connection has sent bytes upstream that are not answered yet (at once if one has). */
  whenAwaitingReply(): Promise<void>;
  close(): Promise<void>;
}

type Target = { host: string; port: number } | { path: string };

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  awaiting: boolean;
}

export async function startTcpProxy(target: Target, listenOn: { path?: string } = {}): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const signals = new EventEmitter();
  let mode: ProxyMode = 'pass';

  const relay = (client: net.Socket) => {
    if (mode === 'down' || mode === 'refuse') {
      reset(client);
      return;
    }
    const upstream = 'path' in target ? net.connect(target.path) : net.connect(target.port, target.host);
    const pair: Pair = { client, upstream, awaiting: false };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('data', () => {
      pair.awaiting = true;
      signals.emit('awaiting');
    });
    upstream.on('data', () => {
      pair.awaiting = false;
    });
    if (mode === 'freeze') freeze(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  };

  // A frozen pair stops reading on both sides: bytes sit in kernel buffers, as on a partition.
  const freeze = (pair: Pair) => {
    pair.client.pause();
    pair.upstream.pause();
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
  };
  const thaw = (pair: Pair) => {
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };

  // A listener of its own for each time the proxy listens (`refuse` closes it), on the same address.
  const listen = (port: number) =>
    new Promise<net.Server>((resolve, reject) => {
      const listener = net.createServer(relay);
      listener.once('error', reject);
      const listening = () => {
        listener.off('error', reject);
        resolve(listener);
      };
      if (listenOn.path) listener.listen(listenOn.path, listening);
      else listener.listen(port, '127.0.0.1', listening);
    });
  let server = await listen(0);
  const port = listenOn.path ? 0 : (server.address() as net.AddressInfo).port;
  /** The listener coming back after `refuse`: what `cutFor` and `close` wait for. */
  let relistening: Promise<void> = Promise.resolve();
  const stopListening = () => {
    const closing = server;
    relistening = relistening.then(() => new Promise<void>((resolve) => closing.close(() => resolve())));
  };
  const listenAgain = () => {
    relistening = relistening.then(async () => {
      server = await listen(port);
    });
  };
  // A TCP connection is reset (RST), as a failing network or server does; a Unix socket has no RST, it is closed.
  const reset = (socket: net.Socket) => (listenOn.path ? socket.destroy() : socket.resetAndDestroy());
  const awaitingReply = () => [...pairs].filter((pair) => pair.awaiting).length;
  const proxy: TcpProxy = {
    port,
    address: listenOn.path ?? `127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    get connections() {
      return pairs.size;
    },
    get awaitingReply() {
      return awaitingReply();
    },
    async whenAwaitingReply() {
      while (awaitingReply() === 0) await once(signals, 'awaiting');
    },
    setMode(next: ProxyMode) {
      const previous = mode;
      mode = next;
      if (next === 'refuse' && previous !== 'refuse') stopListening();
      if (previous === 'refuse' && next !== 'refuse') listenAgain();
      for (const pair of [...pairs]) {
        if (next === 'down' || next === 'refuse') {
          reset(pair.client);
          pair.upstream.destroy();
          pairs.delete(pair);
        } else if (next === 'freeze' && previous === 'pass') freeze(pair);
        else if (next === 'pass' && previous === 'freeze') thaw(pair);
      }
    },
    async cutFor(ms: number) {
      const cutAt = Date.now();
      proxy.setMode('refuse');
      await relistening;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, cutAt + ms - Date.now())));
      proxy.setMode('pass');
      await relistening;
      return { cutAt, backAt: Date.now() };
    },
    async close() {
      const previous = mode;
      mode = 'down';
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await relistening;
      if (previous !== 'refuse') await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
