// How long a live stream lives, over real HTTP: no longer than what opened it. Revoking its account
// key or its application over the admin API ends it within the revocation window (5 s), with a final
// `end` event saying why and nothing after it; its token's expiry ends it too (the service's clock
// moved, not waited for). And one credential holds at most EVENT_STREAMS_PER_CREDENTIAL (20) streams
// at once: the 21st is refused with 429, and a stream that closes frees its place.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RECHECK_MS } from '../../src/auth/credential-status.ts';
import { credentialKey } from '../../src/http/caller.ts';
import { provisionReportingAccount, type StreamingApp, startStreamingApp } from '../helpers/events.ts';
import { ManualClock } from '../helpers/harness.ts';
import { bearer, operatorToken, provisionAccount, requestToken, type ProvisionedAccount } from '../helpers/tenants.ts';
import { event, postEvents } from './helpers.ts';
import type { SseStream } from './sse-client.ts';

const clock = new ManualClock();
let t: StreamingApp;
let operator: string;

/** Checks of the open streams' credentials so far. */
let checks = 0;

before(async () => {
  t = await startStreamingApp({ clock });
  const { credentials } = t.services.auth;
  const revokedAmong = credentials.revokedAmong.bind(credentials);
  credentials.revokedAmong = async (keys) => {
    checks++;
    return revokedAmong(keys);
  };
  operator = await operatorToken(t);
});
after(() => t.close());

const stream = (account: ProvisionedAccount, token = account.token, headers: Record<string, string> = {}) =>
  t.openStream(`${t.base}/gatewayevents/accounts/${account.accountId}/stream`, token, headers);

async function opened(s: SseStream) {
  assert.equal(s.status, 200, s.body);
  await s.waitFor(() => s.comments().includes('stream open'), 5000, 'the opening comment');
}

async function adminPost(url: string) {
  const response = await t.app.inject({ method: 'POST', url, headers: bearer(operator), payload: {} });
  assert.equal(response.statusCode, 200, response.body);
}

/** The stream's credential, as the streams count it: the account key behind the token. */
async function credentialOf(token: string): Promise<string> {
  const principal = await t.services.auth.tokens.verify(token);
  return credentialKey(principal);
}

/**
 * Revokes with `revoke`, storing an event for the account every 100 ms meanwhile; returns when the
 * stream has ended, with the moments (ms after the revocation call began) of the frames after it.
 */
