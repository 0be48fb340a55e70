// SQL of the auctions face: the facility lock, auctions and their history, reads, idempotency
// keys. (Images: images-repository.ts.)
// Bulk writes go through `unnest` (one statement for 5,000 rows); status changes go through
// `transitionAuctions`, which applies one trigger of the transition table as a conditional UPDATE
// and writes the history rows in the same statement.
import type { EntityId } from '../ids.ts';
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { AuctionStatus, AuctionType, PendingReason, UnitRecord } from './model.ts';
import type { LatestAuction } from './plan.ts';
import { statusesAllowing, targetOf, type Trigger } from './transitions.ts';
import { isOpaqueId } from '../ids.ts';

export interface FacilityRow {
  id: EntityId;
  accountId: EntityId;
  name: string;
  guid: string | null;
  charityEnrolled: boolean;
}

const facilityColumns = ['id', 'account_id', 'name', 'guid', 'charity_enrolled'] as const;
type FacilityColumns = {
  id: EntityId;
  account_id: EntityId;
  name: string;
  guid: string | null;
  charity_enrolled: boolean;
};
const toFacility = (r: FacilityColumns): FacilityRow => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  guid: r.guid,
  charityEnrolled: r.charity_enrolled,
});

export async function facilityByGuid(db: Db, guid: string): Promise<FacilityRow | null> {
  const row = await db.selectFrom('facilities').select(facilityColumns).where('guid', '=', guid).executeTakeFirst();
  return row ? toFacility(row) : null;
}

export async function facilityById(db: Db, id: EntityId): Promise<FacilityRow | null> {
  const row = await db.selectFrom('facilities').select(facilityColumns).where('id', '=', id).executeTakeFirst();
  return row ? toFacility(row) : null;
}

/** The ids of the facilities with these guids. */
export async function facilityIdsByGuids(db: Db, guids: string[]): Promise<EntityId[]> {
  const rows = await db.selectFrom('facilities').select('id').where('guid', 'in', guids).execute();
  return rows.map((r) => r.id);
}

export async function setCharityEnrolled(db: Db, facilityId: EntityId, enrolled: boolean) {
  return (await db
    .updateTable('facilities')
    .set({ charity_enrolled: enrolled })
    .where('id', '=', facilityId)
    .returning(['id', 'guid', 'charity_enrolled'])
    .executeTakeFirst())!;
}

/**
 * The per-facility serialisation point: every auction write of a facility takes this row lock
 * first, so creates, cancels, admin changes and closing never interleave. FOR NO KEY UPDATE does
 * not block other faces' foreign keys to the facility. Returns the clock once the lock is held.
 */
export async function lockFacility(
  db: Db,
  facilityId: EntityId,
): Promise<{ charityEnrolled: boolean; now: Date } | null> {
  const { rows } = await sql<{ charity_enrolled: boolean }>`
    select charity_enrolled from facilities where id = ${facilityId} for no key update`.execute(db);
  const row = rows[0];
  if (!row) return null;
  // The time once the lock is held (not now(), the start of the transaction, which may have waited
  // for the lock): the writes of one facility then carry times in the order they were applied.
  const { rows: clock } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(db);
  return { charityEnrolled: row.charity_enrolled, now: clock[0]!.now };
}

/** Per unit of the facility, its latest auction (ordered by unit, so withdrawals come out sorted). */
export async function latestAuctions(db: Db, facilityId: EntityId): Promise<Map<string, LatestAuction>> {
  const { rows } = await sql<{
    id: string;
    unit_id: string;
    status: AuctionStatus;
    content_hash: string;
    cancelled_at: Date | null;
  }>`
    select distinct on (unit_id) id, unit_id, status, content_hash, cancelled_at from auctions
    where facility_id = ${facilityId}
    order by unit_id, created_at desc`.execute(db);
  return new Map(
    rows.map((r) => [
      r.unit_id,
      {
        auctionId: r.id,
        unitId: r.unit_id,
        status: r.status,
        contentHash: r.content_hash,
        cancelledAt: r.cancelled_at,
      },
    ]),
  );
}

