// Secrets' hashes (issue 25: reconnect storms are cheap): every secret the service issues is kept as
// a keyed SHA-256, checked in microseconds; a hash an earlier version wrote (scrypt) is still
// accepted, and replaced by today's on its first successful use — never on a failed one.
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkSecret, hashSecret, isLegacyHash } from '../../src/auth/secrets.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount, requestToken } from '../helpers/tenants.ts';

/** What an earlier version stored: `scrypt$N$r$p$<salt>$<key>`. */
function legacyHash(secret: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$16384$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

describe('a secret’s hash', () => {
  it('is a salted keyed SHA-256 that matches its secret only', async () => {
    const secret = `gh_cs_${randomBytes(32).toString('base64url')}`;
    const stored = hashSecret(secret);
    assert.match(stored, /^hmac-sha256\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(hashSecret(secret), stored, 'salted: the same secret hashes differently each time');
    assert.deepEqual(await checkSecret(secret, stored), { ok: true, upgrade: null });
    assert.equal((await checkSecret(`${secret}x`, stored)).ok, false);
    assert.equal((await checkSecret(secret.slice(0, -1), stored)).ok, false);
    assert.equal((await checkSecret(secret, null)).ok, false, 'an unknown client never matches');
    assert.equal((await checkSecret(secret, 'hmac-sha256$short$short')).ok, false, 'a malformed hash never matches');
  });

  it('of an earlier version (scrypt) still matches, and says what to store instead; a wrong secret does not', async () => {
    const secret = `gh_cs_${randomBytes(32).toString('base64url')}`;
    const stored = legacyHash(secret);
    assert.ok(isLegacyHash(stored));
    const checked = await checkSecret(secret, stored);
    assert.equal(checked.ok, true);
    assert.ok(checked.upgrade && !isLegacyHash(checked.upgrade));
    assert.equal((await checkSecret(secret, checked.upgrade)).ok, true, 'the upgrade matches the same secret');
    assert.deepEqual(await checkSecret(`${secret}x`, stored), { ok: false, upgrade: null });
  });
});

describe('hashes of an earlier version in the database', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ runJobs: false });
  });
  after(() => t.close());

  const storedHash = async (table: 'applications' | 'account_credentials', column: string, value: string) =>
    (
      await t.services.database.pool.query<{ secret_hash: string }>(
        `select secret_hash from ${table} where ${column} = $1`,
        [value],
      )
    ).rows[0]!.secret_hash;

  it('are replaced on their first successful use — the client’s and the account key’s — and not on a failed one', async () => {
    const account = await provisionAccount(t);
    const { pool } = t.services.database;
    await pool.query('update applications set secret_hash = $1 where client_id = $2', [
      legacyHash(account.pms.clientSecret),
      account.pms.clientId,
    ]);
    await pool.query('update account_credentials set secret_hash = $1 where api_key = $2', [
      legacyHash(account.key.apiSecret),
      account.key.apiKey,
    ]);
    const form = (clientSecret: string, password: string) => ({
      grant_type: 'password',
      client_id: account.pms.clientId,
      client_secret: clientSecret,
      username: account.key.apiKey,
      password,
    });

    const wrongClient = await requestToken(t, form(`${account.pms.clientSecret}x`, account.key.apiSecret));
    assert.equal(wrongClient.status, 400);
    assert.equal(wrongClient.body.error, 'invalid_client');
    assert.ok(isLegacyHash(await storedHash('applications', 'client_id', account.pms.clientId)), 'not on a failure');
    // The client's secret is right (its hash is replaced), the account key's is not (its hash stays).
    const wrongKey = await requestToken(t, form(account.pms.clientSecret, `${account.key.apiSecret}x`));
    assert.equal(wrongKey.status, 400);
    assert.equal(wrongKey.body.error, 'invalid_grant');
    assert.match(await storedHash('applications', 'client_id', account.pms.clientId), /^hmac-sha256\$/);
    assert.ok(isLegacyHash(await storedHash('account_credentials', 'api_key', account.key.apiKey)), 'not on a failure');

    for (let i = 0; i < 2; i++) {
      const answer = await requestToken(t, form(account.pms.clientSecret, account.key.apiSecret));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.match(await storedHash('applications', 'client_id', account.pms.clientId), /^hmac-sha256\$/);
      assert.match(await storedHash('account_credentials', 'api_key', account.key.apiKey), /^hmac-sha256\$/);
    }
  });
});
