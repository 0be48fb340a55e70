// Secrets at rest that the service must read back (gate codes for the controllers, webhook signing
// secrets): AES-256-GCM under a key derived for the purpose, each sealed copy bound to the row it
// belongs to (additional authenticated data), so a copy moved to another row fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a sealing key must be 32 bytes');
  }

  seal(binding: string, text: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(binding));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the copy was not sealed with this key for this binding. */
  unseal(binding: string, sealed: Buffer): string {
    if (sealed[0] !== VERSION) throw new Error('unknown sealed copy version');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(tag);
    const body = sealed.subarray(1 + IV_BYTES + TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
