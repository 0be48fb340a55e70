// SQL of the auctions' images: `auction_images` (one row per image URL of an auction, which is
// also the work list of image retrieval) and `media_blobs` (one row per distinct content stored).
import type { EntityId } from '../ids.ts';
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';

export async function insertImages(
  db: Db,
  now: Date,
  rows: { auctionId: string; position: number; sourceUrl: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into auction_images (auction_id, position, source_url, next_attempt_at, updated_at)
    select u.auction_id, u.position, u.source_url, ${now}, ${now}
    from unnest(
      ${rows.map((r) => r.auctionId)}::uuid[], ${rows.map((r) => r.position)}::int[], ${rows.map((r) => r.sourceUrl)}::text[]
    ) as u(auction_id, position, source_url)`.execute(db);
}

export async function replaceImages(db: Db, now: Date, auctionId: string, urls: string[]): Promise<void> {
  await db.deleteFrom('auction_images').where('auction_id', '=', auctionId).execute();
  await insertImages(
    db,
    now,
    urls.map((sourceUrl, position) => ({ auctionId, position, sourceUrl })),
  );
}

/** The images of these auctions with what is known of their stored content, in order. */
export async function imagesOf(db: Db, auctionIds: string[]) {
  if (auctionIds.length === 0) return [];
  return db
    .selectFrom('auction_images as i')
    .leftJoin('media_blobs as b', 'b.sha256', 'i.sha256')
    .select(['i.auction_id', 'i.position', 'i.source_url', 'i.status', 'i.error', 'i.attempts', 'i.sha256'])
    .select(['b.content_type', 'b.extension', 'b.bytes', 'b.width', 'b.height'])
    .where('i.auction_id', 'in', auctionIds)
    .orderBy('i.auction_id')
    .orderBy('i.position')
    .execute();
}
export type ImageRow = Awaited<ReturnType<typeof imagesOf>>[number];

// ---- the work list of image retrieval ----

/** Images due at `now` whose auction is no longer open are failed, not fetched. */
export async function failImagesOfClosedAuctions(db: Db, now: Date): Promise<void> {
  const error = 'AUCTION_NOT_OPEN: the auction was cancelled or closed before the image was fetched.';
  await sql`
    update auction_images i set status = 'failed', error = ${error}, updated_at = ${now}
    from auctions a
    where a.id = i.auction_id and i.status = 'pending' and i.next_attempt_at <= ${now}
      and a.status not in ('Pending', 'Active')`.execute(db);
}

/** An image claimed for one attempt, with what a notification about it names. */
export interface ImageClaim {
  auction_id: string;
  position: number;
  source_url: string;
  attempts: number;
  facility_id: EntityId;
  unit_id: string;
  guid: string | null;
}

/**
 * Claims up to `limit` images due at `now` of open auctions, for 5 minutes (a lease: SKIP LOCKED,
 * so the workers of several processes never fetch one image twice), counting the attempt.
 */
export async function claimDueImages(db: Db, now: Date, limit: number): Promise<ImageClaim[]> {
  const { rows } = await sql<ImageClaim>`
    with due as (
      select i.auction_id, i.position from auction_images i
      join auctions a on a.id = i.auction_id and a.status in ('Pending', 'Active')
      where i.status = 'pending' and i.next_attempt_at <= ${now} and (i.lease_until is null or i.lease_until < ${now})
      order by i.next_attempt_at, i.auction_id, i.position
      limit ${limit}
      for update of i skip locked
    )
    update auction_images i
    set lease_until = ${now}::timestamptz + interval '5 minutes', attempts = i.attempts + 1, updated_at = ${now}
    from due, auctions a, facilities f
    where i.auction_id = due.auction_id and i.position = due.position and a.id = i.auction_id and f.id = a.facility_id
    returning i.auction_id, i.position, i.source_url, i.attempts, a.facility_id, a.unit_id, f.guid`.execute(db);
  return rows;
}

/** The outcome of an attempt: stored (with its content), to retry at a time, or failed for good. */
export type ImageOutcome =
  | { status: 'stored'; sha256: string }
  | { status: 'pending'; error: string; nextAttemptAt: Date }
  | { status: 'failed'; error: string };

/** Records the outcome of a claimed image's attempt and ends its lease. */
export async function recordImageOutcome(db: Db, claim: ImageClaim, outcome: ImageOutcome): Promise<void> {
  const set =
    outcome.status === 'stored'
      ? { status: 'stored', sha256: outcome.sha256, error: null }
      : outcome.status === 'pending'
        ? { error: outcome.error, next_attempt_at: outcome.nextAttemptAt }
        : { status: 'failed', error: outcome.error };
  await db
    .updateTable('auction_images')
    .set({ ...set, lease_until: null, updated_at: new Date() })
    .where('auction_id', '=', claim.auction_id)
    .where('position', '=', claim.position)
    .execute();
}

/** Whether an image is due (the maintenance job's check for a lost wake-up). */
export async function hasDueImage(db: Db, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('auction_images')
    .select('auction_id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

// ---- stored contents ----

export async function isBlobKnown(db: Db, sha256: string): Promise<boolean> {
  const row = await db.selectFrom('media_blobs').select('sha256').where('sha256', '=', sha256).executeTakeFirst();
  return row !== undefined;
}

export async function insertBlob(
  db: Db,
  blob: { sha256: string; contentType: string; extension: string; bytes: number; width: number; height: number },
): Promise<void> {
  await db
    .insertInto('media_blobs')
    .values({
      sha256: blob.sha256,
      content_type: blob.contentType,
      extension: blob.extension,
      bytes: blob.bytes,
      width: blob.width,
      height: blob.height,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function blobBySha256(db: Db, sha256: string) {
  return db
    .selectFrom('media_blobs')
    .select(['content_type', 'extension', 'bytes'])
    .where('sha256', '=', sha256)
    .executeTakeFirst();
}
