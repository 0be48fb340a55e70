// The limits of the events face, in one place: enforced by the code, quoted by the OpenAPI text.

/** Events per ingest batch (SPEC.md §9). */
export const MAX_BATCH_EVENTS = 1000;
/** Body size of one ingest request: a batch of 1,000 typical events is about 0.5 MB. */
export const MAX_INGEST_BODY_BYTES = 10 * 1024 * 1024;
/** A device clock further ahead than this is not trusted (SPEC.md §5). */
export const CLOCK_AHEAD_TOLERANCE_MS = 5 * 60_000;

export const FIELD_LIMITS = {
  eventId: 100,
  deviceId: 100,
  deviceName: 200,
  unitId: 100,
  visitorId: 100,
  codeEntered: 32,
  details: 4000,
  /** data.reason of a failed acknowledgement (event 3 with data.result "failed"). */
  commandFailureReason: 500,
  /** Bytes of `data` serialized as JSON. */
  dataBytes: 16 * 1024,
} as const;

/** Results per page (SPEC.md §9). */
export const MAX_PAGE_SIZE = 10_000;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_NUMBER = 10_000_000;
/** The combined-events route (SPEC §6.3) answers the newest 10,000 events of its filter at most. */
export const MAX_COMBINED_RESULTS = 10_000;
/** Values of one list parameter (eventTypes, facilityIds). */
export const MAX_FILTER_VALUES = 500;
/**
 * Rows fetched from the database per step of a CSV export (about 4 MB of CSV; an export holds at most
 * two steps). Each step is a statement planned afresh (COPY takes no prepared plan): at 5,000 rows
 * planning was 15–20 % of the database's time, at 20,000 about 5 %.
 */
export const EXPORT_CHUNK_ROWS = 20_000;
/**
 * A page's total (v3 metadata.totalResults, the paged export's X-Total-Count) is counted exactly up to
 * this many events; beyond it, it is the planner's estimate (never below this + 1), flagged
 * totalResultsExact: false. So the count reads at most this many index entries, whatever the filter.
 */
export const EXACT_TOTAL_CAP = 10_000;
