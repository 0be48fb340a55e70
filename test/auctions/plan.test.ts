// The full-list sync plan and the transition table, as pure functions: no database, no HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidRecord } from '../../src/auctions/model.ts';
import { planSync, type FacilityAuctionState, type LatestAuction } from '../../src/auctions/plan.ts';
import {
  isValidHistory,
  nextStatus,
  statusesAllowing,
  transition,
  TRANSITIONS,
  IllegalTransitionError,
} from '../../src/auctions/transitions.ts';
import { contentHash, validateCreateRequest } from '../../src/auctions/validation.ts';

const NOW = new Date('2030-06-01T12:00:00Z');
const WAIT = 15 * 60_000;

function valid(unitId: string, extra: Record<string, unknown> = {}): ValidRecord {
  const result = validateCreateRequest(
    {
      guid: 'FAC-1',
      clientType: 'Acme',
      auctionableUnitInfo: [
        {
          unitId,
          unitName: unitId,
          description: 'boxes',
          startsAt: '2030-07-01T09:00:00-07:00',
          endsAt: '2030-07-08T09:00:00-07:00',
          imageUrls: ['https://pms.example/a.jpg'],
          ...extra,
        },
      ],
    },
    { allowHosts: [] },
  );
  assert.ok(result.ok, JSON.stringify(!result.ok && result.faults));
  return result.value.records[0]!;
}

const state = (
  latest: Omit<LatestAuction, 'cancelledAt'>[] = [],
  extra: { cancelledAt?: Date; charityEnrolled?: boolean } = {},
): FacilityAuctionState => ({
  latest: new Map(latest.map((a) => [a.unitId, { ...a, cancelledAt: extra.cancelledAt ?? null }])),
  charityEnrolled: extra.charityEnrolled ?? false,
});

