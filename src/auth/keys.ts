// Token signing keys (ES256). Kept in DATA_DIR/keys, one file per key, generated on first start,
// or given by JWT_PRIVATE_KEY. The newest key signs; every key found verifies and is published in
// the JWKS, so tokens signed before a rotation stay valid until they expire.
import fs from 'node:fs';
import path from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  type CryptoKey,
  type JWK,
} from 'jose';
import type { Config } from '../config.ts';
import { dataDirLayout } from '../db/data-dir.ts';

export const SIGNING_ALG = 'ES256';

export interface SigningKeys {
  current: { kid: string; privateKey: CryptoKey };
  /** Public keys of every key that verifies (current and earlier ones). */
  publicJwks: (JWK & { kid: string })[];
}

interface KeyFile {
  kid: string;
  createdAt: string;
  privateJwk: JWK;
}

async function publicJwkOf(privateKey: CryptoKey, kid: string): Promise<JWK & { kid: string }> {
  const { d: _private, ...publicJwk } = await exportJWK(privateKey);
  return { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' };
}

async function newKeyFile(): Promise<KeyFile> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(privateJwk);
  return { kid, createdAt: new Date().toISOString(), privateJwk };
}

function writeKeyFile(keysDir: string, file: KeyFile): void {
  fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const target = path.join(keysDir, `${file.createdAt.replace(/[:.]/g, '-')}_${file.kid}.json`);
  fs.writeFileSync(target, JSON.stringify(file), { mode: 0o600, flag: 'wx' });
}

function readKeyFiles(keysDir: string): KeyFile[] {
  if (!fs.existsSync(keysDir)) return [];
  return fs
    .readdirSync(keysDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(fs.readFileSync(path.join(keysDir, name), 'utf8')) as KeyFile)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export async function loadSigningKeys(config: Pick<Config, 'dataDir' | 'jwtPrivateKeyPem'>): Promise<SigningKeys> {
  const keysDir = dataDirLayout(config.dataDir).keysDir;
  if (config.jwtPrivateKeyPem) {
    const privateKey = await importPKCS8(config.jwtPrivateKeyPem, SIGNING_ALG, { extractable: true });
    const kid = await calculateJwkThumbprint(await exportJWK(privateKey));
    const current = await publicJwkOf(privateKey, kid);
    // Keys generated earlier in the data directory still verify the tokens they signed.
    const earlier = await Promise.all(
      readKeyFiles(keysDir).map(async (f) =>
        publicJwkOf((await importJWK(f.privateJwk, SIGNING_ALG, { extractable: true })) as CryptoKey, f.kid),
      ),
    );
    return { current: { kid, privateKey }, publicJwks: [current, ...earlier.filter((k) => k.kid !== kid)] };
  }
  let files = readKeyFiles(keysDir);
  if (files.length === 0) {
    try {
      writeKeyFile(keysDir, await newKeyFile());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    files = readKeyFiles(keysDir);
  }
  const imported = await Promise.all(
    files.map(async (f) => ({
      kid: f.kid,
      privateKey: (await importJWK(f.privateJwk, SIGNING_ALG, { extractable: true })) as CryptoKey,
    })),
  );
  const newest = imported[imported.length - 1]!;
  return {
    current: newest,
    publicJwks: (await Promise.all(imported.map((k) => publicJwkOf(k.privateKey, k.kid)))).reverse(),
  };
}

/** Adds a new signing key; it signs from the next start on, and the old ones keep verifying. */
export async function rotateSigningKey(dataDir: string): Promise<{ kid: string }> {
  const file = await newKeyFile();
  writeKeyFile(dataDirLayout(dataDir).keysDir, file);
  return { kid: file.kid };
}
