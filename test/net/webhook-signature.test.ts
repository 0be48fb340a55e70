import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeaders } from '../../src/net/webhook-signature.ts';

describe('webhook signatures (Standard Webhooks)', () => {
  it('verify with the reference library, for each secret of a rotation, and not with another', () => {
    const [old, current, stranger] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    assert.match(current, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'msg_1', type: 'ping', data: {} });
    const headers = signatureHeaders([current, old], 'msg_1', new Date(), body);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(old).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(stranger).verify(body, headers), /No matching signature/);
    assert.throws(() => new Webhook(current).verify(`${body} `, headers), /No matching signature/);
  });

  it('refuses to sign without a secret', () => {
    assert.throws(() => signatureHeaders([], 'x', new Date(), '{}'));
  });
});
