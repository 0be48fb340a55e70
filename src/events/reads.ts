// Reading events: a page (by number or by cursor) with its metadata, and a legacy limit/offset slice.
import { AppError } from '../errors.ts';
import { InvalidCursorError } from './cursor.ts';
import { DEFAULT_PAGE_SIZE } from './limits.ts';
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
      'eventTypes, facilityIds, startDate, endDate and sort.',
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
    };
    return { page, metadata };
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidCursor();
    throw error;
  }
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
