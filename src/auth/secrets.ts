// Generated secrets and their hashes. Secrets are 256 random bits, shown once; only a salted
// scrypt hash is kept, and comparisons are constant-time.
import {
  createHash,
  createHmac,
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

const COST = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/** A random identifier or secret with a readable prefix: `gh_sk_…`. */
export const randomToken = (prefix: string, bytes = 32) => `${prefix}_${randomBytes(bytes).toString('base64url')}`;

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_LENGTH, { ...COST, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

// A fixed hash to verify against when the client is unknown, so that "unknown client" and
// "wrong secret" take the same time.
const DUMMY_HASH = `scrypt$${COST.N}$${COST.r}$${COST.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`;

// Successful verifications are remembered for a few minutes, so that a client asking for tokens
// again and again does not pay scrypt each time. An entry is found by an HMAC, under a key that
// lives only in this process, of who presented the secret (a client id, an account API key) and
// the secret; it holds the stored hash it matched, so a changed secret misses at once. Wrong
// secrets are never remembered: guessing always pays full price (and is throttled).
const VERIFIED_TTL_MS = 5 * 60_000;
const verifiedKey = randomBytes(32);
const verified = new Map<string, { stored: string; until: number }>();
const rememberedAs = (owner: string, secret: string) =>
  createHmac('sha256', verifiedKey).update(`${owner.length}:${owner}:${secret}`).digest('base64url');

/**
 * Whether `owner` presented this very secret successfully in the last few minutes: known without
 * the database, and impossible to claim without the secret — the token endpoint lets such requests
 * skip the line of secret checks.
 */
export function recentlyVerified(owner: string, secret: string): boolean {
  const entry = verified.get(rememberedAs(owner, secret));
  return entry !== undefined && entry.until > Date.now();
}

/**
 * Whether `secret`, presented by `owner`, matches the stored hash. A remembered success answers at
 * once; otherwise the scrypt check runs through `runSlowCheck` (the token endpoint's line).
 */
export async function verifySecret(
  secret: string,
  stored: string | null | undefined,
  owner: string,
  runSlowCheck: (check: () => Promise<boolean>) => Promise<boolean> = (check) => check(),
): Promise<boolean> {
  if (!stored) return runSlowCheck(() => verifySecretSlow(secret, stored));
  const key = rememberedAs(owner, secret);
  const entry = verified.get(key);
  if (entry !== undefined && entry.stored === stored && entry.until > Date.now()) return true;
  const ok = await runSlowCheck(() => verifySecretSlow(secret, stored));
  if (ok) {
    if (verified.size >= 10_000) verified.clear();
    verified.set(key, { stored, until: Date.now() + VERIFIED_TTL_MS });
  }
  return ok;
}

async function verifySecretSlow(secret: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY_HASH).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(secret.slice(0, 512), Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return stored !== null && stored !== undefined && timingSafeEqual(actual, expected);
}

/** For values looked up by their hash (refresh tokens): 256 random bits need no slow hash. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
