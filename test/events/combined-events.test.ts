// GET /combinedevents/facilities/{facilityId} and GET /combinedevents/types (SPEC §6.3, issue 11):
// every parameter, both answer forms, the item's fields exactly, the types, versions, access, and
// the bad inputs. Both databases (npm test, and with DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  COMBINED_COLUMNS,
  CombinedItemsWriter,
  type CombinedEventRow,
  combinedAnswerJson,
  toCombinedEvent,
} from '../../src/events/combined.ts';
import { EVENT_TYPES } from '../../src/events/catalogue.ts';
import type { EntityId } from '../../src/ids.ts';
import {
  eventFilter,
  eventRow,
  facilityWallClock,
  provisionReportingAccount,
  type ReportingAccount,
  rentedUnits,
  unitAt,
} from '../helpers/events.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount } from '../helpers/tenants.ts';
import { event, getJson } from './helpers.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const TIME_ZONE = 'America/Denver';

let t: TestApp;
let acme: ReportingAccount;
let rival: ReportingAccount;
let facilityId: EntityId;
let gateway: string;
let u1: EntityId;
let u2: EntityId;
let v1: EntityId;
let v2: EntityId;
let foreignUnit: EntityId;
/** Whole seconds: the moment the fixtures are placed relative to. */
let base: number;
/** details → the event as posted. */
const posted = new Map<string, { occurredAt: number; eventType: number }>();

// The fixtures of facility 1, by details. Newest first within the default window (the last 12 h).
const IN_WINDOW = ['e1', 'e2', 'e3', 'e4', 'e5', 'e-in'];

before(async () => {
  t = await startTestApp();
  acme = await provisionReportingAccount(t, { facilities: 3, timeZone: TIME_ZONE, name: 'Acme Storage' });
  rival = await provisionReportingAccount(t, { facilities: 1, name: 'Rival Storage' });
  facilityId = acme.facilities[0]!.id;
  gateway = acme.gateways[0]!;

  [{ unitId: u1, visitorId: v1 }, { unitId: u2, visitorId: v2 }] = await rentedUnits(t, acme.token, facilityId, [
    { unitNumber: 'A-101', accessCode: '2468', firstName: 'Jane', lastName: 'Doe' },
    { unitNumber: 'A-102', accessCode: '1357', firstName: 'John', lastName: 'Doe' },
  ]);
  foreignUnit = await unitAt(t, acme.token, acme.facilities[1]!.id, 'B-201');

  base = Math.floor(Date.now() / 1000) * 1000;
  const fixture = (details: string, eventType: number, occurredAt: number, ids: object = {}) => {
    posted.set(details, { occurredAt, eventType });
    return event({ eventType, occurredAt: new Date(occurredAt).toISOString(), details, ...ids });
  };
  const batch = [
    fixture('e1', 18, base - 1 * HOUR, { unitId: u1, visitorId: v1 }),
    fixture('e2', 15, base - 2 * HOUR, { unitId: u1, codeEntered: '999912' }),
    fixture('e3', 18, base - 3 * HOUR, { unitId: u2, visitorId: v2 }),
    fixture('e4', 33, base - 4 * HOUR, { unitId: u2 }),
    fixture('e5', 10, base - 5 * HOUR, { data: { active: true } }),
    // Just inside and just outside the default window.
    fixture('e-in', 12, base - 12 * HOUR + 10 * MINUTE),
    fixture('e-out', 18, base - 12 * HOUR - 10 * MINUTE, { unitId: u1, visitorId: v1 }),
    fixture('e-old', 18, base - 20 * HOUR, { unitId: u1, visitorId: v1 }),
    // Ahead of the clock, but within the 5 minutes a device clock is trusted: stored as reported,
    // so it lies after the default maxDate (now).
    fixture('e-ahead', 18, base + 3 * MINUTE),
    // A foreign unit reported at this facility (it resolves to no number).
    fixture('e-foreign', 16, base - 30 * HOUR, { unitId: foreignUnit }),
  ];
  await acme.ingest(0, batch);
  // Other facilities' events, in the same hours: never in this facility's answers.
  await acme.ingest(1, [event({ details: 'other-1' }, 60), event({ details: 'other-2', unitId: u1 }, 90)]);
  await rival.ingest(0, [event({ details: 'rival-1' }, 60)]);
});
after(() => t.close());

