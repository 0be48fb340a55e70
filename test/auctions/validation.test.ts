// Record validation, as pure functions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATEGORIES } from '../../src/auctions/model.ts';
import {
  hasAtMostTwoDecimals,
  MAX_FAULTS,
  ONE_UNIT_MESSAGE,
  parseDateTimeWithOffset,
  validateAmendedRecord,
  validateCancelRequest,
  validateCreateRequest,
} from '../../src/auctions/validation.ts';

const _NOW = new Date('2030-06-01T12:00:00Z');
const ctx = { allowHosts: [] as string[] };
const body = (records: unknown[], extra: Record<string, unknown> = {}) => ({
  guid: 'FAC-0042',
  clientType: 'AcmePMS',
  auctionableUnitInfo: records,
  ...extra,
});
const full = (extra: Record<string, unknown> = {}) => ({
  unitId: 'U-1001',
  unitName: 'A101',
  auctionType: 'Lien',
  unitWidth: 10,
  unitLength: 15,
  description: 'Sofa, boxes, two bikes',
  categories: ['Household Furniture', 'Boxes', 'Sports & Outdoors'],
  tenantName: 'J. Doe',
  startsAt: '2030-12-01T09:00:00-07:00',
  endsAt: '2030-12-08T09:00:00-07:00',
  minimumBid: 25.0,
  imageUrls: ['https://pms.example/img/u1001-1.jpg'],
  ...extra,
});
const faults = (result: ReturnType<typeof validateCreateRequest>) =>
  result.ok ? [] : result.faults.map((f) => `${f.path} ${f.code}`);

