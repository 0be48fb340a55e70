// v3 reads: GET /gatewayevents/accounts/{accountId} and /facilities/{facilityId}: filters (unit and
// visitor ids of issue 11 included), pages, cursor walks while events arrive, authorization, and
// every bad parameter of issue 4.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_PAGE_NUMBER } from '../../src/events/limits.ts';
import { provisionReportingAccount, type ReportingAccount, rentedUnits } from '../helpers/events.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount } from '../helpers/tenants.ts';
import { event, getJson } from './helpers.ts';

let t: TestApp;
let acme: ReportingAccount;
let rival: ReportingAccount;
const DAY = 86_400_000;
// Seeded: 3 facilities × 12 events over the last 12 days, types cycling 18, 15, 10.
const seeded: { eventId: string; facility: number; eventType: number; occurredAt: string }[] = [];

before(async () => {
  t = await startTestApp();
  acme = await provisionReportingAccount(t, { facilities: 3, timeZone: 'America/New_York', name: 'Acme Storage' });
  rival = await provisionReportingAccount(t, { facilities: 1, name: 'Rival Storage' });
  const base = Date.now() - 12 * DAY;
  for (let f = 0; f < 3; f++) {
    const batch = [];
    for (let i = 0; i < 12; i++) {
      const e = event({
        eventType: [18, 15, 10][i % 3],
        occurredAt: new Date(base + i * DAY + f * 60_000).toISOString(),
      });
      batch.push(e);
      seeded.push({
        eventId: e.eventId as string,
        facility: f,
        eventType: e.eventType as number,
        occurredAt: e.occurredAt as string,
      });
    }
    await acme.ingest(f, batch);
  }
  await rival.ingest(0, [event(), event(), event()]);
});
after(() => t.close());

const accountUrl = (query = '') => `/gatewayevents/accounts/${acme.accountId}${query ? `?${query}` : ''}`;
const facilityUrl = (f: number, query = '') =>
  `/gatewayevents/facilities/${acme.facilities[f]!.id}${query ? `?${query}` : ''}`;
const read = (url: string, token = acme.token, headers: Record<string, string> = {}) => getJson(t, token, url, headers);