const seconds = (ms: number) => Math.floor(ms / 1000);
const url = (query = '', facility: EntityId = facilityId) =>
  `/combinedevents/facilities/${facility}${query ? `?${query}` : ''}`;
const read = (path: string, headers: Record<string, string> = {}, token = acme.token) =>
  getJson(t, token, path, headers);
/** The details of an answer's items, in order (a plain array, or a page's items). */
async function details(query: string, headers: Record<string, string> = {}) {
  const response = await read(url(query), headers);
  assert.equal(response.status, 200, response.text);
  const items = Array.isArray(response.body) ? response.body : response.body.items;
  return items.map((item: any) => item.eventDetails);
}
const wide = () => `minDate=${seconds(base - 48 * HOUR)}&maxDate=${seconds(base + HOUR)}`;

describe('the answer', () => {
  it('is {metadata, items} by default: the last 12 hours, newest first', async () => {
    const response = await read(url());
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(response.body), ['metadata', 'items']);
    assert.deepEqual(response.body.metadata, { totalResults: 6, pageSize: 100, pageNumber: 1, totalPages: 1 });
    assert.deepEqual(
      response.body.items.map((i: any) => i.eventDetails),
      IN_WINDOW,
    );
  });

  it('is a plain array with hideMetadata=true (any letter case), the page form with false', async () => {
    for (const value of ['true', 'True', 'TRUE']) {
      const response = await read(url(`hideMetadata=${value}`));
      assert.equal(response.status, 200, response.text);
      assert.ok(Array.isArray(response.body), value);
      assert.deepEqual(
        response.body.map((i: any) => i.eventDetails),
        IN_WINDOW,
      );
    }
    for (const value of ['false', 'False', '']) {
      const response = await read(url(`hideMetadata=${value}`));
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body), ['metadata', 'items'], value);
    }
  });

  it('has exactly the fields of SPEC §6.3: eventType the name, eventTypeEnum the number', async () => {
    const combined = await read(url(`${wide()}&hideMetadata=true`));
    const v3 = await read(`/gatewayevents/facilities/${facilityId}?pageSize=100`);
    const e1 = combined.body.find((i: any) => i.eventDetails === 'e1');
    const occurred = posted.get('e1')!.occurredAt;
    assert.deepEqual(e1, {
      id: v3.body.items.find((i: any) => i.details === 'e1').id,
      facilityId,
      facilityName: 'Facility 1',
      deviceId: 'kp-1',
      deviceName: 'Front gate keypad',
      eventCategory: 'Gateway Controller Event',
      eventType: 'Access Granted',
      eventTypeEnum: 18,
      eventDetails: 'e1',
      createdOn: facilityWallClock(occurred, TIME_ZONE),
      createdUtc: new Date(occurred).toISOString(),
      unitId: u1,
      unitName: 'A-101',
      visitorId: v1,
      visitorName: 'Jane Doe',
    });
    assert.match(e1.createdOn, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    assert.equal(Object.keys(e1).join(), Object.keys(combined.body[0]).join(), 'every item has the same fields');
    // Every item is the v3 event under its combined names.
    for (const item of combined.body) {
      const same = v3.body.items.find((i: any) => i.id === item.id);
      assert.ok(same, item.eventDetails);
      assert.deepEqual(
        [item.eventTypeEnum, item.eventType, item.createdUtc, item.unitId, item.unitName, item.visitorName],
        [same.eventType, same.eventTypeName, same.occurredAt, same.unitId, same.unitNumber, same.visitorName],
      );
      assert.equal(item.createdOn, same.occurredAtLocal.slice(0, 23));
      assert.equal(item.eventCategory, 'Gateway Controller Event');
    }
    const alarm = combined.body.find((i: any) => i.eventDetails === 'e5');
    assert.deepEqual(
      [alarm.eventType, alarm.eventTypeEnum, alarm.unitId, alarm.unitName, alarm.visitorId, alarm.visitorName],
      ['Door Alarm', 10, null, null, null, null],
    );
    const foreign = combined.body.find((i: any) => i.eventDetails === 'e-foreign');
    assert.deepEqual([foreign.unitId, foreign.unitName], [foreignUnit, null]);
    assert.equal(JSON.stringify(combined.body).includes('999912'), false, 'no code, masked or not');
  });

  it("renders createdOn on the facility's wall clock across a daylight-saving change", () => {
    const row = (ms: number, timeZone: string) => eventRow({ time_zone: timeZone, occurred_ms: ms });
    // 2026-03-08 02:00 in Denver: clocks go from 01:59:59.999 (-07:00) to 03:00 (-06:00).
    const change = Date.UTC(2026, 2, 8, 9);
    assert.equal(toCombinedEvent(row(change - 1, TIME_ZONE)).createdOn, '2026-03-08T01:59:59.999');
    assert.equal(toCombinedEvent(row(change, TIME_ZONE)).createdOn, '2026-03-08T03:00:00.000');
    assert.equal(toCombinedEvent(row(change, 'Asia/Kathmandu')).createdOn, '2026-03-08T14:45:00.000');
    assert.equal(toCombinedEvent(row(change, TIME_ZONE)).createdUtc, '2026-03-08T09:00:00.000Z');
  });
});

