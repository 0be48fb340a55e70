// The auction face's operations: the full-list import, the cancel, the life-cycle changes made by
// support and by the clock, and the reads. Each write is one short transaction that first takes
// the facility's lock (repository.lockFacility), so the writes of one facility are applied one at
// a time, in arrival order, and a large create racing a cancel equals the two in sequence.
import { createHash, randomUUID } from 'node:crypto';
import type pino from 'pino';
import type { PartnerPrincipal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import { AppError, notFound, validationFailed } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { EnvelopeError, envelope, type EnvelopeMessage } from './envelope.ts';
import { JOBS } from './job-names.ts';
import type { AuctionStatus, AuctionType, PendingReason, UnitRecord, ValidRecord } from './model.ts';
import type { NewNotification, NotificationView, SupportNotifier } from './notifications.ts';
import { planSync, type PlannedUnit, type SyncPlan } from './plan.ts';
import * as repo from './repository.ts';
import { sqlRunner, type FacilityRow } from './repository.ts';
import type { Db } from '../db/tables.ts';
import { missingForActivation, pendingReasons, validateAmendedRecord, validateCancelRequest, validateCreateRequest, type Fault } from './validation.ts';
import { auctionDetail, auctionSummary, cursor, type AuctionView } from './views.ts';
import { isEntityId, isOpaqueId } from '../ids.ts';

export interface ImportResult {
  status: number;
  /** The serialised envelope (stored as such for Idempotency-Key replays). */
  body: string;
  replayed: boolean;
  /** What was applied (none for a dry run or a replay). */
  applied: SyncPlan['summary'] | null;
}

export interface UnitResult {
  unitId: string;
  auctionId: string | null;
  outcome: PlannedUnit['outcome'];
  status: AuctionStatus;
  reason?: string;
  retryAfter?: string;
}

export interface ServiceDeps {
  db: Db;
  config: Pick<Config, 'auctionRecreateWaitMinutes' | 'imageFetchAllowHosts'>;
  jobs: JobQueue;
  notifier: SupportNotifier;
  logger: pino.Logger;
}

const faultsToMessages = (faults: Fault[]): EnvelopeMessage[] => faults.map((f) => ({ code: f.code, message: f.message, path: f.path }));

export class AuctionService {
  private readonly waitMs: number;

  constructor(private readonly deps: ServiceDeps) {
    this.waitMs = deps.config.auctionRecreateWaitMinutes * 60_000;
  }

  private get db() {
    return this.deps.db;
  }

  // ---- partner: facility and client type ----

  /** The facility a partner names by guid: one of its own (else 404), with its client type (else 403). */
  private async partnerFacility(partner: PartnerPrincipal, guid: string, clientType: string): Promise<FacilityRow> {
    const facility = partner.facilityGuids.includes(guid) ? await repo.facilityByGuid(this.db, guid) : null;
    if (!facility) throw new EnvelopeError(404, [{ code: 'FACILITY_NOT_FOUND', message: `No facility with the guid ${guid} is assigned to this partner.`, path: 'guid' }]);
    if (clientType !== partner.clientType) {
      throw new EnvelopeError(403, [{ code: 'CLIENT_TYPE_MISMATCH', message: 'clientType is not the client type assigned to this partner.', path: 'clientType' }]);
    }
    return facility;
  }

  // ---- POST /api/3/auctioninfo ----

  async importFullList(partner: PartnerPrincipal, input: { body: unknown; dryRun: boolean; idempotencyKey: string | null }): Promise<ImportResult> {
    const validated = validateCreateRequest(input.body, { allowHosts: this.deps.config.imageFetchAllowHosts });
    if (!validated.ok) throw new EnvelopeError(400, faultsToMessages(validated.faults));
    const { guid, clientType, records } = validated.value;
    const facility = await this.partnerFacility(partner, guid, clientType);
    const actor = `partner:${partner.clientId}`;
    const key = input.dryRun ? null : input.idempotencyKey;
    const requestHash = key ? createHash('sha256').update(JSON.stringify(input.body)).digest('base64url') : '';

    const outcome = await this.db.transaction().execute(async (trx) => {
      const lock = await repo.lockFacility(trx, facility.id);
      if (!lock) throw new EnvelopeError(404, [{ code: 'FACILITY_NOT_FOUND', message: `No facility with the guid ${guid} is assigned to this partner.`, path: 'guid' }]);
      const { now, charityEnrolled } = lock;
      if (key) {
        const prior = await repo.idempotentResponse(trx, partner.clientId, key);
        if (prior) {
          if (prior.request_hash !== requestHash) {
            throw new EnvelopeError(422, [{ code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was used with a different request body; use a new key for a new request.' }]);
          }
          return { status: prior.status_code, body: prior.response, replayed: true, notifications: [] as NotificationView[], applied: null };
        }
      }
      const latest = await repo.latestAuctions(trx, facility.id);
      const plan = planSync({ latest, charityEnrolled }, records, now, { recreateWaitMs: this.waitMs });
      if (plan.ended.length > 0) {
        throw new EnvelopeError(
          400,
          plan.ended.slice(0, 1000).map(({ index, unitId }) => ({
            code: 'IN_THE_PAST',
            message: `endsAt has passed: the unit ${unitId} has no auction with this record to keep, and a new auction cannot end in the past.`,
            path: `auctionableUnitInfo[${index}].endsAt`,
          })),
        );
      }
      const ids = new Map<string, string>();
      let notifications: NotificationView[] = [];
      if (!input.dryRun) notifications = await this.applyPlan(trx, facility, plan.units, actor, now, ids);

      const warnings: EnvelopeMessage[] = [];
      const indexOf = new Map(records.map((r, i) => [r.record.unitId, i]));
      const results = plan.units.map((unit): UnitResult => {
        switch (unit.outcome) {
          case 'created':
            return { unitId: unit.unitId, auctionId: ids.get(unit.unitId) ?? null, outcome: unit.outcome, status: unit.status };
          case 'pending':
            return { unitId: unit.unitId, auctionId: ids.get(unit.unitId) ?? null, outcome: unit.outcome, status: unit.status, reason: unit.reasons[0] };
          case 'unchanged':
            if (unit.contentChanged) {
              warnings.push({
                code: 'ACTIVE_AUCTION_IMMUTABLE',
                message: `The unit ${unit.unitId} has an open (${unit.status}) auction whose content cannot change; the new record was not applied. Cancel the auction, wait ${this.deps.config.auctionRecreateWaitMinutes} minutes, and send the list again.`,
                path: `auctionableUnitInfo[${indexOf.get(unit.unitId)}]`,
              });
            }
            return { unitId: unit.unitId, auctionId: unit.auctionId, outcome: unit.outcome, status: unit.status };
          case 'deferred':
            return { unitId: unit.unitId, auctionId: unit.auctionId, outcome: unit.outcome, status: unit.status, retryAfter: unit.retryAfter.toISOString() };
          case 'removed':
            return { unitId: unit.unitId, auctionId: unit.auctionId, outcome: unit.outcome, status: 'Cancelled', reason: 'REMOVED_FROM_LIST' };
        }
      });
      const data = { guid, dryRun: input.dryRun, results, summary: plan.summary };
      const body = JSON.stringify(envelope(200, data, [], warnings));
      if (key && !(await repo.saveIdempotentResponse(trx, { clientId: partner.clientId, key, requestHash, status: 200, response: body, now }))) {
        // The same key, at the same moment, for another facility: let the client retry.
        throw new EnvelopeError(409, [{ code: 'IDEMPOTENCY_KEY_IN_USE', message: 'A request with this Idempotency-Key is being processed; retry it shortly.' }]);
      }
      return { status: 200, body, replayed: false, notifications, applied: input.dryRun ? null : plan.summary };
    });
    this.deps.notifier.logCreated(outcome.notifications);
    return { status: outcome.status, body: outcome.body, replayed: outcome.replayed, applied: outcome.applied };
  }

  /** Writes a plan: new auctions with their history and images, withdrawals, notifications, wake-ups. */
  private async applyPlan(trx: Db, facility: FacilityRow, units: PlannedUnit[], actor: string, now: Date, ids: Map<string, string>): Promise<NotificationView[]> {
    const created: repo.NewAuction[] = [];
    const removed: string[] = [];
    for (const unit of units) {
      if (unit.outcome === 'created' || unit.outcome === 'pending') {
        const id = randomUUID();
        ids.set(unit.unitId, id);
        created.push(newAuction(id, unit.record, unit.outcome === 'pending' ? unit.reasons : []));
      } else if (unit.outcome === 'removed') {
        removed.push(unit.auctionId);
      }
    }
    await repo.insertAuctions(trx, facility.id, now, created);
    await repo.insertHistory(
      trx,
      actor,
      now,
      created.map((a) => ({
        auctionId: a.id,
        from: null,
        to: a.status,
        trigger: a.status === 'Active' ? 'create' : 'hold',
        reason: a.status === 'Active' ? 'CREATED' : a.pendingReasons.join(','),
        note: null,
      })),
    );
    const images = created.flatMap((a) => a.record.imageUrls.map((sourceUrl, position) => ({ auctionId: a.id, position, sourceUrl })));
    await repo.insertImages(trx, now, images);
    if (removed.length > 0) {
      await repo.transitionAuctions(trx, removed, 'withdraw', { actor, reason: 'REMOVED_FROM_LIST', now });
      await this.deps.notifier.resolveForAuctions(trx, removed, now, actor, 'CANCELLED');
    }
    const notifications = await this.deps.notifier.create(
      trx,
      now,
      created.filter((a) => a.status === 'Pending').map((a) => pendingNotification(facility, a.id, a.record, a.pendingReasons)),
    );
    await this.wakeUps(trx, images.length > 0, created);
    return notifications;
  }

  /** Wake-up jobs, enqueued in the transaction: images to fetch, and the earliest end to close. */
  private async wakeUps(trx: Db, hasImages: boolean, created: { status: string; endsAt: Date | null }[]): Promise<void> {
    const runner = sqlRunner(trx);
    if (hasImages) await this.deps.jobs.send(JOBS.fetchImages, {}, {}, runner);
    let earliest: Date | null = null;
    for (const a of created) if (a.status === 'Active' && a.endsAt && (earliest === null || a.endsAt < earliest)) earliest = a.endsAt;
    if (earliest) await this.deps.jobs.send(JOBS.closeEnded, {}, { startAfter: earliest }, runner);
  }

  // ---- PUT /api/3/cancelauctions ----

  async cancel(partner: PartnerPrincipal, body: unknown) {
    const validated = validateCancelRequest(body);
    if (!validated.ok) throw new EnvelopeError(400, faultsToMessages(validated.faults));
    const { guid, clientType, unitId, reason } = validated.value;
    const facility = await this.partnerFacility(partner, guid, clientType);
    const actor = `partner:${partner.clientId}`;
    const path = 'cancelAuctionIds[0].unitId';
    return this.db.transaction().execute(async (trx) => {
      const { now } = (await repo.lockFacility(trx, facility.id))!;
      const auction = await repo.currentAuctionOfUnit(trx, facility.id, unitId);
      if (!auction) throw new EnvelopeError(404, [{ code: 'UNIT_NOT_FOUND', message: `The unit ${unitId} has no auction at facility ${guid}.`, path }]);
      const state = (cancelledAt: Date | null) => ({
        auctionId: auction.id,
        unitId,
        status: auction.status as AuctionStatus,
        cancelledAt: cancelledAt?.toISOString() ?? null,
        recreateAfter: cancelledAt ? new Date(cancelledAt.getTime() + this.waitMs).toISOString() : null,
      });
      if (auction.status === 'Cancelled') {
        throw new EnvelopeError(409, [], [{ code: 'ALREADY_CANCELLED', message: `The auction of unit ${unitId} is already cancelled.`, path }], state(auction.cancelled_at));
      }
      if (auction.status === 'ClosedSold' || auction.status === 'ClosedUnsold') {
        throw new EnvelopeError(409, [], [{ code: 'ALREADY_CLOSED', message: `The auction of unit ${unitId} is already closed (${auction.status}).`, path }], { ...state(null), closedAt: auction.closed_at?.toISOString() ?? null });
      }
      await repo.transitionAuctions(trx, [auction.id], 'cancel', { actor, reason: 'CANCEL_REQUESTED', note: reason, now });
      await this.deps.notifier.resolveForAuctions(trx, [auction.id], now, actor, 'CANCELLED');
      return { auctionId: auction.id, unitId, status: 'Cancelled' as const, cancelledAt: now.toISOString(), recreateAfter: new Date(now.getTime() + this.waitMs).toISOString() };
    });
  }

  // ---- reads ----

  async getForPartner(partner: PartnerPrincipal, auctionId: string): Promise<AuctionView> {
    const row = isOpaqueId(auctionId) ? await repo.auctionRow(this.db, auctionId) : undefined;
    if (!row || row.guid === null || !partner.facilityGuids.includes(row.guid)) {
      throw new EnvelopeError(404, [{ code: 'AUCTION_NOT_FOUND', message: 'No such auction is visible to this partner.', path: 'auctionId' }]);
    }
    return auctionDetail(this.db, row, this.waitMs);
  }

  async listForPartner(partner: PartnerPrincipal, query: { guid?: string; status?: AuctionStatus; unitId?: string; limit: number; cursor?: string }) {
    let facilityIds: string[] = [];
    if (query.guid !== undefined) {
      const facility = partner.facilityGuids.includes(query.guid) ? await repo.facilityByGuid(this.db, query.guid) : null;
      if (!facility) throw new EnvelopeError(404, [{ code: 'FACILITY_NOT_FOUND', message: `No facility with the guid ${query.guid} is assigned to this partner.`, path: 'guid' }]);
      facilityIds = [facility.id];
    } else if (partner.facilityGuids.length > 0) {
      const rows = await this.db.selectFrom('facilities').select('id').where('guid', 'in', partner.facilityGuids).execute();
      facilityIds = rows.map((r) => r.id);
    }
    return this.list({ ...query, facilityIds }, (message) => new EnvelopeError(400, [{ code: 'INVALID_CURSOR', message, path: 'cursor' }]));
  }

  async list(query: { facilityIds: string[] | null; status?: AuctionStatus; unitId?: string; limit: number; cursor?: string }, badCursor: (message: string) => Error = (m) => validationFailed([{ path: 'cursor', message: m }])) {
    const after = query.cursor ? cursor.decode(query.cursor) : undefined;
    if (after === null) throw badCursor('is not a cursor this service issued');
    const rows = await repo.listAuctions(this.db, { facilityIds: query.facilityIds, status: query.status, unitId: query.unitId, after, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      auctions: page.map((row) => auctionSummary(row, this.waitMs)),
      hasMore: rows.length > query.limit,
      nextCursor: rows.length > query.limit && last ? cursor.encode(last.created_at.toISOString(), last.id) : null,
    };
  }

  async getById(auctionId: string): Promise<AuctionView> {
    const row = isOpaqueId(auctionId) ? await repo.auctionRow(this.db, auctionId) : undefined;
    if (!row) throw notFound('The auction');
    return auctionDetail(this.db, row, this.waitMs);
  }

  // ---- support and the marketplace (admin routes) ----

  /** Runs `change` on an auction under its facility's lock; the auction is read again under the lock. */
  private async underLock<T>(auctionId: string, change: (trx: Db, row: repo.AuctionRow, now: Date, charityEnrolled: boolean) => Promise<T>): Promise<T> {
    const first = isOpaqueId(auctionId) ? await repo.auctionRow(this.db, auctionId) : undefined;
    if (!first) throw notFound('The auction');
    return this.db.transaction().execute(async (trx) => {
      const { now, charityEnrolled } = (await repo.lockFacility(trx, first.facility_id))!;
      const row = (await repo.auctionRow(trx, auctionId))!;
      return change(trx, row, now, charityEnrolled);
    });
  }

  /** The marketplace reports a sale: Active → ClosedSold. */
  async reportSale(actor: string, auctionId: string, sale: { salePrice: number; soldAt?: string; buyerName?: string }): Promise<AuctionView> {
    const faults: { path: string; message: string }[] = [];
    if (!Number.isFinite(sale.salePrice) || sale.salePrice < 0 || Math.abs(sale.salePrice * 100 - Math.round(sale.salePrice * 100)) > 1e-6) {
      faults.push({ path: 'salePrice', message: 'must be a non-negative amount with at most two decimals' });
    }
    if (sale.soldAt !== undefined && Number.isNaN(Date.parse(sale.soldAt))) faults.push({ path: 'soldAt', message: 'must be an ISO 8601 date-time' });
    if (faults.length > 0) throw validationFailed(faults);
    await this.underLock(auctionId, async (trx, row, now) => {
      if (row.status !== 'Active') throw new AppError(409, 'AUCTION_NOT_ACTIVE', `The auction is ${row.status}; only an Active auction can be sold.`);
      const soldAt = sale.soldAt ? new Date(sale.soldAt).toISOString() : now.toISOString();
      await repo.transitionAuctions(trx, [row.id], 'reportSale', {
        actor,
        reason: 'SALE_REPORTED',
        now,
        sale: { salePrice: Math.round(sale.salePrice * 100) / 100, soldAt, buyerName: sale.buyerName ?? null },
      });
    });
    return this.getById(auctionId);
  }

  /**
   * Support changes a Pending auction: its type and/or the fields it lacked. It becomes Active
   * when nothing holds it any more; otherwise it stays Pending with its new reasons.
   */
  async amendPending(actor: string, auctionId: string, patch: Record<string, unknown>): Promise<AuctionView> {
    await this.underLock(auctionId, async (trx, row, now, charityEnrolled) => {
      if (row.status !== 'Pending') {
        throw new AppError(409, 'AUCTION_NOT_PENDING', `The auction is ${row.status}; only a Pending auction can be changed (an Active auction's content is immutable: cancel it and create it again).`);
      }
      const stored = row.record as unknown as UnitRecord;
      const validated = validateAmendedRecord(stored, patch, { allowHosts: this.deps.config.imageFetchAllowHosts });
      if (!validated.ok) throw validationFailed(validated.faults.map((f) => ({ path: f.path, message: f.message })));
      const next = validated.value;
      if (next.endsAt && next.endsAt.getTime() <= now.getTime()) throw validationFailed([{ path: 'endsAt', message: 'has passed; an auction cannot end in the past' }]);
      await repo.updatePendingRecord(trx, row.id, now, next.record, next.contentHash, next.startsAt, next.endsAt);
      const imagesChanged = JSON.stringify(next.record.imageUrls) !== JSON.stringify(stored.imageUrls);
      if (imagesChanged) await repo.replaceImages(trx, now, row.id, next.record.imageUrls);
      const reasons = pendingReasons(next.record, charityEnrolled);
      const changedType = next.record.auctionType !== stored.auctionType;
      const why = changedType && Object.keys(patch).every((k) => k === 'auctionType') ? 'TYPE_CHANGED' : 'RECORD_COMPLETED';
      if (reasons.length === 0) {
        await repo.transitionAuctions(trx, [row.id], 'activate', { actor, reason: why, now });
        await this.deps.notifier.resolveForAuctions(trx, [row.id], now, actor, 'ACTIVATED');
        await this.wakeUps(trx, imagesChanged, [{ status: 'Active', endsAt: next.endsAt }]);
      } else {
        await repo.transitionAuctions(trx, [row.id], 'amend', { actor, reason: why, note: `still pending: ${reasons.join(', ')}`, now, pendingReasons: reasons });
        await this.wakeUps(trx, imagesChanged, []);
      }
    });
    return this.getById(auctionId);
  }

  /** Support cancels an open auction. */
  async cancelBySupport(actor: string, auctionId: string, note: string | null): Promise<AuctionView> {
    await this.underLock(auctionId, async (trx, row, now) => {
      if (row.status !== 'Pending' && row.status !== 'Active') throw new AppError(409, 'AUCTION_NOT_OPEN', `The auction is already ${row.status}.`);
      await repo.transitionAuctions(trx, [row.id], 'cancel', { actor, reason: 'CANCELLED_BY_SUPPORT', note, now });
      await this.deps.notifier.resolveForAuctions(trx, [row.id], now, actor, 'CANCELLED');
    });
    return this.getById(auctionId);
  }

  /**
   * Enrols a facility in the charity programme (or withdraws it). Enrolment activates its Pending
   * charity auctions that nothing else holds; those still incomplete stay Pending for that alone.
   */
  async setCharityEnrolment(actor: string, facilityId: string, enrolled: boolean) {
    if (!isEntityId(facilityId)) throw notFound('The facility');
    return this.db.transaction().execute(async (trx) => {
      const lock = await repo.lockFacility(trx, facilityId);
      if (!lock) throw notFound('The facility');
      const { now } = lock;
      const facility = (await trx
        .updateTable('facilities')
        .set({ charity_enrolled: enrolled })
        .where('id', '=', facilityId)
        .returning(['id', 'guid', 'charity_enrolled'])
        .executeTakeFirst())!;
      const activated: string[] = [];
      const stillPending: string[] = [];
      if (enrolled) {
        const held = await trx
          .selectFrom('auctions')
          .select(['id', 'pending_reasons'])
          .where('facility_id', '=', facilityId)
          .where('status', '=', 'Pending')
          .where((eb) => eb(eb.val('CHARITY_NOT_ENROLLED'), '=', eb.fn.any('pending_reasons')))
          .execute();
        for (const a of held) (a.pending_reasons.every((r) => r === 'CHARITY_NOT_ENROLLED') ? activated : stillPending).push(a.id);
        await repo.transitionAuctions(trx, activated, 'activate', { actor, reason: 'CHARITY_ENROLLED', now });
        await this.deps.notifier.resolveForAuctions(trx, activated, now, actor, 'ACTIVATED');
        for (const id of stillPending) {
          const row = held.find((h) => h.id === id)!;
          const reasons = row.pending_reasons.filter((r) => r !== 'CHARITY_NOT_ENROLLED') as PendingReason[];
          await repo.transitionAuctions(trx, [id], 'amend', { actor, reason: 'CHARITY_ENROLLED', note: `still pending: ${reasons.join(', ')}`, now, pendingReasons: reasons });
        }
        if (activated.length > 0) {
          const ends = await trx.selectFrom('auctions').select(['status', 'ends_at']).where('id', 'in', activated).execute();
          await this.wakeUps(trx, false, ends.map((e) => ({ status: e.status, endsAt: e.ends_at })));
        }
      }
      return { facilityId: facility.id, guid: facility.guid, charityEnrolled: facility.charity_enrolled, activated, stillPending };
    });
  }

  /** Closes the Active auctions whose endsAt has passed (ClosedUnsold), one facility at a time. */
  async closeEnded(now: Date = new Date()): Promise<number> {
    let closed = 0;
    for (;;) {
      const facilities = await this.db
        .selectFrom('auctions')
        .select('facility_id')
        .distinct()
        .where('status', '=', 'Active')
        .where('ends_at', '<=', now)
        .limit(50)
        .execute();
      if (facilities.length === 0) return closed;
      for (const { facility_id } of facilities) {
        closed += await this.db.transaction().execute(async (trx) => {
          const lock = await repo.lockFacility(trx, facility_id);
          const ids = await trx
            .selectFrom('auctions')
            .select('id')
            .where('facility_id', '=', facility_id)
            .where('status', '=', 'Active')
            .where('ends_at', '<=', now)
            .execute();
          // Recorded at the later of the clock and the cut-off, so that closedAt is never before endsAt.
          const at = lock && lock.now > now ? lock.now : now;
          const changed = await repo.transitionAuctions(trx, ids.map((r) => r.id), 'endUnsold', { actor: 'system:closing', reason: 'ENDED_UNSOLD', now: at });
          return changed.length;
        });
      }
    }
  }
}

function newAuction(id: string, valid: ValidRecord, reasons: PendingReason[]): repo.NewAuction {
  return {
    id,
    unitId: valid.record.unitId,
    unitName: valid.record.unitName,
    auctionType: valid.record.auctionType as AuctionType,
    status: reasons.length > 0 ? 'Pending' : 'Active',
    pendingReasons: reasons,
    record: valid.record,
    contentHash: valid.contentHash,
    startsAt: valid.startsAt,
    endsAt: valid.endsAt,
  };
}

function pendingNotification(facility: FacilityRow, auctionId: string, record: UnitRecord, reasons: PendingReason[]): NewNotification {
  const where = `${facility.name} (${facility.guid})`;
  const parts: string[] = [];
  if (reasons.includes('CHARITY_NOT_ENROLLED')) parts.push('it is a Charity auction and the facility is not enrolled in the charity programme');
  if (reasons.includes('INCOMPLETE')) parts.push(`its record lacks ${missingForActivation(record).join(', ')}, which activation needs`);
  return {
    kind: 'AUCTION_PENDING',
    reason: reasons[0]!,
    message: `The auction of unit ${record.unitId} at ${where} is Pending: ${parts.join('; and ')}.`,
    facilityId: facility.id,
    auctionId,
    detail: { guid: facility.guid, facilityName: facility.name, unitId: record.unitId, auctionType: record.auctionType, reasons, missing: missingForActivation(record) },
  };
}

