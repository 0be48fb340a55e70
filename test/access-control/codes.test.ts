// Gate codes at rest: keyed digest, sealed copy bound to the visitor, and the key check.
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AccessCodeVault, CodeKeyMismatchError, openAccessCodeVault } from '../../src/access-control/codes.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

describe('the access code vault', () => {
  const vault = new AccessCodeVault(randomBytes(32));
  const facility = randomInt(1, 2 ** 40);

  it('digests a code per facility, the same each time, differently under another key', () => {
    assert.deepEqual(vault.digest(facility, '1234'), vault.digest(facility, '1234'));
    assert.notDeepEqual(vault.digest(facility, '1234'), vault.digest(randomInt(1, 2 ** 40), '1234'));
    assert.notDeepEqual(vault.digest(facility, '1234'), vault.digest(facility, '01234'));
    assert.notDeepEqual(vault.digest(facility, '1234'), new AccessCodeVault(randomBytes(32)).digest(facility, '1234'));
    assert.equal(vault.digest(facility, '1234').includes(Buffer.from('1234')), false);
  });

  it('seals a code so that only the same key and visitor unseal it', () => {
    const visitor = randomInt(1, 2 ** 40);
    const sealed = vault.seal(visitor, '0042');
    assert.equal(sealed.includes(Buffer.from('0042')), false);
    assert.notDeepEqual(sealed, vault.seal(visitor, '0042'), 'a fresh IV each time');
    assert.equal(vault.unseal(visitor, sealed), '0042');
    assert.throws(() => vault.unseal(visitor + 1, sealed), 'bound to the visitor id');
    assert.throws(() => new AccessCodeVault(randomBytes(32)).unseal(visitor, sealed), 'another key');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    assert.throws(() => vault.unseal(visitor, tampered), 'tampering is detected');
  });
});

describe('the code key of a database', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('is generated in DATA_DIR/keys with owner-only permissions', () => {
    const file = path.join(t.config.dataDir, 'keys', 'access-codes.key');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('an instance with another key refuses to open the vault; the same key opens it', async () => {
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codes-'));
    await assert.rejects(
      openAccessCodeVault({ dataDir: otherDir, accessCodeKey: randomBytes(32) }, t.services.database.db),
      CodeKeyMismatchError,
    );
    const same = await openAccessCodeVault({ dataDir: t.config.dataDir, accessCodeKey: null }, t.services.database.db);
    assert.ok(same.fingerprint);
    const { rows } = await t.services.database.pool.query('select count(*)::int as n from access_code_keys');
    assert.equal(rows[0].n, 1, 'the refused key left no record');
    fs.rmSync(otherDir, { recursive: true, force: true });
  });
});
