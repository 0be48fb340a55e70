// Which client ids exist (applications and gateway controllers), kept in memory so that the token
// endpoint can tell a made-up client id from a real one WITHOUT the database: a flood of made-up
// ids must not queue hundreds of lookups in front of a real client's (on the embedded database
// that alone delayed every token request by seconds). Ids only — never a secret or a state; the
// lookup that authenticates still reads the row.
//
// Read once on first use, then again in the background when older than a minute; a client created
// since (by another process) is treated as unknown until then — it still gets its token, in the
// turn that unknown ids share — and is added as soon as it authenticates.
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';

const MAX_AGE_MS = 60_000;

export class ClientDirectory {
  private ids = new Set<string>();
  private readAt = 0;
  private reading: Promise<void> | null = null;

  constructor(private readonly db: Kysely<Tables>) {}

  async knows(clientId: string): Promise<boolean> {
    if (this.readAt === 0) await this.read();
    else if (Date.now() - this.readAt > MAX_AGE_MS) void this.read();
    return this.ids.has(clientId);
  }

  add(clientId: string): void {
    this.ids.add(clientId);
  }

  private read(): Promise<void> {
    this.reading ??= this.db
      .selectFrom('applications')
      .select('client_id')
      .unionAll(this.db.selectFrom('gateway_credentials').select('client_id'))
      .execute()
      .then(
        (rows) => {
          this.ids = new Set(rows.map((row) => row.client_id));
          this.readAt = Date.now();
        },
        // The database is away: keep what is known and try again on a later request.
        () => undefined,
      )
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}
