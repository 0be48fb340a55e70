// A support webhook receiver on loopback: records what it was sent, and fails on request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  url: string;
  /** `raw`: the body as sent, for verifying its signature. */
  received: { headers: http.IncomingHttpHeaders; body: any; raw: string }[];
  /** The next `count` deliveries are answered with `status`. */
  failNext(count: number, status?: number): void;
  waitFor(predicate: (bodies: any[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  let failures = 0;
  let failStatus = 500;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failures > 0) {
        failures--;
        res.writeHead(failStatus).end('not now');
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body: JSON.parse(raw), raw });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/support`,
    received,
    failNext(count, status = 500) {
      failures = count;
      failStatus = status;
    },
    async waitFor(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received.map((r) => r.body))) {
        if (Date.now() > deadline)
          throw new Error(
            `the webhook did not receive what was expected; got ${JSON.stringify(received.map((r) => r.body))}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