describe('filters', () => {
  it('gtq: repeated or comma-separated event types; none → every type', async () => {
    assert.deepEqual(await details(`gtq=18&gtq=15&hideMetadata=true`), ['e1', 'e2', 'e3']);
    assert.deepEqual(await details(`gtq=18,15&hideMetadata=true`), ['e1', 'e2', 'e3']);
    assert.deepEqual(await details(`gtq=33`), ['e4']);
    assert.deepEqual(await details(`gtq=5`), []);
    assert.deepEqual(await details(''), IN_WINDOW);
  });

  it('etq and itq are accepted and select nothing: alone they answer no items; with gtq, gtq decides', async () => {
    assert.deepEqual(await details('etq=1&itq=2&etq=3'), []);
    assert.deepEqual(await details('gtq=18&etq=5&itq=7'), ['e1', 'e3']);
    assert.deepEqual(await details('etq=anything'), []);
    assert.deepEqual(await details('etq=&itq='), IN_WINDOW, 'lists that name no type are no filter');
  });

  it("uq and vq: one unit's or one visitor's events; empty means no filter", async () => {
    assert.deepEqual(await details(`uq=${u1}`), ['e1', 'e2']);
    assert.deepEqual(await details(`uq=${u2}`), ['e3', 'e4']);
    assert.deepEqual(await details(`vq=${v1}`), ['e1']);
    assert.deepEqual(await details(`vq=${v2}`), ['e3']);
    assert.deepEqual(await details(`uq=${u1}&vq=${v1}&gtq=18`), ['e1']);
    assert.deepEqual(await details(`uq=${u1}&vq=${v2}`), []);
    assert.deepEqual(await details(`uq=${u1}&${wide()}`), ['e1', 'e2', 'e-out', 'e-old']);
    assert.deepEqual(await details(`vq=${v1}&${wide()}`), ['e1', 'e-out', 'e-old']);
    assert.deepEqual(await details('uq=&vq='), IN_WINDOW);
    assert.deepEqual(await details(`uq=${foreignUnit}&${wide()}`), ['e-foreign']);
    // The unit's events at another facility of the account are not this facility's.
    assert.deepEqual(await details(`uq=${u1}&${wide()}`, {}), ['e1', 'e2', 'e-out', 'e-old']);
    const elsewhere = await read(url(`uq=${u1}&${wide()}`, acme.facilities[1]!.id));
    assert.deepEqual(
      elsewhere.body.items.map((i: any) => i.eventDetails),
      ['other-2'],
    );
    assert.deepEqual(await details(`uq=999999999`), []);
  });

  it('minDate (inclusive) and maxDate (exclusive) in Unix seconds', async () => {
    const e3 = seconds(posted.get('e3')!.occurredAt);
    const e1 = seconds(posted.get('e1')!.occurredAt);
    assert.deepEqual(await details(`minDate=${e3}&maxDate=${e1}`), ['e2', 'e3']);
    assert.deepEqual(await details(`minDate=${e3}&maxDate=${e1 + 1}`), ['e1', 'e2', 'e3']);
    assert.deepEqual(await details(`minDate=${e3 + 1}&maxDate=${e1}`), ['e2']);
    assert.deepEqual(await details(`minDate=${e3}&maxDate=${e3}`), [], 'an empty window is no error');
    assert.deepEqual(await details(wide()), ['e-ahead', ...IN_WINDOW, 'e-out', 'e-old', 'e-foreign']);
  });

  it('maxDate defaults to now, minDate to 12 hours before maxDate', async () => {
    // Only minDate: up to now (the event 3 minutes ahead of the clock is not yet included).
    assert.deepEqual(await details(`minDate=${seconds(base - 48 * HOUR)}`), [
      ...IN_WINDOW,
      'e-out',
      'e-old',
      'e-foreign',
    ]);
    // Only maxDate: the 12 hours before it.
    assert.deepEqual(await details(`maxDate=${seconds(base - 4 * HOUR)}`), ['e5', 'e-in', 'e-out']);
    assert.deepEqual(await details(`maxDate=${seconds(base - 10 * HOUR)}`), ['e-in', 'e-out', 'e-old']);
  });

  it('never returns an event older than the retention window', async () => {
    const old = base - (t.config.eventRetentionDays + 2) * 24 * HOUR;
    const pool = t.services.database.pool;
    await pool.query('select gateway_events_ensure_partition($1::timestamptz)', [new Date(old).toISOString()]);
    await pool.query(
      `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at, received_at, details, unit_id)
       values ($1, $2, 'Facility 1', 'UTC', 'ancient', 18, $3, $3, 'ancient', $4)`,
      [acme.accountId, facilityId, new Date(old).toISOString(), u1],
    );
    const all = await details(`minDate=${seconds(old - HOUR)}&maxDate=${seconds(base)}&uq=${u1}&hideMetadata=true`);
    assert.deepEqual(all, ['e1', 'e2', 'e-out', 'e-old']);
  });
});

