// The CSV export of a filter's events. Without paging: every matching event committed when the
// export began, read by keyset in chunks and handed on one chunk at a time (the consumer's pace sets
// the reads, so memory does not grow with the export and a client that goes away stops them). With
// paging: that one page, and the next page's cursor.
import type { Counter } from 'prom-client';
import { CSV_HEADER_LINE, csvLines, csvRowOf } from './csv.ts';
import { EXPORT_CHUNK_ROWS } from './limits.ts';
import type { EventFilter } from './query.ts';
import { readPage, type PagingParams } from './reads.ts';
import type { EventStore } from './store.ts';

export interface CsvExport {
  /** The CSV text, chunk by chunk (UTF-8 bytes or text). */
  lines: AsyncGenerator<string | Buffer>;
  /** Paged exports: the next page's cursor (X-Next-Cursor) and the total (X-Total-Count). */
  nextCursor: string | null;
  totalResults: number | null;
  /** Whether totalResults is exact (X-Total-Count-Exact): above EXACT_TOTAL_CAP it is an estimate. */
  totalResultsExact: boolean | null;
}

const isPaged = (paging: PagingParams) =>
  paging.pageSize !== undefined || paging.pageNumber !== undefined || Boolean(paging.cursor);

/**
 * Starts an export. The first read happens before this returns, so that a failure is still a proper
 * error answer, not a broken download.
 */
export async function exportCsv(
  store: EventStore,
  filter: EventFilter,
  paging: PagingParams,
  exportedRows: Counter,
): Promise<CsvExport> {
  if (isPaged(paging)) {
    const { page, metadata } = await readPage(store, filter, paging);
    exportedRows.inc(page.rows.length);
    const lines = (async function* () {
      yield CSV_HEADER_LINE + csvLines(page.rows.map(csvRowOf));
    })();
    return {
      lines,
      nextCursor: page.nextCursor,
      totalResults: page.totalResults,
      totalResultsExact: metadata.totalResultsExact,
    };
  }
  const chunks = store.exportText(filter, EXPORT_CHUNK_ROWS);
  const first = await chunks.next();
  const lines = (async function* () {
    try {
      yield CSV_HEADER_LINE;
      if (first.done) return;
      exportedRows.inc(first.value.rows);
      yield first.value.text;
      for (;;) {
        const next = await chunks.next();
        if (next.done) return;
        exportedRows.inc(next.value.rows);
        yield next.value.text;
      }
    } finally {
      await chunks.return(undefined);
    }
  })();
  return { lines, nextCursor: null, totalResults: null, totalResultsExact: null };
}
