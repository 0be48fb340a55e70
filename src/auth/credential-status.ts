// Whether the credential behind a token is still in force. Revocation stops new tokens at once
// (the token endpoint checks the database) and existing tokens within RECHECK_MS: the guard asks
// the database at most once per credential per RECHECK_MS. What a token opened and keeps open (a
// live event stream) is watched by `revokedAmong`, which always asks the database afresh, for
// many credentials in one statement per kind (src/events/stream.ts).
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

export class CredentialStatus {
  private readonly cache = new Map<string, { active: boolean; checkedAt: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async isActive(principal: Principal): Promise<boolean> {
    const key = credentialKey(principal);
    const cached = this.cache.get(key);
    if (cached && this.clock.now() - cached.checkedAt < RECHECK_MS) return cached.active;
    const active = !(await this.query(principal.kind, [principal.credentialId])).has(principal.credentialId);
    this.remember(key, active);
    return active;
  }

  /**
   * Of these credentials (credentialKey), the ones no longer in force: revoked, their application
   * revoked, or gone. Asked afresh (one statement per kind present); the answers refresh what the
   * guard remembers.
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
          this.remember(key, !out.has(id));
          if (out.has(id)) revoked.add(key);
        }
      }),
    );
    return revoked;
  }

  private remember(key: string, active: boolean): void {
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(key, { active, checkedAt: this.clock.now() });
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
