// POST /api/3/auctioninfo: a facility's full list, planned (plan.ts) and applied in one short
// transaction that first takes the facility's lock, so the writes of one facility are applied one
// at a time, in arrival order, and a large create racing a cancel equals the two in sequence.
import { createHash, randomUUID } from 'node:crypto';
import type { PartnerPrincipal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { applyCancel } from './cancel.ts';
import { recreateWaitMs, type AuctionDeps } from './deps.ts';
import { EnvelopeError, envelope, type EnvelopeMessage } from './envelope.ts';
import { insertImages } from './images-repository.ts';
import type { ActivationField, AuctionStatus, AuctionType, PendingReason, UnitRecord, ValidRecord } from './model.ts';
import type { NewNotification, NotificationView } from '../support/index.ts';
import { facilityNotFound, invalidBody, partnerActor, partnerFacilityToWrite } from './partner.ts';
import { planSync, type PlannedUnit, type SyncPlan } from './plan.ts';
import * as repo from './repository.ts';
import { missingForActivation, validateCreateRequest } from './validation.ts';
import { wakeForAuctions } from './jobs.ts';

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
  /** Held Pending as INCOMPLETE: which of the fields activation needs the record lacks. */
  missingFields?: ActivationField[];
  retryAfter?: string;
}

export interface ImportInput {
  body: unknown;
  dryRun: boolean;
  idempotencyKey: string | null;
}

type ImportDeps = Pick<AuctionDeps, 'db' | 'config' | 'queue' | 'logger' | 'metrics' | 'support'>;

export async function importFullList(
  deps: ImportDeps,
  partner: PartnerPrincipal,
  input: ImportInput,
): Promise<ImportResult> {
  const { db, config } = deps;
  const validated = validateCreateRequest(input.body, { allowHosts: config.imageFetchAllowHosts });
  if (!validated.ok) throw invalidBody(validated.faults);
  const { guid, clientType, records } = validated.value;
  const facility = await partnerFacilityToWrite(db, partner, guid, clientType);
  const actor = partnerActor(partner);
  const key = input.dryRun ? null : input.idempotencyKey;
  const requestHash = key ? createHash('sha256').update(JSON.stringify(input.body)).digest('base64url') : '';

  const outcome = await db.transaction().execute(async (trx) => {
    const lock = await repo.lockFacility(trx, facility.id);
    if (!lock) throw facilityNotFound(guid);
    const { now, charityEnrolled } = lock;
    if (key) {
      const prior = await repo.idempotentResponse(trx, partner.clientId, key);
      if (prior) {
        if (prior.request_hash !== requestHash) {
          throw new EnvelopeError(422, [
            {
              code: 'IDEMPOTENCY_KEY_REUSED',
              message: 'This Idempotency-Key was used with a different request body; use a new key for a new request.',
            },
          ]);
        }
        const notifications: NotificationView[] = [];
        return { status: prior.status_code, body: prior.response, replayed: true, notifications, applied: null };
      }
    }
    const latest = await repo.latestAuctions(trx, facility.id);
    const plan = planSync({ latest, charityEnrolled }, records, now, { recreateWaitMs: recreateWaitMs(config) });
    if (plan.ended.length > 0) {
      throw new EnvelopeError(
        400,
        plan.ended.slice(0, 1000).map(({ index, unitId }) => ({
          code: 'IN_THE_PAST',
          message:
            `endsAt has passed: the unit ${unitId} has no auction with this record to keep, ` +
            `and a new auction cannot end in the past.`,
          path: `auctionableUnitInfo[${index}].endsAt`,
        })),
      );
    }
    const ids = new Map<string, string>();
    let notifications: NotificationView[] = [];
    if (!input.dryRun) notifications = await applyPlan(deps, trx, facility, plan.units, actor, now, ids);

    const warnings: EnvelopeMessage[] = [];
    const indexOf = new Map(records.map((r, i) => [r.record.unitId, i]));
    const results = plan.units.map((unit): UnitResult => {
      if (unit.outcome === 'unchanged' && unit.contentChanged) {
        warnings.push({
          code: 'ACTIVE_AUCTION_IMMUTABLE',
          message:
            `The unit ${unit.unitId} has an open (${unit.status}) auction whose content cannot change; ` +
            `the new record was not applied. Cancel the auction, ` +
            `wait ${config.auctionRecreateWaitMinutes} minutes, and send the list again.`,
          path: `auctionableUnitInfo[${indexOf.get(unit.unitId)}]`,
        });
      }
      return unitResult(unit, ids);
    });
    const data = { guid, dryRun: input.dryRun, results, summary: plan.summary };
    const body = JSON.stringify(envelope(200, data, [], warnings));
    const response = { requestHash, status: 200, response: body, now };
    if (key && !(await repo.saveIdempotentResponse(trx, { clientId: partner.clientId, key, ...response }))) {
      // The same key, at the same moment, for another facility: let the client retry.
      throw new EnvelopeError(409, [
        {
          code: 'IDEMPOTENCY_KEY_IN_USE',
          message: 'A request with this Idempotency-Key is being processed; retry it shortly.',
        },
      ]);
    }
    return { status: 200, body, replayed: false, notifications, applied: input.dryRun ? null : plan.summary };
  });
  deps.support.logRaised(outcome.notifications);
  if (outcome.applied) {
    for (const [unitOutcome, count] of Object.entries(outcome.applied))
      deps.metrics.imports.inc({ outcome: unitOutcome }, count);
  }
  return { status: outcome.status, body: outcome.body, replayed: outcome.replayed, applied: outcome.applied };
}