describe('paging', () => {
  it('pages by pageSize and pageNumber; the pages add up; a page past the end is empty', async () => {
    const seen: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const page = await read(url(`${wide()}&pageSize=4&pageNumber=${n}`));
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(page.body.metadata, { totalResults: 10, pageSize: 4, pageNumber: n, totalPages: 3 });
      seen.push(...page.body.items.map((i: any) => i.eventDetails));
    }
    assert.deepEqual(seen, await details(`${wide()}&pageSize=100`));
    assert.equal(seen.length, 10);
    const beyond = await read(url(`${wide()}&pageSize=4&pageNumber=4`));
    assert.deepEqual(beyond.body, {
      metadata: { totalResults: 10, pageSize: 4, pageNumber: 4, totalPages: 3 },
      items: [],
    });
    const bare = await read(url(`${wide()}&pageSize=4&pageNumber=2&hideMetadata=true`));
    assert.deepEqual(
      bare.body.map((i: any) => i.eventDetails),
      seen.slice(4, 8),
    );
  });

  it('answers the newest 10,000 events of a filter at most', async () => {
    const busy = acme.facilities[2]!.id;
    const total = 10_050;
    const start = base - 11 * HOUR;
    for (let from = 0; from < total; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, total - from) }, (_, j) => {
        const i = from + j;
        // Event i occurred i seconds after the start: the newest is the last.
        return event({ occurredAt: new Date(start + i * 1000).toISOString(), details: `n${i}` });
      });
      await acme.ingest(2, batch);
    }
    const first = await read(url('pageSize=10000', busy));
    assert.equal(first.status, 200, first.text.slice(0, 300));
    assert.deepEqual(first.body.metadata, { totalResults: 10_000, pageSize: 10_000, pageNumber: 1, totalPages: 1 });
    assert.equal(first.body.items.length, 10_000);
    assert.equal(first.body.items[0].eventDetails, `n${total - 1}`);
    assert.equal(first.body.items[9_999].eventDetails, `n${total - 10_000}`);
    const second = await read(url('pageSize=10000&pageNumber=2', busy));
    assert.deepEqual(second.body.items, []);
    // A page that reaches past the 10,000th holds only the part before it.
    const straddling = await read(url('pageSize=3000&pageNumber=4', busy));
    assert.deepEqual(straddling.body.metadata, { totalResults: 10_000, pageSize: 3000, pageNumber: 4, totalPages: 4 });
    assert.equal(straddling.body.items.length, 1000);
    assert.equal(straddling.body.items.at(-1).eventDetails, `n${total - 10_000}`);
    // A narrower window reaches the older ones.
    const older = await read(url(`minDate=${seconds(start)}&maxDate=${seconds(start + 100_000)}&pageSize=100`, busy));
    assert.equal(older.body.metadata.totalResults, 100);
    assert.equal(older.body.items.at(-1).eventDetails, 'n0');
  });
});

