// The drift rules, without I/O: the digest's buckets, the comparison of items (in flight left out),
// what commands in flight touch, and how a drift is healed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareUnits,
  compareVisitors,
  DIGEST_BUCKETS,
  differingBuckets,
  hashedUnits,
  hashedVisitors,
  healOf,
  itemHash,
  itemsOutsideBuckets,
  kindDigest,
  REFRESH_ABOVE,
  touchedBy,
  unitFingerprint,
  visitorFingerprint,
  type VisitorHeld,
} from '../../src/drift/rules.ts';

const unit = (id: number, status = 'Rented') => ({ id, unitNumber: `U${id}`, status });
const visitor = (id: number, extra: Partial<VisitorHeld> = {}): VisitorHeld => ({
  id,
  unitId: 1,
  isEnabled: true,
  timeGroupId: 7,
  accessProfileId: 8,
  accessCode: '4711',
  ...extra,
});
const withoutCode = ({ accessCode: _c, ...rest }: VisitorHeld & { hash: string }) => rest;

describe('the digest', () => {
  it('has 64 buckets of 16 hex digits whatever the size, and does not depend on order', () => {
    const units = Array.from({ length: 5000 }, (_, i) => unit(i + 1));
    const digest = kindDigest(hashedUnits(units));
    assert.equal(digest.count, 5000);
    assert.equal(digest.buckets.length, DIGEST_BUCKETS);
    for (const b of digest.buckets) assert.match(b, /^[0-9a-f]{16}$/);
    assert.deepEqual(kindDigest(hashedUnits([...units].reverse())), digest);
    assert.deepEqual(kindDigest([]).buckets, new Array(DIGEST_BUCKETS).fill('0000000000000000'));
  });

  it('one changed field changes exactly the bucket of its item', () => {
    const units = Array.from({ length: 300 }, (_, i) => unit(i + 1));
    const before = kindDigest(hashedUnits(units));
    const after = kindDigest(hashedUnits(units.map((u) => (u.id === 130 ? { ...u, status: 'Delinquent' } : u))));
    assert.deepEqual(differingBuckets(after, before), [130 % DIGEST_BUCKETS]);
    // A lost item, too.
    const lost = kindDigest(hashedUnits(units.filter((u) => u.id !== 5)));
    assert.deepEqual(differingBuckets(lost, before), [5]);
  });

  it('the fingerprint covers what decides access, the code included; the hash is SHA-256’s first 8 bytes', () => {
    assert.equal(unitFingerprint(unit(3)), '["unit",3,"U3","Rented"]');
    assert.equal(visitorFingerprint(visitor(9)), '["visitor",9,1,true,7,8,"4711"]');
    assert.notEqual(
      itemHash(visitorFingerprint(visitor(9))),
      itemHash(visitorFingerprint(visitor(9, { accessCode: '4712' }))),
    );
    // sha256('["unit",3,"U3","Rented"]'), first 16 hex digits.
    assert.match(itemHash(unitFingerprint(unit(3))), /^[0-9a-f]{16}$/);
  });
});

describe('comparing the items of differing buckets', () => {
  it('names missing, unexpected and altered items, with the altered fields (accessCode when only the code differs)', () => {
    const desired = hashedVisitors([visitor(1), visitor(2), visitor(3, { isEnabled: false }), visitor(4)]);
    const held = hashedVisitors([
      visitor(2, { accessCode: '9999' }),
      visitor(3, { isEnabled: true, timeGroupId: 70 }),
      visitor(4),
      visitor(5),
    ]).map(withoutCode);
    assert.deepEqual(compareVisitors(desired, held, new Set()), [
      { kind: 'visitor', id: 1, change: 'missing', fields: [] },
      { kind: 'visitor', id: 2, change: 'altered', fields: ['accessCode'] },
      { kind: 'visitor', id: 3, change: 'altered', fields: ['isEnabled', 'timeGroupId'] },
      { kind: 'visitor', id: 5, change: 'unexpected', fields: [] },
    ]);
  });

  it('leaves out the items a command in flight touches', () => {
    const desired = hashedUnits([unit(1), unit(2, 'Delinquent')]);
    const held = hashedUnits([unit(2), unit(3)]);
    assert.deepEqual(compareUnits(desired, held, new Set([1, 2, 3])), []);
    assert.deepEqual(compareUnits(desired, held, new Set([2])), [
      { kind: 'unit', id: 1, change: 'missing', fields: [] },
      { kind: 'unit', id: 3, change: 'unexpected', fields: [] },
    ]);
  });

  it('commands in flight touch their units and visitors; a refresh touches its whole kind', () => {
    const touched = touchedBy([
      { type: 'unit.upsert', payload: { action: 'create', unit: { id: 11 } } },
      { type: 'unit.vacate', payload: { unit: { id: 12 }, removedVisitorIds: [21, 22] } },
      { type: 'unit.delete', payload: { unitId: 13 } },
      { type: 'visitor.upsert', payload: { visitor: { id: 23 }, unit: { id: 14 } } },
      { type: 'visitor.remove', payload: { visitorId: 24 } },
      { type: 'emergency.set', payload: { enabled: true } },
    ]);
    assert.deepEqual([...touched.units].sort(), [11, 12, 13, 14]);
    assert.deepEqual([...touched.visitors].sort(), [21, 22, 23, 24]);
    assert.equal(touched.allUnits || touched.allVisitors, false);
    assert.equal(touchedBy([{ type: 'visitors.refresh', payload: { visitors: [] } }]).allVisitors, true);
  });

  it('heals item by item, or by one refresh above REFRESH_ABOVE items of a kind', () => {
    const items = [
      { kind: 'visitor' as const, id: 1, change: 'missing' as const, fields: [] },
      { kind: 'visitor' as const, id: 2, change: 'unexpected' as const, fields: [] },
      { kind: 'unit' as const, id: 3, change: 'altered' as const, fields: ['status'] },
    ];
    assert.deepEqual(healOf('visitor', items), { kind: 'visitor', refresh: false, upsert: [1], remove: [2] });
    assert.deepEqual(healOf('unit', items), { kind: 'unit', refresh: false, upsert: [3], remove: [] });
    const many = Array.from({ length: REFRESH_ABOVE + 1 }, (_, i) => ({ ...items[0]!, id: i + 1 }));
    assert.deepEqual(healOf('visitor', many), { kind: 'visitor', refresh: true });
    assert.equal(healOf('unit', many), null);
  });

  it('an item outside the buckets its report covers is named', () => {
    assert.deepEqual(
      itemsOutsideBuckets({
        buckets: { units: [1], visitors: [] },
        units: [{ id: 65 }, { id: 2 }],
        visitors: [{ id: 3 }],
      }),
      [
        { path: 'units[1].id', message: 'is in bucket 2, not one of buckets.units' },
        { path: 'visitors[0].id', message: 'is in bucket 3, not one of buckets.visitors' },
      ],
    );
  });
});