describe('planSync', () => {
  it('creates Active auctions for complete records of units without one', () => {
    const plan = planSync(state(), [valid('U-1'), valid('U-2')], NOW, { recreateWaitMs: WAIT });
    assert.deepEqual(
      plan.units.map((u) => [u.unitId, u.outcome]),
      [
        ['U-1', 'created'],
        ['U-2', 'created'],
      ],
    );
    assert.deepEqual(plan.summary, { created: 2, pending: 0, unchanged: 0, deferred: 0, removed: 0 });
    assert.deepEqual(plan.ended, []);
  });

  it('holds charity auctions of a facility that is not enrolled, and incomplete records, as Pending with reasons', () => {
    const records = [
      valid('U-1', { auctionType: 'Charity' }),
      valid('U-2', { description: null }),
      valid('U-3', { imageUrls: [] }),
      valid('U-4', { auctionType: 'Charity', startsAt: null }),
      valid('U-5', { description: '   ' }),
    ];
    const plan = planSync(state(), records, NOW, { recreateWaitMs: WAIT });
    const reasons = plan.units.map((u) => (u.outcome === 'pending' ? u.reasons : u.outcome));
    assert.deepEqual(reasons, [
      ['CHARITY_NOT_ENROLLED'],
      ['INCOMPLETE'],
      ['INCOMPLETE'],
      ['CHARITY_NOT_ENROLLED', 'INCOMPLETE'],
      ['INCOMPLETE'],
    ]);
    const enrolled = planSync(state([], { charityEnrolled: true }), [valid('U-1', { auctionType: 'Charity' })], NOW, {
      recreateWaitMs: WAIT,
    });
    assert.equal(enrolled.units[0]!.outcome, 'created');
  });

  it('leaves open auctions alone, and says when the record differs', () => {
    const same = valid('U-1');
    const open = [
      { auctionId: 'a1', unitId: 'U-1', status: 'Active' as const, contentHash: same.contentHash },
      { auctionId: 'a2', unitId: 'U-2', status: 'Pending' as const, contentHash: 'other' },
    ];
    const plan = planSync(state(open), [same, valid('U-2')], NOW, { recreateWaitMs: WAIT });
    assert.deepEqual(plan.units, [
      { outcome: 'unchanged', unitId: 'U-1', auctionId: 'a1', status: 'Active', contentChanged: false },
      { outcome: 'unchanged', unitId: 'U-2', auctionId: 'a2', status: 'Pending', contentChanged: true },
    ]);
  });

  it('withdraws open auctions of units absent from the list, after the listed units', () => {
    const open = [
      { auctionId: 'a1', unitId: 'U-1', status: 'Active' as const, contentHash: 'x' },
      { auctionId: 'a9', unitId: 'U-9', status: 'Pending' as const, contentHash: 'y' },
    ];
    const plan = planSync(state(open), [valid('U-2')], NOW, { recreateWaitMs: WAIT });
    assert.deepEqual(
      plan.units.map((u) => [u.unitId, u.outcome]),
      [
        ['U-2', 'created'],
        ['U-1', 'removed'],
        ['U-9', 'removed'],
      ],
    );
    assert.equal(planSync(state(open), [], NOW, { recreateWaitMs: WAIT }).summary.removed, 2);
    const closed = [
      { auctionId: 'c1', unitId: 'U-3', status: 'ClosedSold' as const, contentHash: 'z' },
      { auctionId: 'c2', unitId: 'U-4', status: 'Cancelled' as const, contentHash: 'z' },
    ];
    assert.equal(
      planSync(state(closed), [], NOW, { recreateWaitMs: WAIT }).summary.removed,
      0,
      'only open auctions are withdrawn',
    );
  });

  it('defers a unit cancelled less than the wait ago, and creates it once the wait is over', () => {
    const cancelledAt = new Date(NOW.getTime() - 10 * 60_000);
    const latest = [
      { auctionId: 'old', unitId: 'U-1', status: 'Cancelled' as const, contentHash: valid('U-1').contentHash },
    ];
    const soon = planSync(state(latest, { cancelledAt }), [valid('U-1')], NOW, { recreateWaitMs: WAIT });
    assert.deepEqual(soon.units[0], {
      outcome: 'deferred',
      unitId: 'U-1',
      auctionId: 'old',
      status: 'Cancelled',
      retryAfter: new Date(cancelledAt.getTime() + WAIT),
    });
    const exactly = planSync(state(latest, { cancelledAt }), [valid('U-1')], new Date(cancelledAt.getTime() + WAIT), {
      recreateWaitMs: WAIT,
    });
    assert.equal(exactly.units[0]!.outcome, 'created');
    const noWait = planSync(state(latest, { cancelledAt }), [valid('U-1')], NOW, { recreateWaitMs: 0 });
    assert.equal(noWait.units[0]!.outcome, 'created');
  });

  it('leaves a closed auction alone when the record is the same, and starts a new one for a new record', () => {
    const r = valid('U-1');
    for (const status of ['ClosedSold', 'ClosedUnsold'] as const) {
      const same = planSync(
        state([{ auctionId: 'sold', unitId: 'U-1', status, contentHash: r.contentHash }]),
        [r],
        NOW,
        { recreateWaitMs: WAIT },
      );
      assert.deepEqual(same.units[0], {
        outcome: 'unchanged',
        unitId: 'U-1',
        auctionId: 'sold',
        status,
        contentChanged: false,
      });
      const changed = planSync(state([{ auctionId: 'sold', unitId: 'U-1', status, contentHash: 'before' }]), [r], NOW, {
        recreateWaitMs: WAIT,
      });
      assert.equal(changed.units[0]!.outcome, 'created');
    }
  });

  it('says which new auctions would already have ended', () => {
    const past = valid('U-2', { startsAt: null, endsAt: '2030-05-01T00:00:00Z' });
    const plan = planSync(state(), [valid('U-1'), past], NOW, { recreateWaitMs: WAIT });
    assert.deepEqual(plan.ended, [{ index: 1, unitId: 'U-2' }]);
    const kept = planSync(
      state([{ auctionId: 'a', unitId: 'U-2', status: 'ClosedUnsold', contentHash: past.contentHash }]),
      [past],
      NOW,
      { recreateWaitMs: WAIT },
    );
    assert.deepEqual(kept.ended, []);
  });

  it('plans 5,000 units', () => {
    const records = Array.from({ length: 5000 }, (_, i) => valid(`U-${i}`));
    const open = records
      .filter((_, i) => i % 2 === 0)
      .map((r, i) => ({
        auctionId: `a${i}`,
        unitId: r.record.unitId,
        status: 'Active' as const,
        contentHash: r.contentHash,
      }));
    const plan = planSync(state(open), records, NOW, { recreateWaitMs: WAIT });
    assert.deepEqual(plan.summary, { created: 2500, pending: 0, unchanged: 2500, deferred: 0, removed: 0 });
  });
});