describe('pages', () => {
  it("an account page holds the account's events only, newest first, with metadata", async () => {
    const page = await read(accountUrl('pageSize=10'));
    assert.equal(page.status, 200);
    assert.equal(page.headers['api-supported-versions'], '1.0, 2.0, 3.0');
    assert.equal(page.headers.deprecation, undefined);
    assert.deepEqual(
      { ...page.body.metadata, nextCursor: typeof page.body.metadata.nextCursor },
      { pageSize: 10, pageNumber: 1, totalResults: 36, totalPages: 4, nextCursor: 'string', totalResultsExact: true },
    );
    assert.equal(page.body.items.length, 10);
    const times = page.body.items.map((i: any) => i.occurredAt);
    assert.deepEqual(times, [...times].sort().reverse());
    for (const item of page.body.items) {
      assert.equal(item.accountId, acme.accountId);
      assert.deepEqual(Object.keys(item).sort(), [
        'accountId',
        'codeEntered',
        'data',
        'details',
        'deviceId',
        'deviceName',
        'eventCategory',
        'eventType',
        'eventTypeName',
        'facilityId',
        'facilityName',
        'id',
        'occurredAt',
        'occurredAtLocal',
        'receivedAt',
        'unitId',
        'unitNumber',
        'visitorId',
        'visitorName',
      ]);
      assert.match(item.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.match(item.occurredAtLocal, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-0[45]:00$/);
    }
  });

  it('pages by number and the pages add up to the whole', async () => {
    const seen: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const page = await read(accountUrl(`pageSize=10&pageNumber=${n}&sort=asc`));
      assert.equal(page.body.metadata.pageNumber, n);
      seen.push(...page.body.items.map((i: any) => i.id));
    }
    assert.equal(seen.length, 36);
    assert.equal(new Set(seen).size, 36);
    const beyond = await read(accountUrl('pageSize=10&pageNumber=5'));
    assert.deepEqual([beyond.status, beyond.body.items.length, beyond.body.metadata.nextCursor], [200, 0, null]);
  });

  it('filters by event types, comma-separated or repeated', async () => {
    const comma = await read(accountUrl('eventTypes=15,10&pageSize=100'));
    const repeated = await read(accountUrl('eventTypes=15&eventTypes=10&pageSize=100'));
    assert.equal(comma.body.metadata.totalResults, 24);
    assert.deepEqual(
      comma.body.items.map((i: any) => i.id),
      repeated.body.items.map((i: any) => i.id),
    );
    assert.ok(comma.body.items.every((i: any) => i.eventType === 15 || i.eventType === 10));
    assert.ok(comma.body.items.some((i: any) => i.eventTypeName === 'Door Alarm' && i.eventCategory === 'Alarm'));
  });

  it('filters by facilities; a facility of another account yields no rows from it and no error', async () => {
    const mine = await read(accountUrl(`facilityIds=${acme.facilities[1]!.id}`));
    assert.equal(mine.body.metadata.totalResults, 12);
    assert.ok(mine.body.items.every((i: any) => i.facilityId === acme.facilities[1]!.id));
    const theirs = await read(accountUrl(`facilityIds=${rival.facilities[0]!.id}`));
    assert.deepEqual([theirs.status, theirs.body.metadata.totalResults, theirs.body.items.length], [200, 0, 0]);
    const mixed = await read(accountUrl(`facilityIds=${rival.facilities[0]!.id},${acme.facilities[2]!.id}`));
    assert.equal(mixed.body.metadata.totalResults, 12);
    assert.ok(mixed.body.items.every((i: any) => i.facilityId === acme.facilities[2]!.id));
    const unknown = await read(accountUrl('facilityIds=999999999'));
    assert.deepEqual(unknown.body, theirs.body, 'no difference between a foreign and a non-existent facility');
  });

  it('filters by dates: a date is midnight UTC, start inclusive, end exclusive', async () => {
    const mine = seeded.filter((s) => s.facility === 0);
    const from = mine[3]!.occurredAt;
    const to = mine[6]!.occurredAt;
    const page = await read(
      facilityUrl(0, `startDate=${encodeURIComponent(from)}&endDate=${encodeURIComponent(to)}&sort=asc`),
    );
    assert.deepEqual(
      page.body.items.map((i: any) => i.occurredAt),
      [mine[3], mine[4], mine[5]].map((s) => s!.occurredAt),
    );
    const day = from.slice(0, 10);
    const byDate = await read(
      facilityUrl(0, `startDate=${day}&endDate=${new Date(Date.parse(day) + DAY).toISOString().slice(0, 10)}`),
    );
    assert.deepEqual(
      byDate.body.items.map((i: any) => i.occurredAt),
      [from],
    );
    const offset = await read(
      facilityUrl(
        0,
        `startDate=${encodeURIComponent(new Date(Date.parse(from)).toISOString().replace('Z', '+00:00'))}&pageSize=1&sort=asc`,
      ),
    );
    assert.equal(offset.body.items[0].occurredAt, from);
  });

  it("a facility page holds that facility's events", async () => {
    const page = await read(facilityUrl(2, 'pageSize=100'));
    assert.equal(page.body.metadata.totalResults, 12);
    assert.ok(
      page.body.items.every((i: any) => i.facilityId === acme.facilities[2]!.id && i.facilityName === 'Facility 3'),
    );
  });

  it('lists the event types from the catalogue', async () => {
    const types = await read('/gatewayevents/types');
    assert.equal(types.status, 200);
    assert.equal(types.body.length, 30);
    assert.deepEqual(
      types.body.find((x: any) => x.eventType === 18),
      { eventType: 18, name: 'Access Granted', description: 'Visitor granted access by a keypad.', category: 'Access' },
    );
  });
});

