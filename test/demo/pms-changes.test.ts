// The demo's PMS: which change it makes at a facility, as a pure choice over what the API shows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIRST_NAMES, LAST_NAMES } from '../../src/demo/data.ts';
import { describePmsChange, type PmsChange, planPmsChange } from '../../src/demo/pms-changes.ts';

type Status = 'Vacant' | 'Rented' | 'Delinquent';
const unit = (id: number, status: Status) => ({ id, unitNumber: `A${100 + id}`, status });
const visitor = (id: number, unitId: number, isTenant = true, isEnabled = true) => ({
  id,
  name: `Person ${id}`,
  unitId,
  isTenant,
  isEnabled,
});

/** A seeded random sequence (mulberry32): the same draws on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The changes of 500 draws over the same facility. */
function draws(units: ReturnType<typeof unit>[], visitors: ReturnType<typeof visitor>[]): PmsChange[] {
  const random = seeded(7);
  return Array.from({ length: 500 }, () => planPmsChange(units, visitors, '500001', random)!);
}
const kinds = (changes: PmsChange[]) => new Set(changes.map((c) => c.kind));

describe('planPmsChange', () => {
  it('makes no change at a facility without units', () => {
    assert.equal(planPmsChange([], [], '500001', Math.random), null);
  });

  it('lets a delinquent unit pay up, and rents a vacant unit to a new tenant with the given code', () => {
    assert.deepEqual(kinds(draws([unit(1, 'Delinquent')], [visitor(1, 1)])), new Set(['paid']));
    const moveIns = draws([unit(1, 'Vacant')], []);
    assert.deepEqual(kinds(moveIns), new Set(['move-in']));
    for (const change of moveIns) {
      assert.ok(change.kind === 'move-in');
      assert.equal(change.unit.id, 1);
      assert.equal(change.accessCode, '500001');
      assert.ok((FIRST_NAMES as readonly string[]).includes(change.firstName));
      assert.ok((LAST_NAMES as readonly string[]).includes(change.lastName));
    }
  });

  it('changes codes, makes a unit delinquent and vacates one at a facility that is all rented', () => {
    const changes = draws([unit(1, 'Rented'), unit(2, 'Rented')], [visitor(1, 1), visitor(2, 1, false), visitor(3, 2)]);
    assert.deepEqual(kinds(changes), new Set(['new-code', 'delinquent', 'vacate']));
    const counts = (kind: string) => changes.filter((c) => c.kind === kind).length;
    // Weights 2 : 1 : 1.
    assert.ok(
      counts('new-code') > counts('delinquent') && counts('new-code') > counts('vacate'),
      String(counts('new-code')),
    );
    for (const change of changes) {
      if (change.kind === 'delinquent') assert.equal(change.tenant, change.unit.id === 1 ? 'Person 1' : 'Person 3');
      if (change.kind === 'vacate') assert.equal(change.visitors, change.unit.id === 1 ? 2 : 1);
      if (change.kind === 'new-code') {
        assert.equal(change.accessCode, '500001');
        assert.equal(change.unitNumber, change.visitor.unitId === 1 ? 'A101' : 'A102');
      }
    }
  });

  it('keeps a facility steady: one delinquent unit at a time, at most three vacant', () => {
    const oneDelinquent = draws([unit(1, 'Rented'), unit(2, 'Delinquent')], [visitor(1, 1), visitor(2, 2)]);
    assert.ok(!kinds(oneDelinquent).has('delinquent'));
    assert.ok(kinds(oneDelinquent).has('paid'));
    const threeVacant = draws(
      [unit(1, 'Rented'), unit(2, 'Vacant'), unit(3, 'Vacant'), unit(4, 'Vacant')],
      [visitor(1, 1)],
    );
    assert.ok(!kinds(threeVacant).has('vacate'));
    assert.ok(kinds(threeVacant).has('move-in'));
  });

  it('changes only codes that open the gate: not a disabled visitor, nor one of a delinquent unit', () => {
    const changes = draws(
      [unit(1, 'Rented'), unit(2, 'Delinquent')],
      [visitor(1, 1, true, false), visitor(2, 2), visitor(3, 1, false)],
    );
    const changed = new Set(changes.flatMap((c) => (c.kind === 'new-code' ? [c.visitor.id] : [])));
    assert.deepEqual(changed, new Set([3]));
  });
});

it('describes each change in a few words', () => {
  const a = unit(3, 'Rented');
  assert.equal(
    describePmsChange({ kind: 'delinquent', unit: a, tenant: 'Ada Lovelace' }),
    'unit A103 is delinquent (Ada Lovelace locked out)',
  );
  assert.equal(describePmsChange({ kind: 'paid', unit: a }), 'unit A103 paid up (Rented again)');
  assert.equal(
    describePmsChange({ kind: 'move-in', unit: a, firstName: 'Ada', lastName: 'Lovelace', accessCode: '1' }),
    'unit A103 rented to Ada Lovelace (new tenant)',
  );
  assert.equal(
    describePmsChange({ kind: 'new-code', visitor: visitor(1, 3), unitNumber: 'A103', accessCode: '1' }),
    'Person 1 (unit A103) has a new gate code',
  );
  assert.equal(describePmsChange({ kind: 'vacate', unit: a, visitors: 1 }), 'unit A103 vacated (1 visitor removed)');
  assert.equal(describePmsChange({ kind: 'vacate', unit: a, visitors: 2 }), 'unit A103 vacated (2 visitors removed)');
});
