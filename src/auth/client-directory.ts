// Which client ids exist (applications and gateway controllers), kept in memory so that the token
// endpoint can tell a made-up client id from a real one WITHOUT the database: a flood of made-up
// ids must not queue hundreds of lookups in front of a real client's (on the embedded database
// that alone delayed every token request by seconds). Ids only — never a secret or a state; the
// lookup that authenticates still reads the row.
//
// Read in full on first use. An id not found makes the directory read the ids created since —
// at most once every few seconds, however many made-up ids come — so a client created by another
// process (the admin CLI, another instance) is known within seconds; until then its requests are
// still served, in the turn that unknown ids share (which a flood may fill: 503, retry). Ids are
// never removed: a revoked client stays known, and its requests fail authentication as usual.
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';

// A transaction's created_at is its start, so a row can become visible after rows with later
// times: each read goes back this far before the newest time seen.
const LATE_COMMIT_MARGIN_MS = 60_000;

export class ClientDirectory {
  private readonly ids = new Set<string>();
  private newest: Date | null = null;
  private readAt = 0;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly rereadAfterMs = 5_000,
  ) {}

  async knows(clientId: string): Promise<boolean> {
    if (this.ids.has(clientId)) return true;
    if (Date.now() - this.readAt >= this.rereadAfterMs) await this.read();
    return this.ids.has(clientId);
  }

  add(clientId: string): void {
    this.ids.add(clientId);
  }

  private read(): Promise<void> {
    this.reading ??= this.readCreatedSince(this.newest && new Date(this.newest.getTime() - LATE_COMMIT_MARGIN_MS))
      // The database is away: keep what is known; a later miss tries again.
      .catch(() => undefined)
      .finally(() => {
        this.readAt = Date.now();
        this.reading = null;
      });
    return this.reading;
  }

  private async readCreatedSince(since: Date | null): Promise<void> {
    const after = since ?? new Date(0);
    const rows = await this.db
      .selectFrom('applications')
      .select(['client_id', 'created_at'])
      .where('created_at', '>', after)
      .unionAll(
        this.db.selectFrom('gateway_credentials').select(['client_id', 'created_at']).where('created_at', '>', after),
      )
      .execute();
    for (const row of rows) {
      this.ids.add(row.client_id);
      if (!this.newest || row.created_at > this.newest) this.newest = row.created_at;
    }
  }
}
