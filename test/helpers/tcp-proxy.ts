// A TCP proxy on loopback that a reliability test puts between the server and a dependency
// (PostgreSQL, Redis) to play the network: pass traffic, freeze it (a partition: connections stay
// open, nothing moves), or cut it (every connection reset, new ones refused).
import net from 'node:net';

export type ProxyMode = 'pass' | 'freeze' | 'down';

export interface TcpProxy {
  port: number;
  /** `host:port` of the proxy, for a URL. */
  address: string;
  mode: ProxyMode;
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let mode: ProxyMode = 'pass';

  const server = net.createServer((client) => {
    if (mode === 'down') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
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
  const freeze = (pair: { client: net.Socket; upstream: net.Socket }) => {
    pair.client.pause();
    pair.upstream.pause();
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
  };
  const thaw = (pair: { client: net.Socket; upstream: net.Socket }) => {
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    setMode(next: ProxyMode) {
      const previous = mode;
      mode = next;
      for (const pair of [...pairs]) {
        if (next === 'down') {
          pair.client.resetAndDestroy();
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
