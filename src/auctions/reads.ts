// Reads of auctions: a partner's (its facilities only, refusals in the envelope) and support's.
import type { EntityId } from '../ids.ts';
import type { PartnerPrincipal } from '../http/caller.ts';
import { notFound, validationFailed } from '../errors.ts';
import { recreateWaitMs, type AuctionDeps } from './deps.ts';
import { EnvelopeError } from './envelope.ts';
import { imagesOf } from './images-repository.ts';
import type { AuctionStatus } from './model.ts';
import { partnerFacilityIds } from './partner.ts';
import { findAuction, historyOf, listAuctions, type AuctionRow, type FacilityKey } from './repository.ts';
import { cursor, newestFirst, pageOf, type Page } from '../http/pages.ts';
import { auctionDetail, auctionSummary, type AuctionView } from './views.ts';

type ReadDeps = Pick<AuctionDeps, 'db' | 'config'>;

export interface AuctionQuery {
  status?: AuctionStatus;
  unitId?: string;
  limit: number;
  cursor?: string;
}

/** Support's lists may also read in the facility order (by facility name, then unit): a queue. */
export type AdminAuctionQuery = AuctionQuery & { facilityId?: EntityId; order?: 'newest' | 'facility' };

export type AuctionPage = { auctions: AuctionView[] } & Page;

/** One of the partner's auctions, whole (else 404 AUCTION_NOT_FOUND). */
export async function getAuctionForPartner(
  deps: ReadDeps,
  partner: PartnerPrincipal,
  auctionId: string,
): Promise<AuctionView> {
  const row = await findAuction(deps.db, auctionId);
  if (!row || row.guid === null || !partner.facilityGuids.includes(row.guid)) {
    throw new EnvelopeError(404, [
      { code: 'AUCTION_NOT_FOUND', message: 'No such auction is visible to this partner.', path: 'auctionId' },
    ]);
  }
  return detail(deps, row);
}

/** The partner's auctions, of one of its facilities (`guid`) or all of them. */
export async function listAuctionsForPartner(
  deps: ReadDeps,
  partner: PartnerPrincipal,
  query: AuctionQuery & { guid?: string },
): Promise<AuctionPage> {
  const facilityIds = await partnerFacilityIds(deps.db, partner, query.guid);
  const badCursor = (message: string) => new EnvelopeError(400, [{ code: 'INVALID_CURSOR', message, path: 'cursor' }]);
  return page(deps, { ...query, facilityIds }, badCursor);
}

/** Support's list: of one facility, or of all. */
export async function listAllAuctions(deps: ReadDeps, query: AdminAuctionQuery): Promise<AuctionPage> {
  const facilityIds = query.facilityId ? [query.facilityId] : null;
  const badCursor = (message: string) => validationFailed([{ path: 'cursor', message }]);
  if (query.order !== 'facility') return page(deps, { ...query, facilityIds }, badCursor);
  const after = query.cursor ? facilityCursor.decode(query.cursor) : undefined;
  if (after === null) throw badCursor('is not a cursor of this order that this service issued');
  const { status, unitId, limit } = query;
  const rows = await listAuctions(deps.db, { facilityIds, status, unitId, order: 'facility', after, limit });
  const waitMs = recreateWaitMs(deps.config);
  const { items, ...rest } = pageOf(rows, limit, facilityCursor.encode);
  return { auctions: items.map((row) => auctionSummary(row, waitMs)), ...rest };
}

/** Opaque keyset cursor of the facility order: the last auction's facility name and id, unit and id. */
const facilityCursor = {
  encode: (row: AuctionRow) =>
    Buffer.from(JSON.stringify(['f', row.facility_name, row.facility_id, row.unit_id, row.id])).toString('base64url'),
  decode(text: string): FacilityKey | null {
    try {
      const [tag, facilityName, facilityId, unitId, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
      const valid =
        tag === 'f' &&
        typeof facilityName === 'string' &&
        Number.isSafeInteger(facilityId) &&
        typeof unitId === 'string' &&
        typeof id === 'string' &&
        /^[0-9a-f-]{36}$/.test(id);
      return valid ? { facilityName, facilityId, unitId, id } : null;
    } catch {
      return null;
    }
  },
};

/** Support's read of one auction, whole (else 404). */
export async function getAuction(deps: ReadDeps, auctionId: string): Promise<AuctionView> {
  const row = await findAuction(deps.db, auctionId);
  if (!row) throw notFound('The auction');
  return detail(deps, row);
}

async function detail(deps: ReadDeps, row: AuctionRow): Promise<AuctionView> {
  const [images, history] = await Promise.all([imagesOf(deps.db, [row.id]), historyOf(deps.db, row.id)]);
  return auctionDetail(row, recreateWaitMs(deps.config), images, history);
}

/** Newest first, keyset-paged; the items carry no images or history. */
async function page(
  deps: ReadDeps,
  query: AuctionQuery & { facilityIds: EntityId[] | null },
  badCursor: (message: string) => Error,
): Promise<AuctionPage> {
  const after = query.cursor ? cursor.decode(query.cursor) : undefined;
  if (after === null) throw badCursor('is not a cursor this service issued');
  const { facilityIds, status, unitId, limit } = query;
  const rows = await listAuctions(deps.db, { facilityIds, status, unitId, after, limit });
  const waitMs = recreateWaitMs(deps.config);
  const views = rows.map((row) => auctionSummary(row, waitMs));
  const { items, ...rest } = pageOf(
    views,
    limit,
    newestFirst((a) => [a.createdAt, a.auctionId]),
  );
  return { auctions: items, ...rest };
}
