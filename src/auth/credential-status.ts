// Whether the credential behind a token is still in force. Revocation stops new tokens at once
// (the token endpoint checks the database) and existing tokens within RECHECK_MS: the guard asks
// the database at most once per credential per RECHECK_MS.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/tables.ts';
import type { Principal } from '../http/caller.ts';

export const RECHECK_MS = 5_000;

export class CredentialStatus {
  private readonly cache = new Map<string, { active: boolean; checkedAt: number }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async isActive(principal: Principal): Promise<boolean> {
    const key = `${principal.kind}:${principal.credentialId}`;
    const cached = this.cache.get(key);
    if (cached && this.clock.now() - cached.checkedAt < RECHECK_MS) return cached.active;
    const active = await this.query(principal);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(key, { active, checkedAt: this.clock.now() });
    return active;
  }

  private async query(principal: Principal): Promise<boolean> {
    switch (principal.kind) {
      case 'account': {
        const row = await this.db
          .selectFrom('account_credentials as c')
          .innerJoin('applications as a', 'a.id', 'c.application_id')
          .select(['c.revoked_at as key_revoked', 'a.revoked_at as app_revoked'])
          .where('c.id', '=', principal.credentialId)
          .executeTakeFirst();
        return Boolean(row && !row.key_revoked && !row.app_revoked);
      }
      case 'gateway': {
        const row = await this.db
          .selectFrom('gateway_credentials')
          .select('revoked_at')
          .where('id', '=', principal.credentialId)
          .executeTakeFirst();
        return Boolean(row && !row.revoked_at);
      }
      case 'partner':
      case 'operator': {
        const row = await this.db
          .selectFrom('applications')
          .select('revoked_at')
          .where('id', '=', principal.credentialId)
          .executeTakeFirst();
        return Boolean(row && !row.revoked_at);
      }
    }
  }
}
