// The webhook receivers of the fleet-scale benchmark: real HTTP servers on loopback, each as a
// client runs one — read the body, verify the Standard Webhooks signature, record, answer 204.
// Recorded: when each event (by the key its sender put in `details`) first arrived, repeated
// events and repeated webhook-ids (exactly once), deliveries by type.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { count, now, type Tally } from './clock.ts';

export interface WebhookReceiver {
  url: string;
  /** Once subscribed: deliveries are verified with the subscription's secret (before, refused). */
  verifyWith(secret: string): void;
  /** Event key → epoch ms of its first arrival. */
  arrivals: Map<string, number>;
  /** Events that arrived again (another delivery, or twice in one). */
  duplicateEvents: number;
  /** Deliveries whose webhook-id had come before. */
  duplicateDeliveries: number;
  /** Epoch ms of each delivery. */
  deliveredAt: number[];
  byType: Tally;
  rejected: number;
  close(): Promise<void>;
}

interface Delivery {
  type: string;
  data: { events?: { details?: string }[] };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const webhookIds = new Set<string>();
  let verifier: Webhook | null = null;
  const receiver: WebhookReceiver = {
    url: '',
    verifyWith(secret) {
      verifier = new Webhook(secret);
    },
    arrivals: new Map(),
    duplicateEvents: 0,
    duplicateDeliveries: 0,
    deliveredAt: [],
    byType: {},
    rejected: 0,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      const body = Buffer.concat(chunks).toString('utf8');
      let delivery: Delivery;
      try {
        if (!verifier) throw new Error('not subscribed yet');
        delivery = verifier.verify(body, req.headers as Record<string, string>) as Delivery;
      } catch {
        receiver.rejected++;
        res.statusCode = 400;
        res.end();
        return;
      }
      const webhookId = String(req.headers['webhook-id']);
      if (webhookIds.has(webhookId)) receiver.duplicateDeliveries++;
      webhookIds.add(webhookId);
      receiver.deliveredAt.push(at);
      count(receiver.byType, delivery.type);
      for (const event of delivery.data.events ?? []) {
        const key = event.details ?? '';
        if (receiver.arrivals.has(key)) receiver.duplicateEvents++;
        else receiver.arrivals.set(key, at);
      }
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
