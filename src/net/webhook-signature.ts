// Webhook signatures per the Standard Webhooks specification, by its reference library
// (`standardwebhooks`): `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
// (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per secret, space-separated — two
// while a rotated secret's overlap lasts). Receivers verify with any Standard Webhooks library.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the specification's form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three signature headers of one delivery attempt, signed with every secret given. */
export function signatureHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: Date,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  if (secrets.length === 0) throw new Error('a webhook needs a secret to be signed');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' '),
  };
}
