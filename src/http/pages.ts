// Keyset pages of a list read newest first (auctions, support notifications): an opaque cursor
// over (created_at, id), and the page made of a read of one item more than the limit. Pure.

/** Opaque keyset cursor over (created_at, id). */
export const cursor = {
  encode: (createdAt: string, id: string) => Buffer.from(`${createdAt}|${id}`).toString('base64url'),
  decode(text: string): { createdAt: Date; id: string } | null {
    const [createdAt, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
    if (!createdAt || !id || !/^[0-9a-f-]{36}$/.test(id)) return null;
    const date = new Date(createdAt);
    return Number.isNaN(date.getTime()) ? null : { createdAt: date, id };
  },
};

export interface Page {
  hasMore: boolean;
  /** The cursor of the next page, when there is one. */
  nextCursor: string | null;
}

/**
 * A page of a list read with one item more than `limit` (which tells that there is more): the
 * first `limit` items, and the cursor after the last of them (`cursorOf`: `newestFirst` for a
 * list newest first).
 */
export function pageOf<T>(items: T[], limit: number, cursorOf: (item: T) => string): { items: T[] } & Page {
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = items.length > limit;
  return { items: page, hasMore, nextCursor: hasMore && last ? cursorOf(last) : null };
}

/** The newest-first cursor after an item, from its creation time and id. */
export const newestFirst =
  <T>(keyOf: (item: T) => [createdAt: string, id: string]) =>
  (item: T) =>
    cursor.encode(...keyOf(item));