describe('cursor walks', () => {
  async function walk(
    url: (cursor: string | null) => string,
    between?: (page: number) => Promise<void>,
    token?: string,
  ) {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 1; page < 100; page++) {
      const response = await read(url(cursor), token);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.metadata.pageNumber, page);
      ids.push(...response.body.items.map((i: any) => i.id));
      cursor = response.body.metadata.nextCursor;
      if (!cursor) return { ids, last: response.body };
      if (between) await between(page);
    }
    throw new Error('the walk did not end');
  }

  it('returns every event exactly once, in order', async () => {
    for (const sort of ['desc', 'asc']) {
      const { ids } = await walk((c) => accountUrl(`pageSize=7&sort=${sort}${c ? `&cursor=${c}` : ''}`));
      const all = await read(accountUrl(`pageSize=1000&sort=${sort}`));
      assert.deepEqual(
        ids,
        all.body.items.map((i: any) => i.id),
        sort,
      );
    }
  });

  it('returns every event exactly once while new and late events arrive during the walk', async () => {
    const walker = await provisionReportingAccount(t, { facilities: 1 });
    const facilityId = walker.facilities[0]!.id;
    const initial = Array.from({ length: 10 }, (_, i) =>
      event({ occurredAt: new Date(Date.now() - (10 - i) * DAY).toISOString() }),
    );
    await walker.ingest(0, initial);
    const url = (sort: string) => (c: string | null) =>
      `/gatewayevents/facilities/${facilityId}?pageSize=4&sort=${sort}${c ? `&cursor=${c}` : ''}`;
    for (const sort of ['asc', 'desc']) {
      const { ids, last } = await walk(
        url(sort),
        async (page) => {
          if (page > 3) return;
          // One event now, and one late: it happened 9.5 days ago, among pages an ascending walk has read.
          const fresh = event({ eventType: 18 }, 0);
          const late = event({
            eventType: 15,
            occurredAt: new Date(Date.now() - 9.5 * DAY - page * 1000).toISOString(),
          });
          await walker.ingest(0, [fresh, late]);
        },
        walker.token,
      );
      const everything = await read(`/gatewayevents/facilities/${facilityId}?pageSize=1000`, walker.token);
      assert.equal(new Set(ids).size, ids.length, `${sort}: no event twice`);
      assert.deepEqual(
        [...ids].sort(),
        everything.body.items.map((i: any) => i.id).sort(),
        `${sort}: every event, the arrivals included`,
      );
      assert.equal(last.metadata.totalResults, everything.body.items.length);
    }
  });

  it('refuses a tampered cursor, a forged one, and one issued for another query, with 400', async () => {
    const first = await read(accountUrl('pageSize=5&eventTypes=18'));
    const cursor: string = first.body.metadata.nextCursor;
    const bytes = Buffer.from(cursor, 'base64url');
    bytes[20] = bytes[20]! ^ 1;
    const tampered = bytes.toString('base64url');
    const cases = [
      accountUrl(`pageSize=5&eventTypes=18&cursor=${tampered}`),
      accountUrl(`pageSize=5&eventTypes=18&cursor=${cursor.slice(0, -2)}`),
      accountUrl(`pageSize=5&eventTypes=18&cursor=not-a-cursor`),
      accountUrl(`pageSize=5&eventTypes=18&cursor=${encodeURIComponent("' or 1=1 --")}`),
      accountUrl(`pageSize=5&eventTypes=15&cursor=${cursor}`), // other filters
      accountUrl(`pageSize=5&cursor=${cursor}`), // filters dropped
      facilityUrl(0, `pageSize=5&eventTypes=18&cursor=${cursor}`), // another route
    ];
    for (const url of cases) {
      const response = await read(url);
      assert.equal(response.status, 400, url);
      assert.equal(response.body.code, 'INVALID_CURSOR');
      assert.deepEqual(
        response.body.errors.map((e: any) => e.path),
        ['cursor'],
      );
    }
    // The same cursor with its own query still works.
    assert.equal((await read(accountUrl(`pageSize=5&eventTypes=18&cursor=${cursor}`))).status, 200);
  });

  it("never returns another account's data for its cursor", async () => {
    const theirs = await read(`/gatewayevents/accounts/${rival.accountId}?pageSize=1`, rival.token);
    const cursor = theirs.body.metadata.nextCursor;
    assert.ok(cursor);
    const response = await read(accountUrl(`pageSize=1&cursor=${cursor}`));
    assert.equal(response.status, 400);
    assert.equal(response.body.code, 'INVALID_CURSOR');
    assert.equal('items' in response.body, false);
  });
});