/** What the answer says of one unit. */
function unitResult(unit: PlannedUnit, ids: Map<string, string>): UnitResult {
  const { unitId, outcome } = unit;
  switch (unit.outcome) {
    case 'created':
      return { unitId, auctionId: ids.get(unitId) ?? null, outcome, status: unit.status };
    case 'pending':
      return {
        unitId,
        auctionId: ids.get(unitId) ?? null,
        outcome,
        status: unit.status,
        reason: unit.reasons[0],
        ...(unit.reasons.includes('INCOMPLETE') ? { missingFields: missingForActivation(unit.record.record) } : {}),
      };
    case 'unchanged':
      return { unitId, auctionId: unit.auctionId, outcome, status: unit.status };
    case 'deferred':
      return {
        unitId,
        auctionId: unit.auctionId,
        outcome,
        status: unit.status,
        retryAfter: unit.retryAfter.toISOString(),
      };
    case 'removed':
      return { unitId, auctionId: unit.auctionId, outcome, status: 'Cancelled', reason: 'REMOVED_FROM_LIST' };
  }
}

/** Writes a plan: new auctions with their history and images, withdrawals, notifications, wake-ups. */
async function applyPlan(
  deps: ImportDeps,
  trx: Db,
  facility: repo.FacilityRow,
  units: PlannedUnit[],
  actor: string,
  now: Date,
  ids: Map<string, string>,
): Promise<NotificationView[]> {
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
  const images = created.flatMap((a) =>
    a.record.imageUrls.map((sourceUrl, position) => ({ auctionId: a.id, position, sourceUrl })),
  );
  await insertImages(trx, now, images);
  await applyCancel(deps, trx, removed, 'withdraw', { actor, reason: 'REMOVED_FROM_LIST', now });
  const pending = created.filter((a) => a.status === 'Pending');
  const notifications = await deps.support.raise(
    trx,
    now,
    pending.map((a) => pendingNotification(facility, a.id, a.record, a.pendingReasons)),
  );
  await wakeForAuctions(deps.queue, trx, images.length > 0, created);
  return notifications;
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

function pendingNotification(
  facility: repo.FacilityRow,
  auctionId: string,
  record: UnitRecord,
  reasons: PendingReason[],
): NewNotification {
  const where = `${facility.name} (${facility.guid})`;
  const parts: string[] = [];
  if (reasons.includes('CHARITY_NOT_ENROLLED')) {
    parts.push('it is a Charity auction and the facility is not enrolled in the charity programme');
  }
  if (reasons.includes('INCOMPLETE')) {
    parts.push(`its record lacks ${missingForActivation(record).join(', ')}, which activation needs`);
  }
  return {
    kind: 'AUCTION_PENDING',
    reason: reasons[0]!,
    message: `The auction of unit ${record.unitId} at ${where} is Pending: ${parts.join('; and ')}.`,
    facilityId: facility.id,
    auctionId,
    detail: {
      guid: facility.guid,
      facilityName: facility.name,
      unitId: record.unitId,
      auctionType: record.auctionType,
      reasons,
      missing: missingForActivation(record),
    },
  };
}