export interface NewAuction {
  id: string;
  unitId: string;
  unitName: string;
  auctionType: AuctionType;
  status: 'Active' | 'Pending';
  pendingReasons: PendingReason[];
  record: UnitRecord;
  contentHash: string;
  startsAt: Date | null;
  endsAt: Date | null;
}

export async function insertAuctions(db: Db, facilityId: EntityId, now: Date, rows: NewAuction[]): Promise<void> {
  if (rows.length === 0) return;
  // One JSON document for all rows: the records are JSON already, and one text parameter costs
  // far less than arrays of JSON strings (escaped element by element by the driver).
  const document = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      unit_id: r.unitId,
      unit_name: r.unitName,
      auction_type: r.auctionType,
      status: r.status,
      reasons: r.pendingReasons.join(','),
      record: r.record,
      content_hash: r.contentHash,
      starts_at: r.startsAt?.toISOString() ?? null,
      ends_at: r.endsAt?.toISOString() ?? null,
    })),
  );
  await sql`
    insert into auctions (id, facility_id, unit_id, unit_name, auction_type, status, pending_reasons, record,
      content_hash, starts_at, ends_at, created_at, updated_at)
    select u.id, ${facilityId}::int8, u.unit_id, u.unit_name, u.auction_type, u.status, string_to_array(u.reasons, ','),
      u.record, u.content_hash, u.starts_at, u.ends_at, ${now}, ${now}
    from json_to_recordset(${document}::json) as u(
      id uuid, unit_id text, unit_name text, auction_type text, status text, reasons text, record jsonb,
      content_hash text, starts_at timestamptz, ends_at timestamptz
    )`.execute(db);
}

export interface HistoryEntry {
  auctionId: string;
  from: AuctionStatus | null;
  to: AuctionStatus;
  trigger: Trigger;
  reason: string;
  note: string | null;
}

