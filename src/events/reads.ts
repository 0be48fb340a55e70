// Reading events: a page (by number or by cursor) with its metadata, and a legacy limit/offset slice.
import { AppError } from '../errors.ts';
import { COMBINED_COLUMNS, type CombinedEventRow, CombinedItemsWriter } from './combined.ts';
import { InvalidCursorError } from './cursor.ts';
import { DEFAULT_PAGE_SIZE, EXACT_TOTAL_CAP, MAX_COMBINED_RESULTS } from './limits.ts';
import type { EventFilter } from './query.ts';
import type { EventStore } from './store.ts';

export interface PagingParams {
  pageSize?: number;
  pageNumber?: number;
  cursor?: string;
}

const invalidCursor = () =>
  new AppError(
    400,
    'INVALID_CURSOR',
    'The cursor is not valid for this request: pass metadata.nextCursor unchanged, to the same route, with the same ' +
      'eventTypes, facilityIds, unitIds, visitorIds, startDate, endDate and sort.',
    [{ path: 'cursor', message: 'is not a cursor of this query' }],
  );

/** One page of the filter's events and the metadata the v3 answer carries. */
export async function readPage(store: EventStore, filter: EventFilter, paging: PagingParams) {
  const pageSize = paging.pageSize ?? DEFAULT_PAGE_SIZE;
  try {
    const page = await store.page(filter, {
      pageSize,
      pageNumber: paging.pageNumber ?? 1,
      cursor: paging.cursor || null,
    });
    const metadata = {
      pageSize,
      pageNumber: page.pageNumber,
      totalResults: page.totalResults,
      totalPages: Math.ceil(page.totalResults / pageSize),
      nextCursor: page.nextCursor,
      // Above the cap the total is the planner's estimate (store.ts).
      totalResultsExact: page.totalResults <= EXACT_TOTAL_CAP,
    };
    return { page, metadata };
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidCursor();
    throw error;
  }
}

/**
 * A page of the combined-events route, as the JSON it answers: the newest MAX_COMBINED_RESULTS events
 * of the filter at most, paged by number (a page reaching past them holds only the part within
 * them); totalResults counts up to that many. Without metadata (hideMetadata) nothing is counted.
 * Each row is written into the answer as it arrives from the database.
 */
export async function readCombinedPage(
  store: EventStore,
  filter: EventFilter,
  pageSize: number,
  pageNumber: number,
  withMetadata: boolean,
): Promise<Buffer> {
  const offset = (pageNumber - 1) * pageSize;
  const limit = Math.max(0, Math.min(pageSize, MAX_COMBINED_RESULTS - offset));
  const items = new CombinedItemsWriter(limit);
  const { totalResults } = await store.slice<CombinedEventRow>(filter, limit, offset, withMetadata, {
    columns: COMBINED_COLUMNS,
    countCap: MAX_COMBINED_RESULTS,
    onRow: (row) => items.add(row),
  });
  if (!withMetadata) return items.answer(null);
  const total = totalResults ?? 0;
  return items.answer({ totalResults: total, pageSize, pageNumber, totalPages: Math.ceil(total / pageSize) });
}

/** A legacy page by limit and offset, with the total and the page number it implies when asked. */
export async function readSlice(
  store: EventStore,
  filter: EventFilter,
  limit: number,
  offset: number,
  withTotal: boolean,
) {
  const { rows, totalResults } = await store.slice(filter, limit, offset, withTotal);
  const total = totalResults ?? 0;
  const metadata = {
    limit,
    offset,
    totalResults: total,
    totalPages: Math.ceil(total / limit),
    pageNumber: Math.floor(offset / limit) + 1,
  };
  return { rows, metadata };
}