describe('contentHash', () => {
  it('compares instants as instants and everything else as sent', () => {
    const a = valid('U-1');
    const b = valid('U-1', { startsAt: '2030-07-01T16:00:00Z', endsAt: '2030-07-08T16:00:00.000Z' });
    assert.equal(a.contentHash, b.contentHash);
    assert.notEqual(a.contentHash, valid('U-1', { description: 'boxes!' }).contentHash);
    assert.notEqual(a.contentHash, valid('U-1', { imageUrls: ['https://pms.example/b.jpg'] }).contentHash);
    assert.equal(contentHash(a.record), a.contentHash);
    assert.equal(valid('U-1', { auctionType: 'Lien' }).contentHash, a.contentHash, 'the default type is the type');
  });
});

describe('the transition table', () => {
  it('holds exactly the transitions of SPEC §3.3 (and the Pending self-loop of a support change)', () => {
    assert.deepEqual(
      TRANSITIONS.map((t) => `${t.from ?? 'new'} -${t.trigger}-> ${t.to}`),
      [
        'new -create-> Active',
        'new -hold-> Pending',
        'Pending -activate-> Active',
        'Pending -amend-> Pending',
        'Pending -cancel-> Cancelled',
        'Active -cancel-> Cancelled',
        'Pending -withdraw-> Cancelled',
        'Active -withdraw-> Cancelled',
        'Active -reportSale-> ClosedSold',
        'Active -endUnsold-> ClosedUnsold',
      ],
    );
  });

  it('refuses every other transition', () => {
    for (const from of ['Cancelled', 'ClosedSold', 'ClosedUnsold'] as const) {
      for (const trigger of [
        'create',
        'hold',
        'activate',
        'amend',
        'cancel',
        'withdraw',
        'reportSale',
        'endUnsold',
      ] as const) {
        assert.equal(nextStatus(from, trigger), null, `${from} ${trigger}`);
        assert.throws(() => transition(from, trigger), IllegalTransitionError);
      }
    }
    assert.equal(nextStatus('Pending', 'reportSale'), null);
    assert.equal(nextStatus('Pending', 'endUnsold'), null);
    assert.equal(nextStatus('Active', 'activate'), null);
    assert.equal(nextStatus(null, 'cancel'), null);
    assert.deepEqual(statusesAllowing('cancel'), ['Pending', 'Active']);
    assert.deepEqual(statusesAllowing('reportSale'), ['Active']);
  });

  it('judges histories', () => {
    assert.equal(
      isValidHistory([
        { from: null, to: 'Pending', trigger: 'hold' },
        { from: 'Pending', to: 'Active', trigger: 'activate' },
        { from: 'Active', to: 'ClosedSold', trigger: 'reportSale' },
      ]),
      true,
    );
    assert.equal(
      isValidHistory([
        { from: null, to: 'Active', trigger: 'create' },
        { from: 'Active', to: 'Cancelled', trigger: 'cancel' },
        { from: 'Cancelled', to: 'Active', trigger: 'activate' },
      ]),
      false,
    );
    assert.equal(isValidHistory([{ from: 'Active', to: 'Cancelled', trigger: 'cancel' }]), false);
    assert.equal(isValidHistory([]), false);
  });
});
