// Whether the credential behind a token is still in force. Revocation stops new tokens at once
// (the token endpoint checks the database) and existing tokens within RECHECK_MS: at most every
// RECHECK_MS the guard reads the revocations made since its last read — one statement per
// instance, however many controllers call (a token is issued only to a credential in force, so a
// token's credential is in force unless a revocation names it; a credential deleted — a sandbox's, with
// it — leaves its id in deleted_credentials, read like a revocation).
// What a token opened and keeps open (a live event stream) is watched by `revokedAmong`, which
// always asks the database afresh, for many credentials in one statement per kind
// (src/events/stream.ts).
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/tables.ts';
import { credentialKey, type Principal, type PrincipalKind } from '../http/caller.ts';

export const RECHECK_MS = 5_000;

function parseCredentialKey(key: string): { kind: PrincipalKind; credentialId: string } | null {
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  if (colon < 0 || !['account', 'gateway', 'partner', 'operator'].includes(kind)) return null;
  return { kind: kind as PrincipalKind, credentialId: key.slice(colon + 1) };
}

/**
 * A transaction's now() is its start, so a revocation can become visible after later ones: each read
 * goes back this far before the time of the last one.
 */
const LATE_COMMIT_MARGIN_MS = 60_000;

export class CredentialStatus {
  /** Every credential revoked (by its key), as of the last read. */
  private readonly revoked = new Set<string>();
  /** The database's time of the last read (null: none yet: read every revocation). */
  private readUpTo: Date | null = null;
  /** When the last read began, by the clock (the re-check interval's start). */
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async isActive(principal: Principal): Promise<boolean> {
    if (this.clock.now() - this.readAt >= RECHECK_MS) await this.readRevocations();
    return !this.revoked.has(credentialKey(principal));
  }

  /** The revocations since the last read (a read under way is joined: one statement for every caller). */
  private readRevocations(): Promise<void> {
    this.reading ??= (async () => {
      const startedAt = this.clock.now();
      const since = this.readUpTo ? new Date(this.readUpTo.getTime() - LATE_COMMIT_MARGIN_MS) : new Date(0);
      // An application revoked ends its account keys too (their tokens act through it).
      const { rows } = await sql<{ kind: string; id: string; now: Date }>`
        select 'gateway' as kind, id::text as id, now() as now from gateway_credentials where revoked_at > ${since}
        union all
        select 'application', id::text, now() from applications where revoked_at > ${since}
        union all
        select 'account', c.id::text, now() from account_credentials c join applications a on a.id = c.application_id
         where c.revoked_at > ${since} or a.revoked_at > ${since}
        union all
        select credential_kind, credential_id::text, now() from deleted_credentials where deleted_at > ${since}
        union all
        select 'now', '', now()`.execute(this.db);
      for (const row of rows) {
        if (row.kind === 'now') this.readUpTo = row.now;
        else if (row.kind === 'application') {
          this.revoked.add(credentialKey({ kind: 'partner', credentialId: row.id }));
          this.revoked.add(credentialKey({ kind: 'operator', credentialId: row.id }));
        } else this.revoked.add(credentialKey({ kind: row.kind as PrincipalKind, credentialId: row.id }));
      }
      this.readAt = startedAt;
    })().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  /**
   * Of these credentials (credentialKey), the ones no longer in force: revoked, their application
   * revoked, or gone. Asked afresh (one statement per kind present); a revocation found is the
   * guard's at once.
   */
  async revokedAmong(keys: Iterable<string>): Promise<Set<string>> {
    const byKind = new Map<PrincipalKind, string[]>();
    const revoked = new Set<string>();
    for (const key of new Set(keys)) {
      const parsed = parseCredentialKey(key);
      if (!parsed) revoked.add(key);
      else byKind.set(parsed.kind, [...(byKind.get(parsed.kind) ?? []), parsed.credentialId]);
    }
    await Promise.all(
      [...byKind].map(async ([kind, ids]) => {
        const out = await this.query(kind, ids);
        for (const id of ids) {
          const key = credentialKey({ kind, credentialId: id });
          if (out.has(id)) {
            revoked.add(key);
            this.revoked.add(key);
          }
        }
      }),
    );
    return revoked;
  }

  /** The credentials of these (well-formed) ids not revoked: an account key also needs its application in force. */
  private inForce(kind: PrincipalKind, ids: string[]): Promise<{ id: unknown }[]> {
    if (kind === 'account')
      return this.db
        .selectFrom('account_credentials as c')
        .innerJoin('applications as a', 'a.id', 'c.application_id')
        .select('c.id')
        .where('c.id', 'in', ids)
        .where('c.revoked_at', 'is', null)
        .where('a.revoked_at', 'is', null)
        .execute();
    // A gateway's credential is its own row; a partner and the operator are applications.
    const table = kind === 'gateway' ? 'gateway_credentials' : 'applications';
    return this.db.selectFrom(table).select('id').where('id', 'in', ids).where('revoked_at', 'is', null).execute();
  }

  /** Of these credential ids of one kind, the ones not in force. */
  private async query(kind: PrincipalKind, ids: string[]): Promise<Set<string>> {
    const inForce = new Set<string>();
    // Ids are uuids; anything else names no row (and must not reach a uuid comparison).
    const wellFormed = ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
    if (wellFormed.length > 0) for (const row of await this.inForce(kind, wellFormed)) inForce.add(String(row.id));
    return new Set(ids.filter((id) => !inForce.has(id)));
  }
}
