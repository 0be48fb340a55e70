// A TCP proxy on loopback that a reliability test puts between the server and a dependency
// (PostgreSQL, Redis) to play the network: pass traffic, freeze it (a partition: connections stay
// open, nothing moves), or cut it (every connection reset, new ones refused). It can also listen on
// and reach Unix sockets (the embedded database's socket), and tell when a statement is in flight:
// bytes went upstream and no answer has come back yet.
import { EventEmitter, once } from 'node:events';
import net from 'node:net';

export type ProxyMode = 'pass' | 'freeze' | 'down';

export interface TcpProxy {
  port: number;
  /** `host:port` of the proxy, for a URL (the socket's path when it listens on one). */
  address: string;
  mode: ProxyMode;
  setMode(mode: ProxyMode): void;
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

  const server = net.createServer((client) => {
    if (mode === 'down') {
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
  });

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

  await new Promise<void>((resolve) =>
    listenOn.path ? server.listen(listenOn.path, resolve) : server.listen(0, '127.0.0.1', resolve),
  );
  const port = listenOn.path ? 0 : (server.address() as net.AddressInfo).port;
  // A TCP connection is reset (RST), as a failing network or server does; a Unix socket has no RST, it is closed.
  const reset = (socket: net.Socket) => (listenOn.path ? socket.destroy() : socket.resetAndDestroy());
  const awaitingReply = () => [...pairs].filter((pair) => pair.awaiting).length;
  return {
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
      for (const pair of [...pairs]) {
        if (next === 'down') {
          reset(pair.client);
          pair.upstream.destroy();
          pairs.delete(pair);
        } else if (next === 'freeze' && previous === 'pass') freeze(pair);
        else if (next === 'pass' && previous === 'freeze') thaw(pair);
      }
    },
    async close() {
      mode = 'down';
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