async function revokeWhileStoring(s: SseStream, gateway: string, revoke: () => Promise<void>) {
  const framesBefore = s.frames.length;
  const startedAt = Date.now();
  let storing = true;
  let stored = 0;
  const producer = (async () => {
    while (storing) {
      const answer = await postEvents(t, gateway, [event({ details: `after-revocation-${stored}` }, 0)]);
      assert.equal(answer.status, 200);
      stored++;
      await new Promise<void>((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    await revoke();
    await Promise.race([
      s.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end within 10 s')), 10_000)),
    ]);
  } finally {
    storing = false;
    await producer;
  }
  const later = s.frames.slice(framesBefore).map((frame) => ({ ...frame, after: frame.at! - startedAt }));
  return { later, stored };
}

describe('a live stream ends with its credential', () => {
  it('ends within the revocation window when its account key is revoked: a final end event, nothing after it', async () => {
    const acme = await provisionReportingAccount(t, { facilities: 1 });
    const gateway = acme.gateways[0]!;
    const s = await stream(acme);
    await opened(s);
    await postEvents(t, gateway, [event({ details: 'before-revocation' })]);
    await s.waitForEvents(1);
    const { later, stored } = await revokeWhileStoring(s, gateway, () =>
      adminPost(`/admin/account-keys/${acme.key.apiKey}/revoke`),
    );
    assert.ok(stored >= 1, 'events were stored after the revocation');
    // The last frame is the end event, with its reason, and no id (Last-Event-ID stays the last event's).
    const last = later.at(-1)!;
    assert.equal(last.event, 'end', JSON.stringify(later));
    assert.equal(last.id, undefined);
    assert.deepEqual(s.ends(), [
      {
        code: 'CREDENTIAL_REVOKED',
        detail:
          "The credential of this stream's token has been revoked: the stream ends, and the credential's tokens are refused.",
      },
    ]);
    // Within the window the guard promises for every request (5 s), counted from the revocation call.
    assert.ok(last.after <= RECHECK_MS, `ended ${last.after} ms after the revocation`);
    // Every event sent after the revocation was sent before the end, inside the window; the stream is closed.
    for (const frame of later.filter((f) => f.data !== undefined && f.event === undefined))
      assert.ok(frame.after <= last.after);
    assert.ok(s.isEnded());
    // And the token opens nothing any more.
    const again = await stream(acme);
    assert.equal(again.status, 401);
    assert.equal(t.services.events.streams.heldBy(await credentialOf(acme.token)), 0);
  });

  it("ends when the application its key is bound to is revoked (the key's streams, every one)", async () => {
    const acme = await provisionReportingAccount(t, { facilities: 1 });
    const gateway = acme.gateways[0]!;
    const first = await stream(acme);
    const second = await stream(acme);
    await opened(first);
    await opened(second);
    const { later } = await revokeWhileStoring(first, gateway, () =>
      adminPost(`/admin/applications/${acme.pms.clientId}/revoke`),
    );
    assert.ok(later.at(-1)!.after <= RECHECK_MS);
    await second.ended;
    for (const s of [first, second]) {
      assert.deepEqual(
        s.ends().map((end) => end.code),
        ['CREDENTIAL_REVOKED'],
      );
      assert.equal(s.frames.at(-1)!.event, 'end');
    }
  });
});

describe('streams per credential', () => {
  it('refuses the 21st stream of one credential with 429 and Retry-After; a closed stream frees its place', async () => {
    assert.equal(t.config.eventStreamsPerCredential, 20);
    const acme = await provisionAccount(t, { facilities: 1 });
    const credential = await credentialOf(acme.token);
    const twenty: SseStream[] = [];
    for (let i = 0; i < 20; i++) twenty.push(await stream(acme));
    for (const s of twenty) await opened(s);
    assert.equal(t.services.events.streams.heldBy(credential), 20);

    const refused = await stream(acme);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    assert.match(String(refused.headers['content-type']), /application\/problem\+json/);
    const problem = JSON.parse(refused.body);
    assert.equal(problem.code, 'TOO_MANY_STREAMS');
    assert.equal(problem.status, 429);
    assert.match(problem.detail, /already holds 20 open live event streams/);
    // Per credential, not per token: another token of the same key is refused too.
    const other = await requestToken(t, {
      grant_type: 'password',
      client_id: acme.pms.clientId,
      client_secret: acme.pms.clientSecret,
      username: acme.key.apiKey,
      password: acme.key.apiSecret,
    });
    assert.equal((await stream(acme, other.body.access_token)).status, 429);
    // A refused stream, or one refused for a bad Last-Event-ID, holds no place.
    assert.equal((await stream(acme, acme.token, { 'last-event-id': 'garbled' })).status, 429);
    assert.equal(t.services.events.streams.heldBy(credential), 20);

    // One closes: its place is free once the service has seen it go.
    twenty[0]!.close();
    await twenty[1]!.waitFor(() => t.services.events.streams.heldBy(credential) === 19, 5000, 'the place freed');
    const next = await stream(acme, other.body.access_token);
    await opened(next);
    assert.equal(t.services.events.streams.heldBy(credential), 20);
    assert.equal((await stream(acme)).status, 429);
    for (const s of [...twenty, next]) s.close();
    await next.waitFor(() => t.services.events.streams.heldBy(credential) === 0, 5000, 'every place freed');
  });

  it('a bad Last-Event-ID gives back the place it took', async () => {
    const acme = await provisionAccount(t, { facilities: 1 });
    const credential = await credentialOf(acme.token);
    const bad = await stream(acme, acme.token, { 'last-event-id': 'garbled' });
    assert.equal(bad.status, 400);
    assert.equal(t.services.events.streams.heldBy(credential), 0);
  });
});

// Last: the clock stays moved past the tokens issued so far.
describe('a live stream ends with its token', () => {
  it('ends when its token expires (the clock moved past the expiry), telling the client to reconnect', async () => {
    const acme = await provisionReportingAccount(t, { facilities: 1 });
    const gateway = acme.gateways[0]!;
    const expiresAt = (await t.services.auth.tokens.verify(acme.token)).expiresAt;
    const s = await stream(acme);
    await opened(s);
    await postEvents(t, gateway, [event({ details: 'before-expiry' })]);
    const [before] = await s.waitForEvents(1);
    // Still open through a check of its credential while the token is valid.
    const seen = checks;
    await s.waitFor(() => checks > seen, 10_000, 'a check of the credentials');
    assert.equal(s.isEnded(), false);
    assert.deepEqual(s.ends(), []);
    clock.advance(expiresAt - clock.now() + 1);
    await s.ended;
    assert.deepEqual(
      s.ends().map((end) => end.code),
      ['TOKEN_EXPIRED'],
    );
    assert.match(s.ends()[0]!.detail, /reconnect with a new token, sending Last-Event-ID/);
    // A reconnect with a new token and the last id continues after it.
    const fresh = await requestToken(t, {
      grant_type: 'password',
      client_id: acme.pms.clientId,
      client_secret: acme.pms.clientSecret,
      username: acme.key.apiKey,
      password: acme.key.apiSecret,
    });
    await postEvents(t, gateway, [event({ details: 'while-away' })]);
    const resumed = await stream(acme, fresh.body.access_token, { 'last-event-id': before!.id });
    assert.deepEqual(
      (await resumed.waitForEvents(1)).map((e) => e.event.details),
      ['while-away'],
    );
    resumed.close();
  });
});