export async function insertHistory(db: Db, actor: string, now: Date, rows: HistoryEntry[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into auction_history (auction_id, at, from_status, to_status, trigger, actor, reason, note)
    select u.auction_id, ${now}, u.from_status, u.to_status, u.trigger, ${actor}, u.reason, u.note
    from unnest(
      ${rows.map((r) => r.auctionId)}::uuid[], ${rows.map((r) => r.from)}::text[], ${rows.map((r) => r.to)}::text[],
      ${rows.map((r) => r.trigger)}::text[], ${rows.map((r) => r.reason)}::text[], ${rows.map((r) => r.note)}::text[]
    ) as u(auction_id, from_status, to_status, trigger, reason, note)`.execute(db);
}

export interface TransitionInput {
  actor: string;
  reason: string;
  note?: string | null;
  now: Date;
  /** For `amend`: the reasons the auction stays Pending for. */
  pendingReasons?: PendingReason[];
  /** For `reportSale`. */
  sale?: { salePrice: number; soldAt: string; buyerName: string | null };
}

/**
 * Applies one trigger of the transition table to the auctions that are in a status it applies to
 * (the others are left as they are), and writes their history rows. Returns those changed.
 */
export async function transitionAuctions(
  db: Db,
  ids: string[],
  trigger: Trigger,
  input: TransitionInput,
): Promise<{ auctionId: string; from: AuctionStatus }[]> {
  if (ids.length === 0) return [];
  const to = targetOf(trigger);
  const from = statusesAllowing(trigger);
  const reasons = to === 'Pending' ? (input.pendingReasons ?? []) : [];
  const { rows } = await sql<{ auction_id: string; from_status: AuctionStatus }>`
    with target as (
      select id, status from auctions
      where id = any(${ids}::uuid[]) and status = any(${from}::text[])
      order by id
      for update
    ), changed as (
      update auctions a set
        status = ${to},
        updated_at = ${input.now},
        pending_reasons = ${reasons}::text[],
        cancelled_at = case when ${to} = 'Cancelled' then ${input.now}::timestamptz else a.cancelled_at end,
        closed_at = case when ${to} in ('ClosedSold', 'ClosedUnsold') then ${input.now}::timestamptz else a.closed_at end,
        sale = coalesce(${input.sale ? JSON.stringify(input.sale) : null}::jsonb, a.sale)
      from target where a.id = target.id
      returning a.id, target.status as from_status
    )
    insert into auction_history (auction_id, at, from_status, to_status, trigger, actor, reason, note)
    select id, ${input.now}, from_status, ${to}, ${trigger}, ${input.actor}, ${input.reason}, ${input.note ?? null} from changed
    returning auction_id, from_status`.execute(db);
  return rows.map((r) => ({ auctionId: r.auction_id, from: r.from_status }));
}

/** The auction a cancel of this unit is about: its open one, else its latest. */
export async function currentAuctionOfUnit(db: Db, facilityId: EntityId, unitId: string) {
  return db
    .selectFrom('auctions')
    .select(['id', 'status', 'cancelled_at', 'closed_at'])
    .where('facility_id', '=', facilityId)
    .where('unit_id', '=', unitId)
    .orderBy(sql`status in ('Pending', 'Active')`, 'desc')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function auctionRow(db: Db, auctionId: string) {
  return db
    .selectFrom('auctions as a')
    .innerJoin('facilities as f', 'f.id', 'a.facility_id')
    .selectAll('a')
    .select(['f.guid', 'f.name as facility_name', 'f.account_id'])
    .where('a.id', '=', auctionId)
    .executeTakeFirst();
}
export type AuctionRow = NonNullable<Awaited<ReturnType<typeof auctionRow>>>;

/** The auction with this id; undefined when there is none, or when the text is not an id at all. */
export async function findAuction(db: Db, auctionId: string): Promise<AuctionRow | undefined> {
  return isOpaqueId(auctionId) ? auctionRow(db, auctionId) : undefined;
}

export async function updatePendingRecord(
  db: Db,
  auctionId: string,
  now: Date,
  record: UnitRecord,
  contentHash: string,
  startsAt: Date | null,
  endsAt: Date | null,
) {
  await db
    .updateTable('auctions')
    .set({
      record: JSON.stringify(record),
      content_hash: contentHash,
      auction_type: record.auctionType,
      unit_name: record.unitName,
      starts_at: startsAt,
      ends_at: endsAt,
      updated_at: now,
    })
    .where('id', '=', auctionId)
    .where('status', '=', 'Pending')
    .execute();
}

export async function historyOf(db: Db, auctionId: string) {
  return db.selectFrom('auction_history').selectAll().where('auction_id', '=', auctionId).orderBy('id').execute();
}
export type HistoryRow = Awaited<ReturnType<typeof historyOf>>[number];

export interface ListFilter {
  facilityIds: EntityId[] | null;
  status?: AuctionStatus;
  unitId?: string;
  /** newest: newest first (the default); facility: by facility name, then unit (support's queue). */
  order?: 'newest' | 'facility';
  after?: { createdAt: Date; id: string } | FacilityKey;
  limit: number;
}

/** Where an auction stands in the facility order: its facility's name and id, its unit, its id. */
export interface FacilityKey {
  facilityName: string;
  facilityId: EntityId;
  unitId: string;
  id: string;
}

/**
 * Keyset-paged on (created_at, id), newest first; or, in the facility order, on (facility name,
 * facility id, unit id, id) ascending. Names and units compare byte-wise (collation "C"), so the
 * order is the same on every database whatever its locale.
 */
export async function listAuctions(db: Db, filter: ListFilter) {
  let query = db
    .selectFrom('auctions as a')
    .innerJoin('facilities as f', 'f.id', 'a.facility_id')
    .selectAll('a')
    .select(['f.guid', 'f.name as facility_name', 'f.account_id'])
    .limit(filter.limit + 1);
  query =
    filter.order === 'facility'
      ? query
          .orderBy(sql`f.name collate "C"`)
          .orderBy('a.facility_id')
          .orderBy(sql`a.unit_id collate "C"`)
          .orderBy('a.id')
      : query.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc');
  if (filter.facilityIds) {
    // No facility: no auction (an empty IN list is not SQL).
    if (filter.facilityIds.length === 0) return [];
    query = query.where('a.facility_id', 'in', filter.facilityIds);
  }
  if (filter.status) query = query.where('a.status', '=', filter.status);
  if (filter.unitId) query = query.where('a.unit_id', '=', filter.unitId);
  const after = filter.after;
  if (after && 'facilityName' in after) {
    query = query.where(
      sql<boolean>`(f.name collate "C", a.facility_id, a.unit_id collate "C", a.id) > (${after.facilityName}, ${after.facilityId}::int8, ${after.unitId}, ${after.id}::uuid)`,
    );
  } else if (after) {
    query = query.where(sql<boolean>`(a.created_at, a.id) < (${after.createdAt}, ${after.id}::uuid)`);
  }
  return query.execute();
}

// ---- charity enrolment and closing ----

/** The facility's Pending auctions held (among other reasons, perhaps) because it is not enrolled. */
export async function pendingForCharity(db: Db, facilityId: EntityId) {
  return db
    .selectFrom('auctions')
    .select(['id', 'pending_reasons'])
    .where('facility_id', '=', facilityId)
    .where('status', '=', 'Pending')
    .where((eb) => eb(eb.val('CHARITY_NOT_ENROLLED'), '=', eb.fn.any('pending_reasons')))
    .execute();
}

/** The status and end of these auctions. */
export async function endsOf(db: Db, auctionIds: string[]): Promise<{ status: string; endsAt: Date | null }[]> {
  const rows = await db.selectFrom('auctions').select(['status', 'ends_at']).where('id', 'in', auctionIds).execute();
  return rows.map((r) => ({ status: r.status, endsAt: r.ends_at }));
}

/** Up to 50 facilities with an Active auction whose end is at or before `cutOff`. */
export async function facilitiesWithEnded(db: Db, cutOff: Date): Promise<EntityId[]> {
  const rows = await db
    .selectFrom('auctions')
    .select('facility_id')
    .distinct()
    .where('status', '=', 'Active')
    .where('ends_at', '<=', cutOff)
    .limit(50)
    .execute();
  return rows.map((r) => r.facility_id);
}

/** The facility's Active auctions whose end is at or before `cutOff`. */
export async function endedAuctions(db: Db, facilityId: EntityId, cutOff: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('auctions')
    .select('id')
    .where('facility_id', '=', facilityId)
    .where('status', '=', 'Active')
    .where('ends_at', '<=', cutOff)
    .execute();
  return rows.map((r) => r.id);
}

// ---- idempotency keys ----

export async function idempotentResponse(db: Db, clientId: string, key: string) {
  return db
    .selectFrom('auction_idempotency_keys')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function saveIdempotentResponse(
  db: Db,
  row: { clientId: string; key: string; requestHash: string; status: number; response: string; now: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('auction_idempotency_keys')
    .values({
      client_id: row.clientId,
      key: row.key,
      request_hash: row.requestHash,
      status_code: row.status,
      response: row.response,
      created_at: row.now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function purgeIdempotencyKeys(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('auction_idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Which of these auctions are still Pending (the support room's AUCTION_PENDING groups resolve without them). */
export async function pendingAmong(db: Db, auctionIds: string[]): Promise<string[]> {
  if (auctionIds.length === 0) return [];
  const rows = await db
    .selectFrom('auctions')
    .select('id')
    .where('id', 'in', auctionIds)
    .where('status', '=', 'Pending')
    .execute();
  return rows.map((r) => r.id);
}