describe('rows handed on as they arrive', () => {
  it('gives back its connection when the statement fails or the consumer throws', async () => {
    const { store } = t.services.events;
    const filter = eventFilter({ kind: 'facility', facilityId, accountId: acme.accountId }, { sort: 'desc' });
    const seen: unknown[] = [];
    await store.slice(filter, 3, 0, false, { columns: COMBINED_COLUMNS, onRow: (row) => seen.push(row) });
    assert.equal(seen.length, 3);
    const pool = t.services.database.pool;
    for (let attempt = 0; attempt < pool.options.max! + 2; attempt++) {
      await assert.rejects(
        store.slice(filter, 3, 0, false, { columns: 'no_such_column', onRow: () => {} }),
        /no_such_column/,
      );
      await assert.rejects(
        store.slice(filter, 3, 0, false, {
          columns: COMBINED_COLUMNS,
          onRow: () => {
            throw new Error('consumer failed');
          },
        }),
        /consumer failed/,
      );
    }
    // Every connection came back: the pool still answers, with nothing waiting.
    assert.equal((await read(url(`${wide()}&hideMetadata=true`))).body.length, 10);
    assert.equal(pool.waitingCount, 0);
  });
});

describe('the types', () => {
  it('lists the one catalogue as {name, eventTypeEnum, eventCategoryName, description}', async () => {
    const types = await read('/combinedevents/types');
    assert.equal(types.status, 200, types.text);
    assert.deepEqual(
      types.body,
      EVENT_TYPES.map((e) => ({
        name: e.name,
        eventTypeEnum: e.eventType,
        eventCategoryName: 'Gateway Controller Event',
        description: e.description,
      })),
    );
    const v3 = await read('/gatewayevents/types');
    assert.deepEqual(
      types.body.map((x: any) => [x.eventTypeEnum, x.name, x.description]),
      v3.body.map((x: any) => [x.eventType, x.name, x.description]),
    );
    assert.equal(types.body.length, 30);
  });
});

describe('versions', () => {
  it('answers 3.0 by default and when named, 2.0 alike with deprecation headers', async () => {
    const reference = await read(url(`${wide()}&hideMetadata=true`));
    for (const [query, headers, deprecated] of [
      ['', { 'api-version': '3.0' }, false],
      ['&api-version=3.0', {}, false],
      ['&api-version=3', {}, false],
      ['', { 'api-version': '2.0' }, true],
      ['&api-version=2.0', {}, true],
    ] as const) {
      const response = await read(url(`${wide()}&hideMetadata=true${query}`), headers);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, reference.body);
      if (deprecated) {
        assert.equal(response.headers['api-deprecated-versions'], '1.0, 2.0');
        assert.match(String(response.headers.deprecation), /^@\d+$/);
      } else {
        assert.equal(response.headers['api-supported-versions'], '1.0, 2.0, 3.0');
        assert.equal(response.headers.deprecation, undefined);
      }
    }
    for (const version of ['2.0', '3.0']) {
      const types = await read('/combinedevents/types', { 'api-version': version });
      assert.equal(types.status, 200, version);
      assert.equal(types.body.length, 30);
    }
  });

  it('is in the 3.0 and 2.0 documents', async () => {
    for (const version of ['3.0', '2.0']) {
      const doc = (await t.app.inject({ method: 'GET', url: `/swagger/v${version}.json` })).json();
      const operation = doc.paths['/combinedevents/facilities/{facilityId}']?.get;
      assert.ok(operation, version);
      assert.ok(doc.paths['/combinedevents/types']?.get, version);
      assert.match(operation.description, /existing PMS integrations/);
      assert.match(operation.description, /eventType is the type's \*\*name\*\*/);
      assert.deepEqual(operation.security, [{ oauth2: ['accessevent:read'] }, { bearerAuth: ['accessevent:read'] }]);
      assert.equal(operation.deprecated === true, version === '2.0');
    }
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/swagger/v1.0.json' })).json().paths['/combinedevents/types'],
      undefined,
    );
  });
});

