// Gate codes at rest. A code is never stored in clear:
// - its digest, HMAC-SHA256(digest key, "<facility id>:<code>"), finds who holds a code (the
//   uniqueness rule) — keyed, because 10^10 codes are too few for a plain hash to hide them;
// - its sealed copy, AES-256-GCM(seal key, code) bound to the visitor id, is what the controller
//   receives (unsealed only when a command is delivered over the authenticated gateway channel).
// Both keys derive (HKDF-SHA256) from one 32-byte code key: ACCESS_CODE_KEY when configured,
// else DATA_DIR/keys/access-codes.key, generated on first start. The database records the key's
// fingerprint; an instance started with another key refuses to start rather than break codes.
import type { EntityId } from '../ids.ts';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { dataDirLayout } from '../db/data-dir.ts';
import { Sealer } from '../sealed.ts';
import type { Db } from '../db/tables.ts';
import { firstCodeKey, forgetCodeKey, recordCodeKey } from './repository.ts';

export const KEY_FILE = 'access-codes.key';

/**
 * This instance's gate-code key cannot serve: its key file holds no key (`unreadable`), or the
 * database's codes were sealed with another key (`another`: a second instance given another key).
 */
export class CodeKeyMismatchError extends Error {
  override name = 'CodeKeyMismatchError';
  constructor(
    message: string,
    readonly reason: 'unreadable' | 'another',
  ) {
    super(message);
  }
}

export class AccessCodeVault {
  private readonly digestKey: Buffer;
  private readonly sealer: Sealer;
  private readonly derive: (info: string) => Buffer;
  /** Identifies the key without revealing it. */
  readonly fingerprint: string;

  constructor(codeKey: Buffer) {
    if (codeKey.length !== 32) throw new Error('the access code key must be 32 bytes');
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', codeKey, Buffer.alloc(0), info, 32));
    this.derive = derive;
    this.digestKey = derive('gatehouse access-code digest v1');
    this.sealer = new Sealer(derive('gatehouse access-code seal v1'));
    const fingerprintKey = derive('gatehouse access-code fingerprint v1');
    this.fingerprint = createHmac('sha256', fingerprintKey).update('fingerprint').digest('hex').slice(0, 32);
  }

  digest(facilityId: EntityId, code: string): Buffer {
    return createHmac('sha256', this.digestKey).update(`${facilityId}:${code}`).digest();
  }

  seal(visitorId: EntityId, code: string): Buffer {
    return this.sealer.seal(String(visitorId), code);
  }

  unseal(visitorId: EntityId, sealed: Buffer): string {
    return this.sealer.unseal(String(visitorId), sealed);
  }

  /** A sealer for another kind of secret, under its own key derived from the same code key. */
  sealerFor(purpose: string): Sealer {
    return new Sealer(this.derive(`gatehouse ${purpose} seal v1`));
  }
}

/** Parses ACCESS_CODE_KEY: 32 bytes as 64 hex digits or base64/base64url. */
export function parseCodeKey(text: string): Buffer | null {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64url');
  return key.length === 32 ? key : null;
}

function keyFromDataDir(dataDir: string): Buffer {
  const { keysDir } = dataDirLayout(dataDir);
  const file = path.join(keysDir, KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(keysDir, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = parseCodeKey(fs.readFileSync(file, 'utf8'));
  if (!key) throw new CodeKeyMismatchError(`${file} does not hold a 32-byte key`, 'unreadable');
  return key;
}

/**
 * The vault for this instance, checked against the key the database's codes were sealed with
 * (the first instance records its fingerprint).
 */
export async function openAccessCodeVault(
  config: Pick<Config, 'dataDir' | 'accessCodeKey'>,
  db: Db,
): Promise<AccessCodeVault> {
  const vault = new AccessCodeVault(config.accessCodeKey ?? keyFromDataDir(config.dataDir));
  await recordCodeKey(db, vault.fingerprint);
  if ((await firstCodeKey(db)) !== vault.fingerprint) {
    await forgetCodeKey(db, vault.fingerprint);
    throw new CodeKeyMismatchError(
      'the gate codes in this database were sealed with another access code key: give every instance the same ' +
        'ACCESS_CODE_KEY (or the same DATA_DIR/keys/access-codes.key)',
      'another',
    );
  }
  return vault;
}
