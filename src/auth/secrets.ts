// Generated secrets and their hashes. Every secret this service issues is 256 random bits, shown
// once. What is kept is a keyed SHA-256 of it (an HMAC under a random per-secret salt), compared in
// constant time: a deliberately slow password hash protects guessable passwords, and adds nothing
// against a secret nobody can guess but its cost — ~60 ms of a core per check, which made a whole
// fleet reconnecting at once a queue of seconds. A check is now a few microseconds.
//
// Hashes written by earlier versions (scrypt) are still checked — in the line of secret checks
// (secret-checks.ts), which bounds their cost — and are replaced by the caller on their next
// successful use (`upgrade`).
import { createHash, createHmac, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';

const SCHEME = 'hmac-sha256';
const LEGACY_SCHEME = 'scrypt';
/** No secret this service issues is longer; a longer one presented is cut before hashing (a bounded cost). */
const CHECKED_LENGTH = 512;

/** A random identifier or secret with a readable prefix: `gh_sk_…`. */
export const randomToken = (prefix: string, bytes = 32) => `${prefix}_${randomBytes(bytes).toString('base64url')}`;

const mac = (salt: Buffer, secret: string) =>
  createHmac('sha256', salt).update(secret.slice(0, CHECKED_LENGTH)).digest();

/** The stored form of a generated secret: `hmac-sha256$<salt>$<mac>`. */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  return `${SCHEME}$${salt.toString('base64url')}$${mac(salt, secret).toString('base64url')}`;
}

// What an unknown client's secret is compared with, so that "unknown client" and "wrong secret"
// cost the same.
const DUMMY_HASH = `${SCHEME}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;

/** Whether the secret matched; and when it matched a hash of an earlier version, the hash to store instead. */
export interface SecretCheck {
  ok: boolean;
  upgrade: string | null;
}

/** Whether a stored hash was written by an earlier version (its check is slow: run it in the line). */
export const isLegacyHash = (stored: string | null | undefined) => stored?.startsWith(`${LEGACY_SCHEME}$`) ?? false;

/**
 * Whether `secret` matches the stored hash (null or undefined: an unknown client, never a match,
 * at the same cost). A legacy hash is checked through `runSlowCheck` (the token endpoint's line).
 */
export async function checkSecret(
  secret: string,
  stored: string | null | undefined,
  runSlowCheck: (check: () => Promise<boolean>) => Promise<boolean> = (check) => check(),
): Promise<SecretCheck> {
  if (isLegacyHash(stored)) {
    const ok = await runSlowCheck(() => scryptMatches(secret, stored!));
    return { ok, upgrade: ok ? hashSecret(secret) : null };
  }
  const parts = (stored ?? DUMMY_HASH).split('$');
  if (parts.length !== 3 || parts[0] !== SCHEME) return { ok: false, upgrade: null };
  const expected = Buffer.from(parts[2]!, 'base64url');
  const actual = mac(Buffer.from(parts[1]!, 'base64url'), secret);
  const ok = stored !== null && stored !== undefined && expected.length === actual.length;
  return { ok: ok && timingSafeEqual(actual, expected), upgrade: null };
}

/** A hash of an earlier version: `scrypt$N$r$p$<salt>$<key>`. */
function scryptMatches(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6) return Promise.resolve(false);
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 };
  return new Promise((resolve) =>
    scryptCallback(
      secret.slice(0, CHECKED_LENGTH),
      Buffer.from(salt, 'base64url'),
      expected.length,
      options,
      (error, key) => resolve(!error && timingSafeEqual(key, expected)),
    ),
  );
}

/** For values looked up by their hash (refresh tokens): 256 random bits need no slow hash. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