describe('validateCreateRequest', () => {
  it('accepts the SPEC example, applies the default type, and keeps instants as sent', () => {
    const result = validateCreateRequest(body([full({ auctionType: undefined })]), ctx);
    assert.ok(result.ok);
    const [r] = result.value.records;
    assert.equal(r!.record.auctionType, 'Lien');
    assert.equal(r!.record.startsAt, '2030-12-01T09:00:00-07:00');
    assert.equal(r!.startsAt!.toISOString(), '2030-12-01T16:00:00.000Z');
  });

  it('accepts only the required fields, nulls for optional ones, and ignores unknown fields', () => {
    const result = validateCreateRequest(
      body([
        {
          unitId: 'U-1',
          unitName: 'A1',
          description: null,
          minimumBid: null,
          categories: null,
          somethingElse: { x: 1 },
        },
      ]),
      ctx,
    );
    assert.ok(result.ok);
    assert.deepEqual(result.value.records[0]!.record, {
      unitId: 'U-1',
      unitName: 'A1',
      auctionType: 'Lien',
      unitWidth: null,
      unitLength: null,
      description: null,
      categories: [],
      tenantName: null,
      startsAt: null,
      endsAt: null,
      minimumBid: null,
      imageUrls: [],
    });
  });

  it('accepts 0–5,000 records and refuses 5,001', () => {
    assert.ok(validateCreateRequest(body([]), ctx).ok);
    const many = Array.from({ length: 5000 }, (_, i) => full({ unitId: `U-${i}` }));
    assert.ok(validateCreateRequest(body(many), ctx).ok);
    assert.deepEqual(faults(validateCreateRequest(body([...many, full({ unitId: 'U-x' })]), ctx)), [
      'auctionableUnitInfo TOO_MANY',
    ]);
  });

  it('checks guid and clientType', () => {
    assert.deepEqual(faults(validateCreateRequest(body([], { guid: 'G'.repeat(21) }), ctx)), ['guid TOO_LONG']);
    assert.ok(validateCreateRequest(body([], { guid: 'G'.repeat(20) }), ctx).ok);
    assert.deepEqual(faults(validateCreateRequest({ auctionableUnitInfo: [] }, ctx)), [
      'guid REQUIRED',
      'clientType REQUIRED',
    ]);
    assert.deepEqual(faults(validateCreateRequest(body([], { guid: 'FAC\n1', clientType: 7 }), ctx)), [
      'guid INVALID_VALUE',
      'clientType INVALID_TYPE',
    ]);
    assert.deepEqual(faults(validateCreateRequest('text', ctx)), [' INVALID_TYPE']);
  });

  it('checks money: ≥ 0 with at most two decimals', () => {
    for (const ok of [0, 25, 25.5, 25.05, 0.07, 1234567.89])
      assert.ok(validateCreateRequest(body([full({ minimumBid: ok })]), ctx).ok, String(ok));
    assert.deepEqual(faults(validateCreateRequest(body([full({ minimumBid: -0.01 })]), ctx)), [
      'auctionableUnitInfo[0].minimumBid OUT_OF_RANGE',
    ]);
    assert.deepEqual(faults(validateCreateRequest(body([full({ minimumBid: 25.005 })]), ctx)), [
      'auctionableUnitInfo[0].minimumBid INVALID_VALUE',
    ]);
    assert.deepEqual(faults(validateCreateRequest(body([full({ minimumBid: '25.00' })]), ctx)), [
      'auctionableUnitInfo[0].minimumBid INVALID_TYPE',
    ]);
    assert.equal(hasAtMostTwoDecimals(0.1 + 0.2), true);
    assert.equal(hasAtMostTwoDecimals(1.001), false);
  });

  it('checks date-times: an offset is required, the calendar must exist, startsAt < endsAt', () => {
    assert.equal(parseDateTimeWithOffset('2030-12-01T09:00:00-07:00')?.toISOString(), '2030-12-01T16:00:00.000Z');
    assert.equal(parseDateTimeWithOffset('2030-12-01T09:00Z')?.toISOString(), '2030-12-01T09:00:00.000Z');
    assert.equal(
      parseDateTimeWithOffset('2030-12-01T09:00:00.123456+05:30')?.toISOString(),
      '2030-12-01T03:30:00.123Z',
    );
    for (const bad of [
      '2030-12-01T09:00:00',
      '2030-12-01',
      '2030-02-30T09:00:00Z',
      '2030-13-01T09:00:00Z',
      '2030-12-01T24:00:00Z',
      'tomorrow',
      '2030-12-01T09:00:00+25:00',
    ]) {
      assert.equal(parseDateTimeWithOffset(bad), null, bad);
    }
    assert.deepEqual(
      faults(
        validateCreateRequest(
          body([full({ startsAt: '2030-12-08T09:00:00-07:00', endsAt: '2030-12-08T09:00:00-07:00' })]),
          ctx,
        ),
      ),
      ['auctionableUnitInfo[0].endsAt ENDS_BEFORE_START'],
    );
    // An end in the past is the plan's to judge (it may be the record of an auction that closed).
    assert.ok(validateCreateRequest(body([full({ startsAt: null, endsAt: '2020-05-01T00:00:00Z' })]), ctx).ok);
    assert.deepEqual(faults(validateCreateRequest(body([full({ endsAt: '2030-12-08 09:00' })]), ctx)), [
      'auctionableUnitInfo[0].endsAt INVALID_VALUE',
    ]);
  });

  it('checks categories against the 30 names of §3.6', () => {
    assert.equal(CATEGORIES.length, 30);
    assert.ok(validateCreateRequest(body([full({ categories: [...CATEGORIES] })]), ctx).ok);
    assert.deepEqual(faults(validateCreateRequest(body([full({ categories: ['Boxes', 'boxes', 'Boxes'] })]), ctx)), [
      'auctionableUnitInfo[0].categories[1] UNKNOWN_CATEGORY',
      'auctionableUnitInfo[0].categories[2] DUPLICATE',
    ]);
  });

  it('checks image URLs: at most 25, absolute http/https, no credentials, no private address literal unless allow-listed', () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://pms.example/${i}.jpg`);
    assert.ok(validateCreateRequest(body([full({ imageUrls: urls(25) })]), ctx).ok);
    assert.deepEqual(faults(validateCreateRequest(body([full({ imageUrls: urls(26) })]), ctx)), [
      'auctionableUnitInfo[0].imageUrls TOO_MANY',
    ]);
    assert.deepEqual(
      faults(
        validateCreateRequest(
          body([
            full({
              imageUrls: ['https://u:p@pms.example/a.jpg', 'img/a.jpg', 7, `https://pms.example/${'a'.repeat(2048)}`],
            }),
          ]),
          ctx,
        ),
      ),
      [
        'auctionableUnitInfo[0].imageUrls[0] CREDENTIALS_NOT_ALLOWED',
        'auctionableUnitInfo[0].imageUrls[1] INVALID_URL',
        'auctionableUnitInfo[0].imageUrls[2] INVALID_TYPE',
        'auctionableUnitInfo[0].imageUrls[3] TOO_LONG',
      ],
    );
    const local = body([full({ imageUrls: ['http://127.0.0.1:4567/a.jpg'] })]);
    assert.deepEqual(faults(validateCreateRequest(local, ctx)), [
      'auctionableUnitInfo[0].imageUrls[0] ADDRESS_NOT_ALLOWED',
    ]);
    assert.ok(validateCreateRequest(local, { allowHosts: ['127.0.0.1:4567'] }).ok);
  });

  it('checks lengths and control characters', () => {
    assert.deepEqual(
      faults(
        validateCreateRequest(
          body([
            full({ unitId: 'U'.repeat(51), unitName: '', description: 'd'.repeat(4001), tenantName: 'T'.repeat(101) }),
          ]),
          ctx,
        ),
      ),
      [
        'auctionableUnitInfo[0].unitId TOO_LONG',
        'auctionableUnitInfo[0].unitName TOO_SHORT',
        'auctionableUnitInfo[0].description TOO_LONG',
        'auctionableUnitInfo[0].tenantName TOO_LONG',
      ],
    );
    assert.deepEqual(faults(validateCreateRequest(body([full({ unitId: 'U\u0000' })]), ctx)), [
      'auctionableUnitInfo[0].unitId INVALID_VALUE',
    ]);
    assert.ok(
      validateCreateRequest(body([full({ description: 'line one\nline two' })]), ctx).ok,
      'a description may span lines',
    );
  });

  it('finds duplicate unitIds, naming the first', () => {
    const result = validateCreateRequest(
      body([full({ unitId: 'A' }), full({ unitId: 'B' }), full({ unitId: 'A' })]),
      ctx,
    );
    assert.ok(!result.ok);
    assert.deepEqual(result.faults, [
      {
        path: 'auctionableUnitInfo[2].unitId',
        code: 'DUPLICATE_UNIT',
        message: 'The unit A is already listed at auctionableUnitInfo[0]; a list carries one record per unit.',
      },
    ]);
  });

  it('lists at most MAX_FAULTS faults, the last one counting the rest', () => {
    const records = Array.from({ length: 3000 }, (_, i) => ({ unitId: `U-${i}`, unitName: 'x', minimumBid: -1 }));
    const result = validateCreateRequest(body(records), ctx);
    assert.ok(!result.ok);
    assert.equal(result.faults.length, MAX_FAULTS);
    assert.deepEqual(result.faults.at(-1), {
      path: '',
      code: 'TOO_MANY_FAULTS',
      message: `${3000 - MAX_FAULTS + 1} more faults were found and are not listed.`,
    });
  });
});

