// Reading events: pages (by number or by cursor), legacy limit/offset slices, and the chunks of a
// CSV export. The SQL comes from query.ts; this file decides which statements run, and when.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { decodeCursor, encodeCursor, queryFingerprint, type CursorState } from './cursor.ts';
import { CSV_ROW_OCCURRED, CSV_ROW_SEQ, CSV_SELECT, type CsvRow } from './csv.ts';
import {
  countQuery,
  filterIdentity,
  pageQuery,
  watermarkQuery,
  type EventFilter,
  type EventRow,
  type SqlText,
} from './query.ts';

export interface PageRequest {
  pageSize: number;
  pageNumber: number;
  cursor: string | null;
}

export interface Page {
  rows: EventRow[];
  pageNumber: number;
  totalResults: number;
  nextCursor: string | null;
}

/** The key that signs cursors: made once, kept in the database, shared by every instance. */
export async function loadCursorKey(pool: pg.Pool): Promise<Buffer> {
  await pool.query('insert into gateway_event_cursor_key (id, secret) values (1, $1) on conflict (id) do nothing', [
    randomBytes(32),
  ]);
  const { rows } = await pool.query<{ secret: Buffer }>('select secret from gateway_event_cursor_key where id = 1');
  return rows[0]!.secret;
}

const statementName = (text: string) => `gwe_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

export class EventStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly cursorKey: Buffer,
    private readonly retentionDays: number,
  ) {}

  /** Events before this instant are outside the retention window. */
  cutoff(now = Date.now()): number {
    return now - this.retentionDays * 86_400_000;
  }

  private async rows(query: SqlText): Promise<EventRow[]> {
    return (await this.pool.query<EventRow>(query.text, query.values)).rows;
  }

  private async count(query: SqlText): Promise<number> {
    return Number((await this.pool.query<{ n: number }>(query.text, query.values)).rows[0]!.n);
  }

  /** The account's highest committed sequence number: all of its events at or below it are committed (ingest.ts). */
  async watermark(accountId: string): Promise<number> {
    const query = watermarkQuery(accountId);
    return Number((await this.pool.query<{ w: number }>(query.text, query.values)).rows[0]!.w);
  }

  /** Throws InvalidCursorError for a cursor that this query did not issue. */
  async page(filter: EventFilter, request: PageRequest): Promise<Page> {
    const fingerprint = queryFingerprint(filterIdentity(filter));
    const cutoff = this.cutoff();
    let state: CursorState;
    let offset = 0;
    let rows: EventRow[];
    if (request.cursor) {
      state = decodeCursor(request.cursor, this.cursorKey, fingerprint);
      rows = await this.rows(pageQuery(filter, { cutoff, ...state }, { limit: request.pageSize + 1 }));
    } else {
      const hi = await this.watermark(filter.scope.accountId);
      offset = (request.pageNumber - 1) * request.pageSize;
      const [pageRows, total] = await Promise.all([
        this.rows(pageQuery(filter, { cutoff, lo: 0, hi }, { limit: request.pageSize + 1, offset })),
        this.count(countQuery(filter, { cutoff, lo: 0, hi })),
      ]);
      rows = pageRows;
      state = { fingerprint, lo: 0, hi, after: null, pageNumber: request.pageNumber, total };
    }

    for (let hop = 0; ; hop++) {
      if (rows.length > request.pageSize) {
        rows.length = request.pageSize;
        const last = rows[rows.length - 1]!;
        const next = {
          ...state,
          after: { occurredAt: Number(last.occurred_ms), seq: Number(last.seq) },
          pageNumber: state.pageNumber + 1,
        };
        return {
          rows,
          pageNumber: state.pageNumber,
          totalResults: state.total,
          nextCursor: encodeCursor(next, this.cursorKey),
        };
      }
      // This phase is exhausted. Events committed since it began form the next phase.
      const done = { rows, pageNumber: state.pageNumber, totalResults: state.total, nextCursor: null };
      if (offset > 0 && rows.length === 0) return done; // a page number past the end
      const hi = await this.watermark(filter.scope.accountId);
      const fresh = hi > state.hi ? await this.count(countQuery(filter, { cutoff, lo: state.hi, hi })) : 0;
      if (fresh === 0) return done;
      const nextPhase: CursorState = {
        fingerprint,
        lo: state.hi,
        hi,
        after: null,
        pageNumber: state.pageNumber + (rows.length > 0 ? 1 : 0),
        total: state.total + fresh,
      };
      if (rows.length > 0 || hop >= 2)
        return { ...done, totalResults: nextPhase.total, nextCursor: encodeCursor(nextPhase, this.cursorKey) };
      // An empty page (nothing left in the old phase): go on with the new one at once.
      state = nextPhase;
      offset = 0;
      rows = await this.rows(pageQuery(filter, { cutoff, ...state }, { limit: request.pageSize + 1 }));
    }
  }

  /** A legacy slice: limit/offset over the events committed now, with or without the total. */
  async slice(
    filter: EventFilter,
    limit: number,
    offset: number,
    withTotal: boolean,
  ): Promise<{ rows: EventRow[]; totalResults: number | null }> {
    const cutoff = this.cutoff();
    const hi = await this.watermark(filter.scope.accountId);
    const [rows, total] = await Promise.all([
      this.rows(pageQuery(filter, { cutoff, lo: 0, hi }, { limit, offset })),
      withTotal ? this.count(countQuery(filter, { cutoff, lo: 0, hi })) : Promise.resolve(null),
    ]);
    return { rows, totalResults: total };
  }

  /**
   * Every event of the filter committed when the export began, in chunks of `chunkRows`, read
   * by keyset: each chunk is one short statement (no transaction stays open, which matters on the
   * embedded database), rows come as arrays (no object per row), and the next chunk is already
   * being read while the consumer writes this one. A consumer that stops pulling stops the reads.
   */
  async *exportChunks(filter: EventFilter, chunkRows: number): AsyncGenerator<CsvRow[]> {
    const cutoff = this.cutoff();
    const hi = await this.watermark(filter.scope.accountId);
    const read = async (after: { occurredAt: number; seq: number } | null): Promise<CsvRow[]> => {
      const query = pageQuery(filter, { cutoff, lo: 0, hi, after }, { limit: chunkRows, columns: CSV_SELECT });
      // A named statement: the export runs the same text hundreds of times, planned once per connection.
      return (
        await this.pool.query<CsvRow>({
          name: statementName(query.text),
          text: query.text,
          values: query.values,
          rowMode: 'array',
        })
      ).rows;
    };
    let pending: Promise<CsvRow[]> | null = read(null);
    try {
      while (pending) {
        const rows: CsvRow[] = await pending;
        pending = null;
        if (rows.length === chunkRows) {
          const last = rows[rows.length - 1]!;
          pending = read({ occurredAt: Number(last[CSV_ROW_OCCURRED]), seq: Number(last[CSV_ROW_SEQ]) });
        }
        if (rows.length > 0) yield rows;
      }
    } finally {
      // Stopped early: let the read in flight finish quietly (its rows are dropped).
      pending?.catch(() => {});
    }
  }
}
