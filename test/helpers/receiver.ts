// A webhook receiver on loopback (a true boundary: the receiver is the client's server): records
// every delivery, and answers as the test tells it — 200, a status, never, late, an endless body,
// a redirect.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; createdAt: string; data: any };
  at: number;
}

export type Behaviour =
  | { kind: 'ok' }
  | { kind: 'status'; status: number }
  | { kind: 'hang' }
  | { kind: 'late'; ms: number }
  | { kind: 'endless' }
  | { kind: 'redirect'; location: string };

export interface Receiver {
  url: string;
  hostPort: string;
  received: Received[];
  /** Every request, answered or not. */
  attempts: number;
  behave(next: Behaviour | ((n: number) => Behaviour)): void;
  close(): Promise<void>;
}

export async function startReceiver(initial: Behaviour = { kind: 'ok' }): Promise<Receiver> {
  let behaviour: (n: number) => Behaviour = () => initial;
  const received: Received[] = [];
  const open = new Set<http.ServerResponse>();
  let attempts = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      attempts++;
      const b = behaviour(attempts);
      const body = Buffer.concat(chunks).toString('utf8');
      const record = () => received.push({ headers: request.headers, body, json: JSON.parse(body), at: Date.now() });
      open.add(response);
      response.on('close', () => open.delete(response));
      switch (b.kind) {
        case 'ok':
          record();
          response.end('ok');
          break;
        case 'status':
          response.statusCode = b.status;
          response.end('no');
          break;
        case 'hang':
          break;
        case 'late':
          setTimeout(() => {
            record();
            response.end('ok');
          }, b.ms).unref();
          break;
        case 'endless': {
          record();
          response.writeHead(200, { 'content-type': 'text/plain' });
          const drip = setInterval(() => response.write('x'.repeat(1024)), 5);
          response.on('close', () => clearInterval(drip));
          break;
        }
        case 'redirect':
          response.writeHead(302, { location: b.location });
          response.end();
          break;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hostPort: `127.0.0.1:${port}`,
    received,
    get attempts() {
      return attempts;
    },
    behave(next) {
      behaviour = typeof next === 'function' ? next : () => next;
    },
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