describe('unit and visitor filters', () => {
  // Another account, so that the totals above stay as they are: two facilities, two units and two
  // visitors at the first, made the way a PMS makes them.
  let keeper: ReportingAccount;
  let u1: number;
  let u2: number;
  let v1: number;
  let v2: number;
  /** details of the keeper's events, newest first. */
  const named: Record<string, { unitId?: number; visitorId?: number; eventType: number }> = {};

  before(async () => {
    keeper = await provisionReportingAccount(t, { facilities: 2, name: 'Keeper Storage' });
    const facility = keeper.facilities[0]!.id;
    [{ unitId: u1, visitorId: v1 }, { unitId: u2, visitorId: v2 }] = await rentedUnits(t, keeper.token, facility, [
      { unitNumber: 'K-1', accessCode: '5511', firstName: 'Kim', lastName: 'Keeper' },
      { unitNumber: 'K-2', accessCode: '5522', firstName: 'Kai', lastName: 'Keeper' },
    ]);
    const spec: [string, number, { unitId?: number; visitorId?: number }][] = [
      ['k1', 18, { unitId: u1, visitorId: v1 }],
      ['k2', 15, { unitId: u1 }],
      ['k3', 18, { unitId: u2, visitorId: v2 }],
      ['k4', 33, { unitId: u2 }],
      ['k5', 18, { unitId: u1, visitorId: v1 }],
      ['k6', 10, {}],
      ['k7', 18, { visitorId: v1 }],
      ['k8', 34, { unitId: u1 }],
    ];
    const batch = spec.map(([details, eventType, ids], i) => {
      named[details] = { eventType, ...ids };
      return event({ eventType, details, ...ids }, 10 + i * 60);
    });
    await keeper.ingest(0, batch);
    // The same unit id reported at the account's other facility.
    await keeper.ingest(1, [event({ details: 'k-other', unitId: u1 }, 5)]);
  });

  const keeperUrl = (query: string, facility = 0) =>
    `/gatewayevents/facilities/${keeper.facilities[facility]!.id}?${query}`;
  const detailsOf = async (path: string) => {
    const response = await read(path, keeper.token);
    assert.equal(response.status, 200, response.text);
    return response.body.items.map((i: any) => i.details);
  };
  const expected = (match: (e: { unitId?: number; visitorId?: number; eventType: number }) => boolean) =>
    Object.entries(named)
      .filter(([, e]) => match(e))
      .map(([details]) => details);

  it('unitIds: comma-separated or repeated', async () => {
    assert.deepEqual(
      await detailsOf(keeperUrl(`unitIds=${u1}`)),
      expected((e) => e.unitId === u1),
    );
    assert.deepEqual(await detailsOf(keeperUrl(`unitIds=${u2}`)), ['k3', 'k4']);
    const both = expected((e) => e.unitId !== undefined);
    assert.deepEqual(await detailsOf(keeperUrl(`unitIds=${u1},${u2}`)), both);
    assert.deepEqual(await detailsOf(keeperUrl(`unitIds=${u2}&unitIds=${u1}`)), both);
    const page = await read(keeperUrl(`unitIds=${u1}`), keeper.token);
    for (const item of page.body.items) assert.deepEqual([item.unitId, item.unitNumber], [u1, 'K-1']);
    assert.deepEqual(await detailsOf(keeperUrl('unitIds=999999999')), []);
  });

  it('visitorIds, and every filter together', async () => {
    assert.deepEqual(await detailsOf(keeperUrl(`visitorIds=${v1}`)), ['k1', 'k5', 'k7']);
    assert.deepEqual(await detailsOf(keeperUrl(`visitorIds=${v1},${v2}`)), ['k1', 'k3', 'k5', 'k7']);
    assert.deepEqual(await detailsOf(keeperUrl(`unitIds=${u1}&visitorIds=${v1}`)), ['k1', 'k5']);
    assert.deepEqual(await detailsOf(keeperUrl(`unitIds=${u1}&eventTypes=15,34`)), ['k2', 'k8']);
    assert.deepEqual(await detailsOf(keeperUrl(`unitIds=${u1}&visitorIds=${v2}`)), []);
    const page = await read(keeperUrl(`visitorIds=${v1}`), keeper.token);
    assert.equal(page.body.items[0].visitorName, 'Kim Keeper');
  });

  it('on the account route too, with facilityIds', async () => {
    const account = `/gatewayevents/accounts/${keeper.accountId}`;
    assert.deepEqual(await detailsOf(`${account}?unitIds=${u1}`), ['k-other', ...expected((e) => e.unitId === u1)]);
    assert.deepEqual(await detailsOf(`${account}?unitIds=${u1}&facilityIds=${keeper.facilities[1]!.id}`), ['k-other']);
    assert.deepEqual(await detailsOf(`${account}?unitIds=${u2}&sort=asc`), ['k4', 'k3']);
    // Another account's units match nothing here.
    const theirs = await read(accountUrl(`unitIds=${u1}`));
    assert.deepEqual([theirs.status, theirs.body.items], [200, []]);
  });

  it('walks by cursor with the filter: every match once, in order, new arrivals included', async () => {
    for (const sort of ['desc', 'asc']) {
      const query = `unitIds=${u1},${u2}&visitorIds=${v1},${v2}&pageSize=1&sort=${sort}`;
      const ids: string[] = [];
      let cursor: string | null = null;
      for (let page = 1; page < 20; page++) {
        const response = await read(keeperUrl(`${query}${cursor ? `&cursor=${cursor}` : ''}`), keeper.token);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.metadata.pageNumber, page);
        ids.push(...response.body.items.map((i: any) => i.details));
        cursor = response.body.metadata.nextCursor;
        if (!cursor) break;
        if (page === 1) {
          // The cursor is bound to the filter: other ids, or none, are another query.
          for (const other of [
            `unitIds=${u1}&visitorIds=${v1},${v2}`,
            `unitIds=${u1},${u2}`,
            `visitorIds=${v1},${v2}`,
          ]) {
            const refused = await read(keeperUrl(`${other}&pageSize=1&sort=${sort}&cursor=${cursor}`), keeper.token);
            assert.equal(refused.status, 400, other);
            assert.equal(refused.body.code, 'INVALID_CURSOR');
          }
          // Listed the other way round, it is the same query.
          const same = await read(
            keeperUrl(`unitIds=${u2},${u1}&visitorIds=${v2},${v1}&pageSize=1&sort=${sort}&cursor=${cursor}`),
            keeper.token,
          );
          assert.equal(same.status, 200, same.text);
          // A matching event and one that does not match arrive during the walk.
          const fresh = event({ details: `fresh-${sort}`, unitId: u2, visitorId: v2 }, 0);
          const late = event({ details: `late-${sort}`, unitId: u1, visitorId: v1 }, 60 * 24 * 3);
          const noise = event({ details: `noise-${sort}`, unitId: u1 }, 0);
          await keeper.ingest(0, [fresh, late, noise]);
        }
      }
      const matching = [
        ...expected((e) => e.unitId !== undefined && e.visitorId !== undefined),
        `fresh-${sort}`,
        `late-${sort}`,
      ];
      assert.equal(new Set(ids).size, ids.length, `${sort}: no event twice`);
      assert.deepEqual(
        [...ids].sort(),
        [...matching, ...(sort === 'asc' ? ['fresh-desc', 'late-desc'] : [])].sort(),
        sort,
      );
    }
  });

  it('refuses ids that are not positive integers, naming the parameter', async () => {
    const cases: [string, string][] = [
      ['unitIds=abc', 'unitIds'],
      ['unitIds=1,x', 'unitIds'],
      ['unitIds=0', 'unitIds'],
      ['visitorIds=-2', 'visitorIds'],
      ['visitorIds=1.5', 'visitorIds'],
      [`visitorIds=${encodeURIComponent('1) or (1=1')}`, 'visitorIds'],
    ];
    for (const [query, path] of cases) {
      const response = await read(keeperUrl(query), keeper.token);
      assert.equal(response.status, 400, query);
      assert.deepEqual(
        response.body.errors.map((e: any) => e.path),
        [path],
      );
    }
  });
});

