// The cursor codec, pure: a walk's state, bound to the query that started it and signed with the
// server's key (HMAC-SHA-256), as an opaque base64url token. A cursor that was altered, forged, or
// issued for another route, account, facility or set of filters fails to decode.
//
// A walk reads the events of a *phase*: those stored by transactions whose id lies in (lo, hi], in
// the requested order of (occurredAt, seq). `hi` is a horizon (horizon.ts): every transaction at or
// below it had ended when it was taken, and later ones get higher ids, so a phase is a fixed set:
// events arriving during the walk do not shift it. When a phase is exhausted, the next phase covers
// what committed meanwhile — including events that arrived late with an old occurredAt — so a walk
// returns every event exactly once (the proof sketch: docs/faces/events.md).
//
// Version 2: the bounds are transaction ids (version 1's were ingest sequence numbers, which only
// the account's ingest lock kept in commit order). A version-1 cursor is refused like any bad one.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface CursorState {
  /** Fingerprint of the query (route scope, filters, sort): see queryFingerprint. */
  fingerprint: Buffer;
  /** Transaction-id bounds of the phase: lo < txid <= hi. */
  lo: number;
  hi: number;
  /** The last item returned (occurredAt ms, seq); null at the start of a phase. */
  after: { occurredAt: number; seq: number } | null;
  /** The page number the next page will carry. */
  pageNumber: number;
  /** Events in this walk so far counted: every phase up to and including the current one. */
  total: number;
}

const VERSION = 2;
const FINGERPRINT_BYTES = 12;
const MAC_BYTES = 16;
const BODY_BYTES = 1 + FINGERPRINT_BYTES + 8 + 8 + 1 + 8 + 8 + 4 + 8;

export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';
}

/** A stable digest of everything that decides which events a walk returns, and in which order. */
export function queryFingerprint(query: Record<string, unknown>): Buffer {
  return createHash('sha256').update(JSON.stringify(query)).digest().subarray(0, FINGERPRINT_BYTES);
}

function mac(key: Buffer, body: Buffer): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES);
}

export function encodeCursor(state: CursorState, key: Buffer): string {
  const body = Buffer.alloc(BODY_BYTES);
  let at = 0;
  body.writeUInt8(VERSION, at);
  at += 1;
  state.fingerprint.copy(body, at, 0, FINGERPRINT_BYTES);
  at += FINGERPRINT_BYTES;
  body.writeBigUInt64BE(BigInt(state.lo), at);
  at += 8;
  body.writeBigUInt64BE(BigInt(state.hi), at);
  at += 8;
  body.writeUInt8(state.after ? 1 : 0, at);
  at += 1;
  body.writeBigInt64BE(BigInt(state.after?.occurredAt ?? 0), at);
  at += 8;
  body.writeBigUInt64BE(BigInt(state.after?.seq ?? 0), at);
  at += 8;
  body.writeUInt32BE(state.pageNumber, at);
  at += 4;
  body.writeBigUInt64BE(BigInt(state.total), at);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

/**
 * A 64-bit field of a cursor as a number, when JavaScript holds it exactly. The signature makes a
 * cursor trustworthy only as long as the key stays secret; these values reach SQL as bigint
 * parameters, so a value outside the safe range is refused rather than rounded or passed on.
 */
function exact(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
    throw new InvalidCursorError('out of range');
  return Number(value);
}

/** Decodes a cursor issued for the query with this fingerprint; throws InvalidCursorError otherwise. */
export function decodeCursor(token: string, key: Buffer, fingerprint: Buffer): CursorState {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(token)) throw new InvalidCursorError('malformed');
  const raw = Buffer.from(token, 'base64url');
  if (raw.length !== BODY_BYTES + MAC_BYTES) throw new InvalidCursorError('malformed');
  const body = raw.subarray(0, BODY_BYTES);
  if (!timingSafeEqual(mac(key, body), raw.subarray(BODY_BYTES))) throw new InvalidCursorError('bad signature');
  if (body.readUInt8(0) !== VERSION) throw new InvalidCursorError('unknown version');
  if (!body.subarray(1, 1 + FINGERPRINT_BYTES).equals(fingerprint.subarray(0, FINGERPRINT_BYTES)))
    throw new InvalidCursorError('another query');
  // The fields in order: lo (8 bytes), hi (8), has-after (1), occurredAt (8), seq (8), page number (4), total (8).
  const at = 1 + FINGERPRINT_BYTES;
  const lo = exact(body.readBigUInt64BE(at));
  const hi = exact(body.readBigUInt64BE(at + 8));
  const hasAfter = body.readUInt8(at + 16) === 1;
  const occurredAt = exact(body.readBigInt64BE(at + 17));
  const seq = exact(body.readBigUInt64BE(at + 25));
  const pageNumber = body.readUInt32BE(at + 33);
  const total = exact(body.readBigUInt64BE(at + 37));
  return {
    fingerprint: Buffer.from(fingerprint.subarray(0, FINGERPRINT_BYTES)),
    lo,
    hi,
    after: hasAfter ? { occurredAt, seq } : null,
    pageNumber,
    total,
  };
}
