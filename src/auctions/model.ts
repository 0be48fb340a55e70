// The auction face's vocabulary and limits (SPEC.md §3, §9): one source for validation, the
// OpenAPI descriptions and the docs.
import type { RetrySchedule } from '../net/retry.ts';

export const AUCTION_STATUSES = ['Pending', 'Active', 'Cancelled', 'ClosedSold', 'ClosedUnsold'] as const;
export type AuctionStatus = (typeof AUCTION_STATUSES)[number];
export const OPEN_STATUSES: readonly AuctionStatus[] = ['Pending', 'Active'];
export const isOpen = (status: AuctionStatus) => status === 'Pending' || status === 'Active';

export const AUCTION_TYPES = ['Lien', 'Non-Lien', 'Charity'] as const;
export type AuctionType = (typeof AUCTION_TYPES)[number];

export const PENDING_REASONS = ['CHARITY_NOT_ENROLLED', 'INCOMPLETE'] as const;
export type PendingReason = (typeof PENDING_REASONS)[number];
/** The fields activation needs (SPEC §3.1): a record without one of them is held Pending, INCOMPLETE. */
export const ACTIVATION_FIELDS = ['description', 'startsAt', 'endsAt', 'imageUrls'] as const;
export type ActivationField = (typeof ACTIVATION_FIELDS)[number];

export const OUTCOMES = ['created', 'pending', 'unchanged', 'deferred', 'removed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** §3.6, in the contract's order. */
export const CATEGORIES = [
  'Appliances',
  'Books',
  'Boxes',
  'Cabinets & Shelves',
  'Clothing & Shoes',
  'Collectibles',
  'Computers',
  'Dishes & Kitchenware',
  'Documents & Files',
  'Electronics',
  'Food & Beverages',
  'Arms',
  'Health & Wellness',
  'Heavy Equipment',
  'Household Furniture',
  'Jewelry',
  'Lamps',
  'Mattress & Bedding',
  'Memorabilia',
  'Mirrors',
  'Motor Vehicles & Parts',
  'Movies, Music & Books',
  'New Merchandise',
  'Office Equipment',
  'Old Stuff',
  'Personal Effects',
  'Sports & Outdoors',
  'Tools & Supplies',
  'Toys, Baby & Games',
  'Wall Art',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Image retrieval's back-off (net/retry.ts): 5 attempts in all (LIMITS.imageAttempts), over about 45 minutes. */
export const IMAGE_RETRY: RetrySchedule = { stepsSeconds: [30, 120, 600, 1800] };

export const LIMITS = {
  guidLength: 20,
  clientTypeLength: 100,
  recordsPerCall: 5000,
  unitIdLength: 50,
  unitNameLength: 50,
  descriptionLength: 4000,
  tenantNameLength: 100,
  imageUrlsPerRecord: 25,
  imageUrlLength: 2048,
  /** numeric(12,2) */
  maximumBid: 9_999_999_999.99,
  cancelReasonLength: 500,
  /** Body limit of POST /api/3/auctioninfo: 5,000 records of ≈ 6.7 KB each. */
  createBodyBytes: 32 * 1024 * 1024,
  imageBytes: 10 * 1024 * 1024,
  /** Pixels of one image frame (width × height) that the service agrees to look at. */
  imagePixels: 100_000_000,
  imageRedirects: 3,
  imageAttempts: 5,
  idempotencyKeyLength: 255,
  idempotencyHours: 24,
} as const;

/** A record of auctionableUnitInfo after validation: defaults applied, times parsed. */
export interface UnitRecord {
  unitId: string;
  unitName: string;
  auctionType: AuctionType;
  unitWidth: number | null;
  unitLength: number | null;
  description: string | null;
  categories: Category[];
  tenantName: string | null;
  startsAt: string | null;
  endsAt: string | null;
  minimumBid: number | null;
  imageUrls: string[];
}

/** What the service needs of a partner's record: the record, its content hash, its instants. */
export interface ValidRecord {
  record: UnitRecord;
  contentHash: string;
  startsAt: Date | null;
  endsAt: Date | null;
}