describe('authorization', () => {
  it('answers 404 for another account and for its facilities, 403 without the scope, 401 without a token', async () => {
    assert.equal((await read(`/gatewayevents/accounts/${rival.accountId}`)).status, 404);
    assert.equal((await read(`/gatewayevents/facilities/${rival.facilities[0]!.id}`)).status, 404);
    assert.equal((await read(`/gatewayevents/accounts/${rival.accountId}/export`)).status, 404);
    assert.equal((await read(`/gatewayevents/facilities/not-an-id`)).status, 404);
    assert.equal((await read(`/gatewayevents/facilities/999999999`)).status, 404);
    const noScope = await provisionAccount(t, { scopes: ['accesscontrol:read'] });
    assert.equal((await read(`/gatewayevents/accounts/${noScope.accountId}`, noScope.token)).status, 403);
    assert.equal((await read(accountUrl(), acme.gateways[0]!)).status, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: accountUrl() })).statusCode, 401);
  });
});

describe('bad parameters', () => {
  // The queries refused, by the parameter the 400 names: bad values, then SQL in each.
  const refusedBy: Record<string, string[]> = {
    pageSize: ['pageSize=0', 'pageSize=10001', 'pageSize=ten', `pageSize=${encodeURIComponent('1; select 1')}`],
    pageNumber: ['pageNumber=0', 'pageNumber=-1', `pageNumber=${encodeURIComponent('1 union select 1')}`],
    endDate: [
      'startDate=2026-03-10&endDate=2026-03-01',
      'startDate=2026-03-10&endDate=2026-03-10',
      'endDate=2026-02-30',
    ],
    startDate: [
      'startDate=yesterday',
      'startDate=2026-03-01T00:00:00',
      'startDate=1772323200',
      `startDate=${encodeURIComponent("2026-01-01'; drop table gateway_events; --")}`,
    ],
    eventTypes: ['eventTypes=2', 'eventTypes=18,abc', `eventTypes=${encodeURIComponent('18) or 1=1 --')}`],
    facilityIds: [
      'facilityIds=not-an-id',
      'facilityIds=0',
      'facilityIds=-3',
      'facilityIds=1.5',
      `facilityIds=${encodeURIComponent("' or ''='")}`,
    ],
    unitIds: ['unitIds=abc'],
    visitorIds: ['visitorIds=0'],
    sort: ['sort=sideways', `sort=${encodeURIComponent('asc; delete from gateway_events')}`],
  };
  const bad = Object.entries(refusedBy).flatMap(([path, queries]) => queries.map((query) => [query, path] as const));
  for (const [query, path] of bad) {
    it(`400 for ${decodeURIComponent(query)}`, async () => {
      const response = await read(accountUrl(query));
      assert.equal(response.status, 400, response.text);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(
        response.body.errors.some((e: any) => e.path === path),
        JSON.stringify(response.body.errors),
      );
      assert.equal(/select|gateway_events|stack/i.test(response.body.detail), false);
    });
  }

  it('names every bad parameter in one 400', async () => {
    const response = await read(accountUrl('pageSize=0&pageNumber=0&sort=up'));
    assert.deepEqual(response.body.errors.map((e: any) => e.path).sort(), ['pageNumber', 'pageSize', 'sort']);
  });

  it('names the schema faults and the filter faults together, each in plain words (issue 16)', async () => {
    const query = 'sort=up&pageSize=abc&startDate=yesterday&eventTypes=2&unitIds=x';
    const plain = {
      sort: 'must be desc or asc',
      pageSize: 'must be a whole number from 1 to 10000',
      startDate:
        'must be an ISO 8601 date-time with an offset (2026-03-01T00:00:00Z) or a date (2026-03-01, midnight UTC)',
      eventTypes: '"2" is not an event type (see GET /gatewayevents/types)',
      unitIds: '"x" is not a unit id (a positive integer)',
    };
    const faultsOf = (response: { status: number; body: any }) => {
      assert.equal(response.status, 400, JSON.stringify(response.body));
      return Object.fromEntries(response.body.errors.map((e: any) => [e.path, e.message]));
    };
    assert.deepEqual(faultsOf(await read(facilityUrl(0, query))), plain);
    assert.deepEqual(faultsOf(await read(accountUrl(`${query}&facilityIds=x&pageNumber=0`))), {
      ...plain,
      facilityIds: '"x" is not a facility id (a positive integer)',
      pageNumber: `must be a whole number from 1 to ${MAX_PAGE_NUMBER}`,
    });
    // Version 1.0 of the same routes: its paging, the same filters, in one 400 too.
    const { pageSize: _, ...filters } = plain;
    assert.deepEqual(
      faultsOf(
        await read(facilityUrl(0, `${query.replace('pageSize', 'limit')}&offset=-1`), acme.token, {
          'api-version': '1.0',
        }),
      ),
      {
        ...filters,
        limit: 'must be a whole number from 1 to 10000',
        offset: 'must be a whole number from 0 to 1000000000',
      },
    );
    // A date in the wrong order still names endDate beside a schema fault.
    assert.deepEqual(faultsOf(await read(accountUrl('startDate=2026-03-10&endDate=2026-03-01&sort=up'))), {
      sort: 'must be desc or asc',
      endDate: 'must be after startDate (startDate is inclusive, endDate exclusive)',
    });
  });

  it('leaves the events intact after every injection attempt', async () => {
    const all = await read(accountUrl('pageSize=1000'));
    assert.equal(all.body.metadata.totalResults, 36);
  });
});

describe('retention', () => {
  it('never returns an event older than the retention window', async () => {
    const old = Date.now() - (t.config.eventRetentionDays + 2) * DAY;
    // Written directly: ingest refuses such an event, but a partition may still hold one until it is dropped.
    await t.services.database.pool.query('select gateway_events_ensure_partition($1::timestamptz)', [
      new Date(old).toISOString(),
    ]);
    await t.services.database.pool.query(
      `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at, received_at)
       values ($1, $2, 'Facility 1', 'UTC', 'ancient', 18, $3, $3)`,
      [acme.accountId, acme.facilities[0]!.id, new Date(old).toISOString()],
    );
    const all = await read(accountUrl(`pageSize=1000&startDate=${new Date(old - DAY).toISOString().slice(0, 10)}`));
    assert.equal(all.body.metadata.totalResults, 36);
  });
});