describe('access', () => {
  it("answers another account's facility with the very 404 of a facility that does not exist", async () => {
    const theirs = await read(url('', rival.facilities[0]!.id));
    const nowhere = await read(url('', 999_999_999));
    assert.equal(theirs.status, 404);
    const strip = (body: any) => ({ ...body, traceId: undefined });
    assert.deepEqual(strip(theirs.body), strip(nowhere.body));
    assert.equal(theirs.headers['content-type'], nowhere.headers['content-type']);
    assert.equal(theirs.text.includes('Rival'), false);
    assert.equal((await read(url('', rival.facilities[0]!.id), { 'api-version': '2.0' })).status, 404);
    assert.equal((await read('/combinedevents/facilities/not-an-id')).status, 404);
    // The rival reads its own facility, and only its events.
    const own = await read(url(`hideMetadata=true`, rival.facilities[0]!.id), {}, rival.token);
    assert.deepEqual(
      own.body.map((i: any) => i.eventDetails),
      ['rival-1'],
    );
  });

  it('needs a token with accessevent:read', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: url() })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/combinedevents/types' })).statusCode, 401);
    const noScope = await provisionAccount(t, { scopes: ['accesscontrol:read'] });
    assert.equal((await read(url('', noScope.facilities[0]!.id), {}, noScope.token)).status, 403);
    assert.equal((await read('/combinedevents/types', {}, noScope.token)).status, 403);
    assert.equal((await read(url(), {}, gateway)).status, 403, "the controller's token reads no events");
  });
});

describe('bad parameters', () => {
  const now = () => seconds(Date.now());
  // One bad value of one parameter, by the parameter it names.
  const single: Record<string, string[]> = {
    gtq: ['gtq=999', 'gtq=18&gtq=999', 'gtq=abc'],
    uq: ['uq=abc', 'uq=0', 'uq=-4'],
    vq: ['vq=abc', 'vq=1.5'],
    pageSize: ['pageSize=10001', 'pageSize=0'],
    pageNumber: ['pageNumber=0'],
    minDate: ['minDate=-1'],
    maxDate: ['maxDate=yesterday'],
    hideMetadata: ['hideMetadata=maybe'],
  };
  const cases: [string, () => string, string[]][] = [
    ...Object.entries(single).flatMap(([path, queries]) =>
      queries.map((query): [string, () => string, string[]] => [query, () => query, [path]]),
    ),
    ['minDate > maxDate', () => `minDate=${now()}&maxDate=${now() - 3600}`, ['maxDate', 'minDate']],
    ['uq repeated', () => `uq=${u1}&uq=${u2}`, ['uq']],
    ['uq=<sql>', () => `uq=${encodeURIComponent("1' or '1'='1")}`, ['uq']],
    ['minDate as ISO 8601', () => 'minDate=2026-03-01T00:00:00Z', ['minDate']],
    ['every fault at once', () => 'gtq=999&uq=abc&vq=x', ['gtq', 'uq', 'vq']],
    [
      'schema and filter faults at once',
      () => 'gtq=999&uq=abc&pageSize=0&hideMetadata=maybe&minDate=yesterday',
      ['gtq', 'hideMetadata', 'minDate', 'pageSize', 'uq'],
    ],
  ];
  for (const [name, query, paths] of cases) {
    it(`400 for ${name}, naming ${paths.join(', ')}`, async () => {
      const response = await read(url(query()));
      assert.equal(response.status, 400, response.text);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.deepEqual(response.body.errors.map((e: any) => e.path).sort(), paths);
      assert.equal(/select|gateway_events|stack/i.test(response.text), false);
    });
  }

  it('says what each refused parameter must be, in plain words', async () => {
    const response = await read(url('gtq=999&uq=abc&pageSize=0&hideMetadata=maybe&minDate=yesterday'));
    assert.deepEqual(Object.fromEntries(response.body.errors.map((e: any) => [e.path, e.message])), {
      gtq: '"999" is not an event type (see GET /combinedevents/types)',
      uq: '"abc" is not a unit id (a positive integer)',
      pageSize: 'must be a whole number from 1 to 10000',
      hideMetadata: 'must be true or false (in any letter case)',
      minDate: 'must be a whole number from 0 to 253402300799',
    });
  });

  it('400 for api-version 1.0 and for versions that do not exist, naming api-version', async () => {
    const cases: [string, Record<string, string>][] = [
      [url(), { 'api-version': '1.0' }],
      [url('api-version=1.0'), {}],
      [url(), { 'api-version': '4.0' }],
      [url('api-version=2.0'), { 'api-version': '3.0' }],
      ['/combinedevents/types', { 'api-version': '1.0' }],
    ];
    for (const [path, headers] of cases) {
      const response = await read(path, headers);
      assert.equal(response.status, 400, `${path} ${JSON.stringify(headers)}: ${response.text}`);
      assert.equal(response.body.code, 'UNSUPPORTED_API_VERSION');
      assert.deepEqual(
        response.body.errors.map((e: any) => e.path),
        ['api-version'],
      );
      assert.match(response.body.errors[0].message, /2\.0, 3\.0/);
    }
  });
});

