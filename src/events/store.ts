// Reading events: pages (by number or by cursor), legacy limit/offset slices, the chunks of a
// CSV export, and the tail that follows events as they are stored (the live stream, webhooks).
// The SQL comes from query.ts; this file decides which statements run, and when.
import type { EntityId } from '../ids.ts';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { withValuesWritten } from '../db/literals.ts';
import { formatUtc } from './time.ts';
import { EXACT_TOTAL_CAP } from './limits.ts';
import { decodeCursor, encodeCursor, queryFingerprint, type CursorState } from './cursor.ts';
import { HORIZON_WAIT_MS, readHorizon, type Horizon } from './horizon.ts';
import { exhausted, hasPhaseLeft, nextPhase, shareOfPhase, stateAfter, tailStartState } from './tail.ts';
import {
  CSV_ROW_OCCURRED,
  CSV_ROW_SEQ,
  CSV_SELECT,
  CSV_SQL_COLUMNS,
  csvChunkSql,
  csvCopySql,
  csvRowsFromCopy,
  eventTypeNameArray,
  type CsvRow,
} from './csv.ts';
import {
  accountPhaseQuery,
  countQuery,
  estimateQuery,
  filterIdentity,
  pageQuery,
  rowMatches,
  type EventFilter,
  type EventRow,
  type PhaseRow,
  type SqlText,
  type Window,
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

/**
 * The most rows one shared read of an account's new phase takes (store.ts, tail's groups): a burst
 * larger than this is read on by each tail alone, from where the shared read stopped.
 */
export const SHARED_TAIL_ROWS = 1_000;

/** Which read of event rows a tail made: `shared` by the caught-up tails of an account, or its `own`. */
export type TailRead = 'shared' | 'own';

/** A caught-up tail waiting for its account's shared read. */
interface GroupMember {
  filter: EventFilter;
  state: CursorState;
  limit: number;
  resolve(share: ReturnType<typeof shareOfPhase<PhaseRow>>): void;
  reject(error: unknown): void;
}

/** Where an export continues: after this row, in its order. */
type ExportKey = { occurredAt: number; seq: number };

/** A chunk of the export's CSV text and how many rows it holds. */
export interface ExportChunk {
  text: string | Buffer;
  rows: number;
}

/** A chunk as read, with the keys of its last row (null when it has none). */
type ReadChunk = ExportChunk & { last: ExportKey | null };

const { to: copyTo } = copyStreams;
const eventTypeNamesLiteral = withValuesWritten('$1', [eventTypeNameArray()]);

const statementName = (text: string) => `gwe_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

export class EventStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly cursorKey: Buffer,
    private readonly retentionDays: number,
    /** Told of every read that had to wait for the horizon (the face's metrics). */
    private readonly onHorizonWait: (horizon: Horizon) => void = () => {},
    /** Told of every read of event rows a tail makes (the face's metrics). */
    private readonly onTailRead: (read: TailRead) => void = () => {},
    /** The tails' reads (Database.tailPool): they never wait behind the requests' queue. */
    private readonly tailPool: pg.Pool = pool,
    /** Whether the connections carry `COPY … TO STDOUT` (a server does; the embedded database does not). */
    private readonly copyOut = false,
  ) {}

  /** Events before this instant are outside the retention window. */
  cutoff(now = Date.now()): number {
    return now - this.retentionDays * 86_400_000;
  }

  private async rows(query: SqlText, pool = this.pool): Promise<EventRow[]> {
    return (await pool.query<EventRow>(query.text, query.values)).rows;
  }

  private async count(query: SqlText): Promise<number> {
    return Number((await this.pool.query<{ n: number }>(query.text, query.values)).rows[0]!.n);
  }

  /**
   * The phase's total: exact up to EXACT_TOTAL_CAP (a count that stops at cap + 1), beyond it the
   * planner's estimate, never below cap + 1 (so a total above the cap is known to be an estimate).
   */
  private async total(filter: EventFilter, window: Omit<Window, 'after'>): Promise<number> {
    const counted = await this.count(countQuery(filter, window, EXACT_TOTAL_CAP + 1));
    if (counted <= EXACT_TOTAL_CAP) return counted;
    const query = estimateQuery(filter, window);
    const { rows } = await this.pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      query.text,
      query.values,
    );
    const estimate = Math.round(Number(rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'] ?? 0));
    return Math.max(EXACT_TOTAL_CAP + 1, estimate);
  }

  /**
   * The upper bound of what a read of the account may see (horizon.ts): every transaction with an
   * id at or below it has ended, so the events with `txid <= hi` are a set no later commit changes.
   * Every read bounds itself by it: pages, phases of a walk, slices, exports. `waitUntil`
   * (performance.now() time): one request's horizons share one wait of at most HORIZON_WAIT_MS.
   */
  async horizon(
    accountId: EntityId,
    waitUntil = performance.now() + HORIZON_WAIT_MS,
    pool = this.pool,
  ): Promise<number> {
    const horizon = await readHorizon(pool, accountId, Math.max(0, waitUntil - performance.now()));
    if (horizon.waitedMs > 0 || !horizon.caughtUp) this.onHorizonWait(horizon);
    return horizon.hi;
  }

  /** Throws InvalidCursorError for a cursor that this query did not issue. */
  async page(filter: EventFilter, request: PageRequest): Promise<Page> {
    const fingerprint = queryFingerprint(filterIdentity(filter));
    const cutoff = this.cutoff();
    const waitUntil = performance.now() + HORIZON_WAIT_MS;
    let state: CursorState;
    let offset = 0;
    let rows: EventRow[];
    if (request.cursor) {
      state = decodeCursor(request.cursor, this.cursorKey, fingerprint);
      rows = await this.rows(pageQuery(filter, { cutoff, ...state }, { limit: request.pageSize + 1 }));
    } else {
      const hi = await this.horizon(filter.scope.accountId, waitUntil);
      offset = (request.pageNumber - 1) * request.pageSize;
      const [pageRows, total] = await Promise.all([
        this.rows(pageQuery(filter, { cutoff, lo: 0, hi }, { limit: request.pageSize + 1, offset })),
        this.total(filter, { cutoff, lo: 0, hi }),
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
      const hi = await this.horizon(filter.scope.accountId, waitUntil);
      // (A horizon below the phase's end is possible only in the instant a session of another database
      // ends: nothing new then.)
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

  /**
   * A cursor token positioned so that tail() returns the events stored from now on (since ===
   * undefined), or every retained event with occurredAt >= since followed by everything stored
   * later (tail.ts). The filter's sort is 'asc'; the token is a cursor of the list route with the
   * same filters and sort=asc.
   */
  async tailStart(filter: EventFilter, since?: number): Promise<string> {
    const fingerprint = queryFingerprint(filterIdentity(filter));
    const hi = await this.horizon(filter.scope.accountId);
    return encodeCursor(tailStartState(fingerprint, hi, since), this.cursorKey);
  }

  /**
   * Up to `limit` events after `cursor`, in delivery order (the cursor walk's phases, asc), each
   * with the cursor that resumes right after it; `cursor` in the result is where the next tail()
   * continues (the last event's position, or an advanced phase when nothing new). Throws
   * InvalidCursorError for a cursor this filter did not issue.
   *
   * Many tails wake at once for one batch (every stream of the account). A tail that is caught up
   * (its phase read to its end: the usual wake-up) joins its account's group: the caught-up tails
   * that ask in the same turn of the event loop share one horizon read and one read of the
   * account's new rows, and each keeps its own events (its filter, its position) in memory
   * (readGroup, shareOfPhase). A tail with a phase left (a backlog, a Last-Event-ID, a burst larger
   * than SHARED_TAIL_ROWS) reads its phase itself, sharing identical reads under way (sharedRows)
   * and horizons (sharedHorizon).
   */
  async tail(
    filter: EventFilter,
    cursor: string,
    limit: number,
  ): Promise<{ events: { row: EventRow; cursor: string }[]; cursor: string }> {
    let state = decodeCursor(cursor, this.cursorKey, queryFingerprint(filterIdentity(filter)));
    const events: { row: EventRow; cursor: string }[] = [];
    if (!hasPhaseLeft(state)) {
      const share = await this.joinGroup(filter, state, limit);
      for (const event of share.events)
        events.push({ row: event.row, cursor: this.sharedCursor(event.row, event.state) });
      state = share.state;
      // Caught up again, or a batch full: done. Otherwise the shared read was cut short: read on alone.
      if (!hasPhaseLeft(state) || events.length >= limit)
        return { events, cursor: encodeCursor(state, this.cursorKey) };
    }
    // Whole seconds, so that tails reading at the same moment send the same statement (sharedRows).
    const cutoff = this.tailCutoff();
    const waitUntil = performance.now() + HORIZON_WAIT_MS;
    // A few phases at most per call: under a steady stream of commits the horizon always moves, and
    // the caller comes back anyway.
    for (let hop = 0; hop < 3 && events.length < limit; hop++) {
      if (hasPhaseLeft(state)) {
        const wanted = limit - events.length;
        const rows = await this.sharedRows(pageQuery(filter, { cutoff, ...state }, { limit: wanted }));
        for (const row of rows) {
          state = stateAfter(state, row);
          events.push({ row, cursor: this.sharedCursor(row, state) });
        }
        if (rows.length === wanted) break; // the phase may hold more: the next call reads on
        state = exhausted(state);
      }
      const next = nextPhase(state, await this.sharedHorizon(filter.scope.accountId, waitUntil));
      if (!next) break;
      state = next;
    }
    return { events, cursor: encodeCursor(state, this.cursorKey) };
  }

  /** The retention cutoff of a tail's reads: whole seconds, so that reads of one moment are identical. */
  private tailCutoff(): number {
    return Math.floor(this.cutoff() / 1000) * 1000;
  }

  /**
   * The cursors of the rows of shared reads (an account's group, or identical reads under way), by
   * the rest of their state (filter, phase): a signed cursor is an HMAC, and an account's tails with
   * one filter would each sign the same cursor for every event — 100 streams at 600 events a second,
   * 60,000 HMACs a second on the event loop (issue 25's profile) — where one per (row, filter,
   * phase) is enough. Kept as long as the row is (the reads that hold it).
   */
  private readonly cursorsOfRows = new WeakMap<EventRow, Map<string, string>>();

  private sharedCursor(row: EventRow, state: CursorState): string {
    const key = `${state.fingerprint.toString('latin1')}:${state.lo}:${state.hi}:${state.pageNumber}:${state.total}`;
    let cursors = this.cursorsOfRows.get(row);
    if (!cursors) {
      cursors = new Map();
      this.cursorsOfRows.set(row, cursors);
    }
    let cursor = cursors.get(key);
    if (cursor === undefined) {
      cursor = encodeCursor(state, this.cursorKey);
      cursors.set(key, cursor);
    }
    return cursor;
  }

  /** Caught-up tails that asked in this turn of the event loop, by account: read together at its end. */
  private readonly pendingGroups = new Map<EntityId, GroupMember[]>();

  /** A caught-up tail's share of its account's next shared read (see tail()). */
  private joinGroup(filter: EventFilter, state: CursorState, limit: number) {
    const accountId = filter.scope.accountId;
    return new Promise<ReturnType<typeof shareOfPhase<PhaseRow>>>((resolve, reject) => {
      let members = this.pendingGroups.get(accountId);
      if (!members) {
        const group: GroupMember[] = [];
        members = group;
        this.pendingGroups.set(accountId, group);
        // After the tails woken in this turn have asked; the horizon is read after that, so it sees
        // every commit they were woken for.
        setImmediate(() => {
          this.pendingGroups.delete(accountId);
          this.readGroup(accountId, group).catch((error) => {
            for (const member of group) member.reject(error);
          });
        });
      }
      members.push({ filter, state, limit, resolve, reject });
    });
  }

  /**
   * One horizon read and at most one read of rows for the account's caught-up tails: the account's
   * retained events of (lowest hi among them, horizon], at most SHARED_TAIL_ROWS; each member keeps
   * its own (shareOfPhase with its filter).
   */
  private async readGroup(accountId: EntityId, members: GroupMember[]): Promise<void> {
    const horizon = await this.horizon(accountId, undefined, this.tailPool);
    const lo = Math.min(...members.map((member) => member.state.hi));
    const cutoff = this.tailCutoff();
    let rows: PhaseRow[] = [];
    let complete = true;
    if (horizon > lo) {
      rows = (
        await this.tailPool.query<PhaseRow>(
          accountPhaseQuery(accountId, { cutoff, lo, hi: horizon }, SHARED_TAIL_ROWS + 1),
        )
      ).rows;
      this.onTailRead('shared');
      complete = rows.length <= SHARED_TAIL_ROWS;
      if (!complete) rows.length = SHARED_TAIL_ROWS;
    }
    for (const member of members) {
      member.resolve(
        shareOfPhase(
          member.state,
          horizon,
          rows,
          complete,
          (row) => rowMatches(member.filter, row, cutoff),
          member.limit,
        ),
      );
    }
  }

  /** Horizon reads not yet begun, by account: callers that ask before one begins share it. */
  private readonly pendingHorizons = new Map<EntityId, Promise<number>>();

  /**
   * The account's horizon, read after this call: joining a read that has not begun yet is as good
   * as starting one (it sees every commit this caller was woken for); a read already under way is
   * never joined (it may have begun before that commit).
   */
  private sharedHorizon(accountId: EntityId, waitUntil: number): Promise<number> {
    let pending = this.pendingHorizons.get(accountId);
    if (!pending) {
      pending = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.pendingHorizons.delete(accountId);
        return this.horizon(accountId, waitUntil, this.tailPool);
      });
      this.pendingHorizons.set(accountId, pending);
    }
    return pending;
  }

  /** Reads under way, by statement and values. */
  private readonly readsUnderWay = new Map<string, Promise<EventRow[]>>();

  /**
   * The rows of a tail's read, shared with an identical read under way: a phase (`txid <= hi`) is
   * a set no later commit changes (horizon.ts), so the same statement returns the same rows
   * whenever it runs. (The rows are shared: readers do not change them.)
   */
  private sharedRows(query: SqlText): Promise<EventRow[]> {
    const key = `${query.text}\u0000${JSON.stringify(query.values)}`;
    let read = this.readsUnderWay.get(key);
    if (!read) {
      this.onTailRead('own');
      read = this.rows(query, this.tailPool).finally(() => this.readsUnderWay.delete(key));
      this.readsUnderWay.set(key, read);
    }
    return read;
  }

  /**
   * Runs a query and hands each row to `onRow` as it arrives, rather than once all have: a consumer
   * that renders them does so while the database is still sending the rest.
   */
  private async eachRow<Row>(query: SqlText, onRow: (row: Row) => void): Promise<void> {
    const client = await this.pool.connect();
    let failure: Error | undefined;
    // Checked out, the client has no pool listener: a connection lost now must not go unheard.
    const onClientError = (error: Error) => {
      failure ??= error;
    };
    client.on('error', onClientError);
    try {
      await new Promise<void>((resolve, reject) => {
        let consumerFailure: unknown;
        const submitted = client.query(new pg.Query(query.text, query.values));
        submitted.on('row', (row: Row) => {
          if (consumerFailure !== undefined) return;
          try {
            onRow(row);
          } catch (error) {
            consumerFailure = error;
          }
        });
        submitted.on('end', () => (consumerFailure === undefined ? resolve() : reject(consumerFailure)));
        submitted.on('error', (error: Error) => {
          failure = error;
          reject(error);
        });
      });
    } finally {
      client.removeListener('error', onClientError);
      // A connection whose statement failed is not handed to the next caller.
      client.release(failure);
    }
  }

  /**
   * A slice by limit and offset over the events committed now, with or without the total: the
   * legacy routes, and the combined-events route (its own columns; its total counted up to
   * `countCap`; its rows handed to `onRow` as they arrive, and not returned).
   */
  async slice<Row = EventRow>(
    filter: EventFilter,
    limit: number,
    offset: number,
    withTotal: boolean,
    options: { columns?: string; countCap?: number; onRow?: (row: Row) => void } = {},
  ): Promise<{ rows: Row[]; totalResults: number | null }> {
    const cutoff = this.cutoff();
    const hi = await this.horizon(filter.scope.accountId);
    const page = pageQuery(filter, { cutoff, lo: 0, hi }, { limit, offset, columns: options.columns });
    const { onRow } = options;
    const [rows, total] = await Promise.all([
      limit === 0 ? [] : onRow ? this.eachRow(page, onRow).then(() => []) : this.pool.query(page).then((r) => r.rows),
      withTotal ? this.count(countQuery(filter, { cutoff, lo: 0, hi }, options.countCap)) : Promise.resolve(null),
    ]);
    return { rows: rows as Row[], totalResults: total };
  }

  /**
   * The export's CSV text, chunk by chunk, written by the database: the same walk as exportChunks
   * (keyset chunks of `chunkRows`, each a short statement of its own, the next chunk read while the
   * consumer writes this one, no reads once the consumer stops pulling), but Node handles no row's
   * fields. On a server each chunk is `COPY … TO STDOUT (FORMAT csv)` (csvCopySql: PostgreSQL's CSV
   * writer, streamed by pg-copy-streams) and only its line ends are made CRLF; the embedded database,
   * whose connection carries no COPY, aggregates each chunk's lines into one text value (csvChunkSql).
   */
  async *exportText(filter: EventFilter, chunkRows: number): AsyncGenerator<ExportChunk> {
    const cutoff = this.cutoff();
    const hi = await this.horizon(filter.scope.accountId);
    const read = (after: ExportKey | null): Promise<ReadChunk> => {
      const page = pageQuery(filter, { cutoff, lo: 0, hi, after }, { limit: chunkRows, columns: CSV_SQL_COLUMNS });
      return this.copyOut ? this.copiedChunk(filter, page) : this.aggregatedChunk(filter, page);
    };
    let pending: Promise<ReadChunk> | null = read(null);
    try {
      while (pending) {
        const chunk: ReadChunk = await pending;
        pending = chunk.rows === chunkRows && chunk.last ? read(chunk.last) : null;
        if (chunk.rows > 0) yield { text: chunk.text, rows: chunk.rows };
      }
    } finally {
      // Stopped early: let the read in flight finish quietly (its text is dropped).
      pending?.catch(() => {});
    }
  }

  /** One chunk as one text value: the lines aggregated by the database, and the last row's keys. */
  private async aggregatedChunk(filter: EventFilter, page: SqlText): Promise<ReadChunk> {
    const values = [...page.values, eventTypeNameArray()];
    const text = csvChunkSql(page.text, `$${values.length}`, filter.sort);
    const { rows } = await this.pool.query<{ text: string | null; n: number; last_ms: number; last_seq: number }>({
      name: statementName(text),
      text,
      values,
    });
    const { text: lines, n, last_ms, last_seq } = rows[0]!;
    return { text: lines ?? '', rows: n, last: n > 0 ? { occurredAt: Number(last_ms), seq: Number(last_seq) } : null };
  }

  /**
   * One chunk by COPY. The lines are read whole before the connection goes back (a slow client holds
   * memory for a chunk, never a connection); the keys to continue after are the last row's, found
   * by its id and UTC time — its first two cells — on the same connection.
   */
  private async copiedChunk(filter: EventFilter, page: SqlText): Promise<ReadChunk> {
    const sql = csvCopySql(withValuesWritten(page.text, page.values), eventTypeNamesLiteral, filter.sort);
    const client = await this.pool.connect();
    try {
      const copied = Buffer.concat(await client.query(copyTo(sql)).toArray());
      const { text, rows, lastRowStart } = csvRowsFromCopy(copied);
      let last: ExportKey | null = null;
      if (rows > 0) {
        const id = text.toString('latin1', lastRowStart, lastRowStart + 36);
        const shown = Date.parse(text.toString('latin1', lastRowStart + 37, lastRowStart + 61));
        const key = await client.query<{ ms: string; seq: string }>({
          name: 'gwe_export_key',
          text:
            'select (extract(epoch from occurred_at) * 1000)::int8 as ms, seq from gateway_events ' +
            'where account_id = $1::int8 and occurred_at >= $2::timestamptz and occurred_at < $3::timestamptz and id = $4::uuid',
          values: [filter.scope.accountId, formatUtc(shown - 1), formatUtc(shown + 1), id],
        });
        const row = key.rows[0];
        if (!row) throw new Error('the export lost its place: the last row of a chunk is gone');
        last = { occurredAt: Number(row.ms), seq: Number(row.seq) };
      }
      client.release();
      return { text, rows, last };
    } catch (error) {
      // The connection may be mid-COPY: it is closed, not reused.
      client.release(error instanceof Error ? error : true);
      throw error;
    }
  }

  /**
   * Every event of the filter committed when the export began, in chunks of `chunkRows`, read
   * by keyset: each chunk is one short statement (no transaction stays open, which matters on the
   * embedded database), rows come as arrays (no object per row), and the next chunk is already
   * being read while the consumer writes this one. A consumer that stops pulling stops the reads.
   */
  async *exportChunks(filter: EventFilter, chunkRows: number): AsyncGenerator<CsvRow[]> {
    const cutoff = this.cutoff();
    const hi = await this.horizon(filter.scope.accountId);
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
