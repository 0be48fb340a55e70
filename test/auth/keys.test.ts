import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { loadSigningKeys, rotateSigningKey } from '../../src/auth/keys.ts';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gh-keys-'));

describe('signing keys', () => {
  it('are generated in the data directory on first start, owner-readable only, and reused after', async () => {
    const dataDir = tempDir();
    const first = await loadSigningKeys({ dataDir, jwtPrivateKeyPem: null });
    const files = fs.readdirSync(path.join(dataDir, 'keys'));
    assert.equal(files.length, 1);
    assert.equal(fs.statSync(path.join(dataDir, 'keys', files[0]!)).mode & 0o777, 0o600);
    const second = await loadSigningKeys({ dataDir, jwtPrivateKeyPem: null });
    assert.equal(second.current.kid, first.current.kid);
    assert.equal(second.publicJwks.length, 1);
    assert.equal(second.publicJwks[0]!.d, undefined);
  });

  it('rotate: the newest signs, every key verifies', async () => {
    const dataDir = tempDir();
    const first = await loadSigningKeys({ dataDir, jwtPrivateKeyPem: null });
    await new Promise((r) => setTimeout(r, 5));
    const { kid } = await rotateSigningKey(dataDir);
    const after = await loadSigningKeys({ dataDir, jwtPrivateKeyPem: null });
    assert.equal(after.current.kid, kid);
    assert.deepEqual(new Set(after.publicJwks.map((k) => k.kid)), new Set([first.current.kid, kid]));
  });

  it('a configured JWT_PRIVATE_KEY signs, and keys generated earlier still verify', async () => {
    const dataDir = tempDir();
    const generated = await loadSigningKeys({ dataDir, jwtPrivateKeyPem: null });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const configured = await loadSigningKeys({ dataDir, jwtPrivateKeyPem: pem });
    assert.equal(configured.current.kid, await calculateJwkThumbprint(await exportJWK(privateKey)));
    assert.deepEqual(
      new Set(configured.publicJwks.map((k) => k.kid)),
      new Set([configured.current.kid, generated.current.kid]),
    );
  });
});