describe('the JSON of items', () => {
  it('is exactly the JSON of toCombinedEvent, for awkward rows too', () => {
    const base: CombinedEventRow = {
      id: '6a1f5c0e-8a3c-4c9b-9f5e-0d2f3b4a5c6d',
      facility_id: 42,
      facility_name: 'Main "Street", Ünit ✓',
      time_zone: 'Asia/Kathmandu',
      event_type: 3,
      occurred_ms: Date.UTC(2026, 2, 8, 9, 0, 0, 7),
      device_id: 'kp\\1',
      device_name: 'Gate\n1\t"north"',
      unit_id: 9_007_199_254_740_991,
      unit_number: 'A-101',
      visitor_id: 5,
      visitor_name: 'Zoë </script>',
      details: '\u2028line\u2029separators and emoji 🚪',
    };
    const awkward = [
      'plain',
      'say "hi"',
      'back\\slash',
      'tab\tand\nnewline\r',
      '\u0000\u001f\u007f',
      '\u2028line\u2029separators',
      'lone \ud800 surrogate',
      'emoji 🚪 and Zürich',
      '</script>',
      '',
    ];
    const rows: CombinedEventRow[] = [
      base,
      { ...base, unit_id: null, unit_number: null, visitor_id: null, visitor_name: null, details: null },
      { ...base, event_type: 99, time_zone: 'UTC', device_id: null, device_name: null },
      ...awkward.map((value) => ({
        ...base,
        facility_name: value,
        device_id: value,
        device_name: value,
        unit_number: value,
        visitor_name: value,
        details: value,
      })),
    ];
    const metadata = { totalResults: rows.length, pageSize: 20, pageNumber: 1, totalPages: 1 };
    // The same text as JSON.stringify of the readable definition: escaping and key order included.
    assert.equal(combinedAnswerJson(rows, null), JSON.stringify(rows.map(toCombinedEvent)));
    assert.equal(combinedAnswerJson(rows, metadata), JSON.stringify({ metadata, items: rows.map(toCombinedEvent) }));
    assert.equal(combinedAnswerJson([], null), '[]');
    assert.equal(
      combinedAnswerJson([], { totalResults: 0, pageSize: 5, pageNumber: 2, totalPages: 0 }),
      '{"metadata":{"totalResults":0,"pageSize":5,"pageNumber":2,"totalPages":0},"items":[]}',
    );
    assert.equal(toCombinedEvent(rows[2]!).eventType, 'Event type 99');
  });

  it('grows its buffer past the size it expected, multi-byte text included', () => {
    const row = (n: number) =>
      eventRow({
        id: `id-${n}`,
        facility_name: 'Ünit ✓',
        time_zone: 'Europe/Zurich',
        occurred_ms: Date.UTC(2026, 5, 1) + n,
        unit_id: n,
        unit_number: '東京'.repeat(n % 50),
        details: '🚪'.repeat(n % 300),
      });
    const rows = Array.from({ length: 400 }, (_, n) => row(n));
    const writer = new CombinedItemsWriter(1);
    for (const r of rows) writer.add(r);
    assert.equal(writer.count, 400);
    assert.equal(writer.answer(null).toString('utf8'), JSON.stringify(rows.map(toCombinedEvent)));
  });

  it('selects every column the item reads', () => {
    for (const column of [
      'id',
      'facility_id',
      'facility_name',
      'time_zone',
      'event_type',
      'occurred_ms',
      'device_id',
      'device_name',
      'unit_id',
      'unit_number',
      'visitor_id',
      'visitor_name',
      'details',
    ])
      assert.match(COMBINED_COLUMNS, new RegExp(`\\b${column}\\b`));
    assert.doesNotMatch(COMBINED_COLUMNS, /code_entered|data/);
  });
});