describe('validateCancelRequest', () => {
  const cancel = (records: unknown) =>
    validateCancelRequest({ guid: 'FAC-0042', clientType: 'AcmePMS', cancelAuctionIds: records });
  it('accepts exactly one record', () => {
    const result = cancel([{ unitId: 'U-1001', reason: 'Tenant paid' }]);
    assert.ok(result.ok);
    assert.deepEqual(result.value, {
      guid: 'FAC-0042',
      clientType: 'AcmePMS',
      unitId: 'U-1001',
      reason: 'Tenant paid',
    });
  });
  it('refuses none, two, and bad fields', () => {
    const codes = (r: ReturnType<typeof cancel>) => (r.ok ? [] : r.faults.map((f) => f.code));
    assert.deepEqual(codes(cancel([])), ['NO_UNIT']);
    const two = cancel([{ unitId: 'A' }, { unitId: 'B' }]);
    assert.ok(!two.ok);
    assert.deepEqual(two.faults, [
      { path: 'cancelAuctionIds', code: 'ONE_UNIT_PER_REQUEST', message: ONE_UNIT_MESSAGE },
    ]);
    assert.equal(ONE_UNIT_MESSAGE, 'Only one unit cancellation per request is currently supported.');
    assert.deepEqual(codes(cancel(undefined)), ['REQUIRED']);
    assert.deepEqual(codes(cancel([{ unitId: '' }])), ['TOO_SHORT']);
    assert.deepEqual(codes(cancel(['U-1'])), ['INVALID_TYPE']);
  });
});

describe('validateAmendedRecord', () => {
  const stored = (
    validateCreateRequest(body([full({ auctionType: 'Charity', description: null })]), ctx) as {
      ok: true;
      value: { records: { record: any }[] };
    }
  ).value.records[0]!.record;
  it('merges the change over the stored record and validates the result', () => {
    const result = validateAmendedRecord(stored, { auctionType: 'Lien', description: 'Now described' }, ctx);
    assert.ok(result.ok);
    assert.equal(result.value.record.auctionType, 'Lien');
    assert.equal(result.value.record.description, 'Now described');
    assert.equal(result.value.record.unitId, 'U-1001');
  });
  it('refuses a changed unitId and invalid values, with paths', () => {
    const result = validateAmendedRecord(stored, { unitId: 'U-2', auctionType: 'Free' }, ctx);
    assert.ok(!result.ok);
    assert.deepEqual(
      result.faults.map((f) => f.path),
      ['unitId', 'auctionType'],
    );
  });
});
