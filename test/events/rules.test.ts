// The pure core of the events face, without a database or HTTP: catalogue, ingest judging, time
// parsing and local rendering, the cursor codec, the filter → SQL builder, the CSV guard, partition
// arithmetic and the api-version reader.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { EVENT_TYPES, eventTypeInfo, isEventType } from '../../src/events/catalogue.ts';
import { stringify } from 'csv-stringify/sync';
import {
  CSV_HEADER,
  CSV_HEADER_LINE,
  csvLine,
  csvLines,
  csvRowOf,
  guardCell,
  type CsvRow,
} from '../../src/events/csv.ts';
import {
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
  queryFingerprint,
  type CursorState,
} from '../../src/events/cursor.ts';
import { combinedEventTypes, parseCombinedFilter, parseFilter, splitList } from '../../src/events/filters.ts';
import { judgeBatch, maskCode } from '../../src/events/judge.ts';
import { monthOf, monthsAhead, monthsOf, partitionsToDrop } from '../../src/events/partitions.ts';
import { eventsJson, pageJson } from '../../src/events/render.ts';
import {
  countQuery,
  filterIdentity,
  pageQuery,
  toGatewayEvent,
  type EventFilter,
  type EventRow,
} from '../../src/events/query.ts';
import { formatLocal, offsetMinutes, parseDateParam, parseInstant } from '../../src/events/time.ts';
import { AppError } from '../../src/errors.ts';
import { requestedApiVersion } from '../../src/http/versioning.ts';
import { eventFilter, eventRow } from '../helpers/events.ts';

describe('catalogue', () => {
  it('has the 30 types of the contract, each once, with a category', () => {
    assert.deepEqual(
      EVENT_TYPES.map((e) => e.eventType),
      [
        1, 3, 5, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 20, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
        39,
      ],
    );
    assert.equal(eventTypeInfo(39)?.name, 'Profile Transition Status');
    assert.equal(isEventType(2), false);
    assert.equal(isEventType('18'), false);
    for (const e of EVENT_TYPES) assert.ok(e.name && e.description && e.category);
    assert.throws(() => (EVENT_TYPES as unknown as { push(x: unknown): void }).push({}), TypeError);
  });
});

describe('time', () => {
  it('parses ISO 8601 date-times with an offset, strictly', () => {
    assert.equal(parseInstant('2026-03-01T09:15:00-07:00'), Date.UTC(2026, 2, 1, 16, 15));
    assert.equal(parseInstant('2026-03-01T16:15:00.123456Z'), Date.UTC(2026, 2, 1, 16, 15, 0, 123));
    assert.equal(parseInstant('2026-03-01T21:45+0530'), Date.UTC(2026, 2, 1, 16, 15));
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T09:15:00',
      '2026-03-01',
      'yesterday',
      '1772323200',
      '2026-03-01T09:15:00+25:00',
      '',
    ]) {
      assert.equal(parseInstant(bad), null, bad);
    }
    assert.equal(parseDateParam('2026-03-01'), Date.UTC(2026, 2, 1));
    assert.equal(parseDateParam('2026-13-01'), null);
  });

  it('renders local time with the offset of the day, across DST', () => {
    assert.equal(formatLocal(Date.UTC(2026, 0, 15, 16, 15, 2, 123), 'America/Denver'), '2026-01-15T09:15:02.123-07:00');
    assert.equal(formatLocal(Date.UTC(2026, 6, 15, 16, 15, 2, 123), 'America/Denver'), '2026-07-15T10:15:02.123-06:00');
    // The US spring-forward instant: 2026-03-08 09:00 UTC is 03:00 MDT; a millisecond before, 01:59:59.999 MST.
    assert.equal(formatLocal(Date.UTC(2026, 2, 8, 9), 'America/Denver'), '2026-03-08T03:00:00.000-06:00');
    assert.equal(formatLocal(Date.UTC(2026, 2, 8, 9) - 1, 'America/Denver'), '2026-03-08T01:59:59.999-07:00');
    assert.equal(formatLocal(Date.UTC(2026, 0, 1), 'Asia/Kathmandu'), '2026-01-01T05:45:00.000+05:45');
    assert.equal(formatLocal(Date.UTC(2026, 0, 1), 'UTC'), '2026-01-01T00:00:00.000+00:00');
    assert.equal(offsetMinutes(Date.UTC(2026, 0, 1), 'Not/AZone'), 0);
  });
});

describe('judging a batch', () => {
  const now = Date.UTC(2026, 10, 21, 12);
  const oldest = now - 180 * 86_400_000;
  const valid = (over: Record<string, unknown> = {}) => ({
    eventId: 'e1',
    eventType: 18,
    occurredAt: '2026-11-21T11:00:00Z',
    ...over,
  });

  it('masks codes: four asterisks and the last two characters of a code of four or more', () => {
    assert.equal(maskCode('123456'), '****56');
    assert.equal(maskCode('1234'), '****34');
    assert.equal(maskCode('123'), '****');
    assert.equal(maskCode('7'), '****');
  });

  it('accepts a valid event, normalized', () => {
    const j = judgeBatch([valid({ codeEntered: 98765, deviceId: 7, data: { a: 1 } })], now, oldest);
    assert.deepEqual(j.rejected, []);
    assert.deepEqual(j.accepted[0], {
      index: 0,
      eventId: 'e1',
      eventType: 18,
      occurredAt: Date.UTC(2026, 10, 21, 11),
      deviceId: '7',
      deviceName: null,
      unitId: null,
      visitorId: null,
      codeEntered: '****65',
      details: null,
      data: '{"a":1}',
      commandId: null,
      commandResult: null,
    });
  });

  it('keeps the first of a repeated eventId and counts the rest', () => {
    const j = judgeBatch([valid(), valid({ details: 'second' }), valid({ eventId: 'e2' })], now, oldest);
    assert.deepEqual([j.accepted.map((a) => a.index), j.duplicatesInBatch], [[0, 2], 1]);
  });

  it('moves a clock more than 5 minutes ahead to the time received, keeping the reported time', () => {
    const reported = '2026-11-21T13:00:00+00:00';
    const j = judgeBatch(
      [valid({ occurredAt: reported }), valid({ eventId: 'e2', occurredAt: '2026-11-21T12:04:59Z' })],
      now,
      oldest,
    );
    assert.equal(j.accepted[0]!.occurredAt, now);
    assert.deepEqual(JSON.parse(j.accepted[0]!.data!), { reportedOccurredAt: reported });
    assert.equal(j.accepted[1]!.occurredAt, Date.UTC(2026, 10, 21, 12, 4, 59));
    assert.deepEqual(
      j.warnings.map((w) => [w.index, w.code, w.path]),
      [[0, 'CLOCK_AHEAD', 'events[0].occurredAt']],
    );
  });

  it('rejects each malformed event with its field, and only it', () => {
    const cases: [unknown, string][] = [
      [valid({ eventType: 99 }), 'eventType'],
      [valid({ occurredAt: '2026-05-01T00:00:00Z' }), 'occurredAt'], // older than 180 days
      [valid({ eventId: { id: 1 } }), 'eventId'],
      [valid({ eventId: 'tab\there' }), 'eventId'],
      [valid({ unitId: '' }), 'unitId'],
      [valid({ visitorId: 'v'.repeat(101) }), 'visitorId'],
      [valid({ codeEntered: '1'.repeat(33) }), 'codeEntered'],
      [valid({ details: 'bell \u0007' }), 'details'],
      [valid({ data: 'text' }), 'data'],
      [valid({ data: JSON.parse(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`) }), 'data'],
      [valid({ data: { '\ud800': 1 } }), 'data'],
    ];
    const j = judgeBatch(
      [
        ...cases.map(([e], i) => ({
          ...(e as object),
          eventId: (e as { eventId: unknown }).eventId === 'e1' ? `c${i}` : (e as { eventId: unknown }).eventId,
        })),
        valid({ eventId: 'good' }),
      ],
      now,
      oldest,
    );
    assert.deepEqual(
      j.accepted.map((a) => a.eventId),
      ['good'],
    );
    assert.deepEqual(
      j.rejected.map((r) => r.path),
      cases.map(([, field], i) => `events[${i}].${field}`),
    );
    assert.equal(j.rejected[2]!.eventId, null);
  });

  it('accepts multi-line details and the commandId of a Command Received event', () => {
    const j = judgeBatch(
      [
        valid({ eventType: 3, details: 'line 1\r\n\tline 2', data: { commandId: 'c-1' } }),
        valid({ eventId: 'x', data: { commandId: 'c-2' } }),
      ],
      now,
      oldest,
    );
    assert.deepEqual(
      j.accepted.map((a) => [a.commandId, a.commandResult]),
      [
        ['c-1', { result: 'applied' }],
        [null, null],
      ],
    );
  });

  it('reads what an acknowledgement says of its command: applied, or failed with an optional reason (issue 28)', () => {
    const ack = (eventId: string, data: object) => valid({ eventId, eventType: 3, data: { commandId: 'c', ...data } });
    const j = judgeBatch(
      [
        ack('a', { result: 'applied', reason: 'ignored' }),
        ack('b', { result: 'failed', reason: 'Relay 2 stuck' }),
        ack('c', { result: 'failed', reason: '' }),
        ack('d', { result: 'failed', reason: 'r'.repeat(501) }),
        ack('e', { result: 'FAILED' }),
        ack('f', { result: 'failed', reason: ['x'] }),
      ],
      now,
      oldest,
    );
    assert.deepEqual(
      j.accepted.map((a) => [a.eventId, a.commandResult]),
      [
        ['a', { result: 'applied' }],
        ['b', { result: 'failed', reason: 'Relay 2 stuck' }],
        ['c', { result: 'failed', reason: null }],
      ],
    );
    assert.deepEqual(
      j.rejected.map((r) => [r.eventId, r.path]),
      [
        ['d', 'events[3].data.reason'],
        ['e', 'events[4].data.result'],
        ['f', 'events[5].data.reason'],
      ],
    );
  });
});

describe('the cursor', () => {
  const key = randomBytes(32);
  const fingerprint = queryFingerprint({ scope: 'a:1', sort: 'desc' });
  const state: CursorState = {
    fingerprint,
    lo: 10,
    hi: 12345678901,
    after: { occurredAt: Date.UTC(2026, 0, 1), seq: 9876 },
    pageNumber: 7,
    total: 4200,
  };

  it('round-trips and is opaque url-safe text', () => {
    const token = encodeCursor(state, key);
    assert.match(token, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(token, key, fingerprint), state);
    const start = encodeCursor({ ...state, after: null }, key);
    assert.equal(decodeCursor(start, key, fingerprint).after, null);
  });

  it('refuses a flipped bit anywhere, another key, another query, and garbage', () => {
    const token = encodeCursor(state, key);
    const raw = Buffer.from(token, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const copy = Buffer.from(raw);
      copy[i] = copy[i]! ^ 0x40;
      assert.throws(() => decodeCursor(copy.toString('base64url'), key, fingerprint), InvalidCursorError, `byte ${i}`);
    }
    assert.throws(() => decodeCursor(token, randomBytes(32), fingerprint), InvalidCursorError);
    assert.throws(() => decodeCursor(token, key, queryFingerprint({ scope: 'a:2', sort: 'desc' })), InvalidCursorError);
    for (const garbage of ['', 'abc', "' or 1=1", 'x'.repeat(600), `${token}A`])
      assert.throws(() => decodeCursor(garbage, key, fingerprint), InvalidCursorError);
  });

  it('refuses a well-signed cursor whose numbers JavaScript cannot hold exactly (they reach SQL)', () => {
    const beyond = 2 ** 63; // a bigint column's end, far past Number.MAX_SAFE_INTEGER
    for (const unsafe of [
      { hi: beyond },
      { lo: beyond, hi: beyond },
      { total: beyond },
      { after: { occurredAt: -beyond, seq: 1 } },
      { after: { occurredAt: 0, seq: beyond } },
    ]) {
      assert.throws(
        () => decodeCursor(encodeCursor({ ...state, ...unsafe }, key), key, fingerprint),
        InvalidCursorError,
        JSON.stringify(unsafe),
      );
    }
    const largest = { ...state, hi: Number.MAX_SAFE_INTEGER, total: Number.MAX_SAFE_INTEGER };
    assert.deepEqual(decodeCursor(encodeCursor(largest, key), key, fingerprint), largest);
  });
});

describe('filters and SQL', () => {
  const scope = { kind: 'account' as const, accountId: 11 };
  const noFilter = { facilityIds: null, eventTypes: null, unitIds: null, visitorIds: null, start: null, end: null };

  it('splits lists given comma-separated or repeated', () => {
    assert.deepEqual(splitList(['1,3', ' 5 ', '', '7,']), ['1', '3', '5', '7']);
    assert.equal(splitList(undefined), null);
  });

  /** The parameters a refused filter's 400 names, in order (`parse` must throw the AppError). */
  function refusedPaths(parse: () => unknown): string[] {
    try {
      parse();
    } catch (error) {
      assert.ok(error instanceof AppError, String(error));
      return error.errors.map((e) => e.path);
    }
    assert.fail('should throw');
  }

  it('collects every fault of a filter in one 400', () => {
    const refused = () =>
      parseFilter(scope, {
        eventTypes: ['99'],
        facilityIds: ['x'],
        unitIds: ['12', '0'],
        visitorIds: ['-1'],
        startDate: '2026-03-02',
        endDate: '2026-03-01',
      });
    assert.deepEqual(refusedPaths(refused), ['eventTypes', 'facilityIds', 'unitIds', 'visitorIds', 'endDate']);
    const ids = parseFilter(scope, { unitIds: ['7,3', '7'], visitorIds: [' 12 '] });
    assert.deepEqual([ids.unitIds, ids.visitorIds], [[7, 3], [12]]);
    const none = parseFilter(scope, { unitIds: [''], visitorIds: [] });
    assert.deepEqual([none.unitIds, none.visitorIds], [null, null]);
    const filter = parseFilter(
      { kind: 'facility', facilityId: 12, accountId: scope.accountId },
      { facilityIds: ['not checked on a facility route'] },
    );
    assert.equal(filter.facilityIds, null);
  });

  it('binds every value, never splices it', () => {
    // Ids are numbers once parsed; the builder binds whatever it is given all the same.
    const evilText = "x'); drop table gateway_events; --";
    const evil = evilText as unknown as number;
    const filter: EventFilter = {
      scope: { kind: 'account', accountId: evil },
      facilityIds: [evil],
      eventTypes: [18],
      unitIds: [evil],
      visitorIds: [evil, 4],
      start: 0,
      end: 1,
      sort: 'asc',
    };
    const page = pageQuery(
      filter,
      { cutoff: 0, lo: 5, hi: 9, after: { occurredAt: 0, seq: 3 } },
      { limit: 10, offset: 20 },
    );
    assert.equal(page.text.includes(evilText), false);
    assert.ok(page.values.includes(evil));
    assert.match(page.text, /\(occurred_at, seq\) > \(\$\d+::timestamptz, \$\d+::int8\)/);
    assert.match(page.text, /order by occurred_at asc, seq asc limit \$\d+ offset \$\d+$/);
    assert.equal((page.text.match(/\$\d+/g) ?? []).length, page.values.length);
    const count = countQuery({ ...filter, sort: 'desc' }, { cutoff: 0, lo: 0, hi: 9 });
    assert.doesNotMatch(count.text, /seq >/);
    const capped = countQuery(filter, { cutoff: 0, lo: 0, hi: 9 }, 10_000);
    assert.match(
      capped.text,
      /^select count\(\*\)::int8 as n from \(select from gateway_events where .* limit \$\d+\) capped$/,
    );
    assert.equal(capped.values.at(-1), 10_000);
    assert.equal((capped.text.match(/\$\d+/g) ?? []).length, capped.values.length);
  });

  it('filters units and visitors so that their partial indexes serve the query', () => {
    const one = pageQuery(
      { scope, ...noFilter, unitIds: [5], sort: 'desc' },
      { cutoff: 0, lo: 0, hi: 9 },
      { limit: 1 },
    );
    // One id: an equality (the index then returns rows in (occurred_at, seq) order).
    assert.match(one.text, /unit_id = \$\d+::int8/);
    assert.doesNotMatch(one.text.split(' where ')[1]!, /visitor_id/);
    assert.ok(one.values.includes(5));
    const many = pageQuery(
      { scope, ...noFilter, unitIds: [5, 6], visitorIds: [8, 9], sort: 'desc' },
      { cutoff: 0, lo: 0, hi: 9 },
      { limit: 1 },
    );
    // Several: = any(…) with the partial index's predicate spelled out (a generic plan cannot prove it).
    assert.match(many.text, /unit_id = any\(\$\d+::int8\[\]\) and unit_id is not null/);
    assert.match(many.text, /visitor_id = any\(\$\d+::int8\[\]\) and visitor_id is not null/);
    assert.ok(many.values.some((v) => Array.isArray(v) && v.join() === '5,6'));
  });

  it('maps the combined-events parameters onto the one filter', () => {
    const facility = { kind: 'facility' as const, facilityId: 3, accountId: 11 };
    const now = Date.UTC(2026, 2, 1, 12);
    assert.deepEqual(parseCombinedFilter(facility, {}, now), {
      scope: facility,
      ...noFilter,
      start: now - 12 * 3_600_000,
      end: now,
      sort: 'desc',
    });
    assert.deepEqual(
      parseCombinedFilter(facility, { gtq: ['18', '15,18'], uq: ' 7 ', vq: '', minDate: 100, maxDate: 200 }, now),
      { scope: facility, ...noFilter, eventTypes: [18, 15], unitIds: [7], start: 100_000, end: 200_000, sort: 'desc' },
    );
    // Only maxDate: the 12 hours before it; only minDate: up to now.
    assert.deepEqual(
      [
        parseCombinedFilter(facility, { maxDate: 86_400 }, now).start,
        parseCombinedFilter(facility, { minDate: 5 }, now).end,
      ],
      [86_400_000 - 12 * 3_600_000, now],
    );
    assert.equal(parseCombinedFilter(facility, { minDate: 9, maxDate: 9 }, now).start, 9000);
    assert.deepEqual(
      refusedPaths(() =>
        parseCombinedFilter(facility, { gtq: ['999'], uq: 'abc', vq: '0', minDate: 10, maxDate: 9 }, now),
      ),
      ['gtq', 'uq', 'vq', 'minDate', 'maxDate'],
    );
  });

  it('combined events: etq/itq types (device families this service lacks) select nothing; gtq alone decides when given', () => {
    // The rule itself: gtq's types win; only other families named → none; nothing named → every type.
    assert.deepEqual(combinedEventTypes([11, 12], true), [11, 12]);
    assert.deepEqual(combinedEventTypes([11, 12], false), [11, 12]);
    assert.deepEqual(combinedEventTypes(null, true), []);
    assert.equal(combinedEventTypes(null, false), null);
    // Through the parameters, as a SmartLock offline/online report or an edge-router report sends them.
    const facility = { kind: 'facility' as const, facilityId: 3, accountId: 11 };
    const types = (params: Parameters<typeof parseCombinedFilter>[1]) =>
      parseCombinedFilter(facility, params, Date.UTC(2026, 2, 1)).eventTypes;
    assert.deepEqual(types({ itq: ['11', '12'] }), []);
    assert.deepEqual(types({ etq: ['1'] }), []);
    assert.deepEqual(types({ etq: ['1,2'], itq: ['SmartLockOffline'] }), [], 'their values are not checked');
    assert.deepEqual(types({ gtq: [''], itq: ['11'] }), [], 'an empty gtq names no type');
    assert.deepEqual(types({ gtq: ['11'], itq: ['12'], etq: ['5'] }), [11]);
    // A list that names no type is no filter.
    assert.equal(types({ etq: [''], itq: [' , '] }), null);
    assert.equal(types({}), null);
  });

  it('never reads before the retention cutoff, whatever startDate says', () => {
    const filter: EventFilter = { scope, ...noFilter, start: 1000, sort: 'desc' };
    const query = pageQuery(filter, { cutoff: 5000, lo: 0, hi: 1 }, { limit: 1 });
    assert.ok(query.values.includes(new Date(5000).toISOString()));
    assert.equal(query.values.includes(new Date(1000).toISOString()), false);
  });

  it('identifies a query by its set and order, not by how lists were written', () => {
    const identity = (fields: Partial<EventFilter>) => filterIdentity(eventFilter(scope, { sort: 'desc', ...fields }));
    const lists = { facilityIds: [3, 12], eventTypes: [3, 18], unitIds: [9, 40], visitorIds: [7, 100] };
    const a = identity({ facilityIds: [12, 3], eventTypes: [18, 3], unitIds: [40, 9], visitorIds: [7, 100] });
    assert.deepEqual(
      a,
      identity({ facilityIds: [3, 12], eventTypes: [3, 18], unitIds: [9, 40], visitorIds: [100, 7] }),
    );
    assert.notDeepEqual(a, identity({ ...lists, sort: 'asc' }));
    // Units and visitors are part of the identity: a cursor of one set is no cursor of another.
    for (const other of [
      { unitIds: [9] },
      { unitIds: null },
      { visitorIds: [7] },
      { visitorIds: null },
      { unitIds: [7, 100], visitorIds: [9, 40] },
    ])
      assert.notDeepEqual(
        queryFingerprint(identity({ ...lists, ...other })),
        queryFingerprint(identity(lists)),
        JSON.stringify(other),
      );
  });

  it('renders a row as a GatewayEvent', () => {
    const row = eventRow({
      facility_id: 2,
      time_zone: 'America/Denver',
      event_type: 15,
      occurred_ms: Date.UTC(2026, 0, 15, 16),
      received_ms: Date.UTC(2026, 0, 15, 16, 0, 1),
      code_entered: '****12',
    });
    const item = toGatewayEvent(row);
    assert.equal(item.occurredAtLocal, '2026-01-15T09:00:00.000-07:00');
    assert.equal(item.receivedAt, '2026-01-15T16:00:01.000Z');
    assert.deepEqual(
      [item.eventTypeName, item.eventCategory, item.codeEntered],
      ['Invalid Password', 'Access Denied', '****12'],
    );
    assert.equal(
      csvLines([csvRowOf(row)]),
      `e,2026-01-15T16:00:00.000Z,2026-01-15T09:00:00.000-07:00,2026-01-15T16:00:01.000Z,1,2,F,15,Invalid Password,,,,,,,\r\n`,
    );
  });
});

describe('the JSON of pages', () => {
  it('is exactly the JSON of toGatewayEvent, for awkward rows too', () => {
    const base: EventRow = {
      seq: 1,
      id: '6a1f5c0e-8a3c-4c9b-9f5e-0d2f3b4a5c6d',
      account_id: 9_007_199_254_740_991,
      facility_id: 8,
      facility_name: 'Main "Street", Ünit ✓',
      time_zone: 'Asia/Kathmandu',
      event_type: 3,
      occurred_ms: Date.UTC(2026, 2, 8, 9, 0, 0, 7),
      received_ms: Date.UTC(2026, 2, 8, 9, 0, 1),
      device_id: 'kp\\1',
      device_name: 'Gate\n1\t"north"',
      unit_id: null,
      unit_number: 'A-101',
      visitor_id: 5,
      visitor_name: 'Zoë </script>',
      code_entered: '****42',
      details: '\u2028line\u2029separators and emoji 🚪',
      data: '{"commandId": "c-1", "nested": {"a": [1, 2.5, null, true]}, "text": "\\"quoted\\" \\u00e9"}',
    };
    const rows: EventRow[] = [
      base,
      { ...base, data: null, code_entered: null, details: null, event_type: 99, time_zone: 'UTC' },
    ];
    for (const row of rows)
      assert.deepEqual(JSON.parse(eventsJson([row]))[0], JSON.parse(JSON.stringify(toGatewayEvent(row))));
    const metadata = { pageSize: 2, pageNumber: 1, totalResults: 2, totalPages: 1, nextCursor: null };
    assert.deepEqual(JSON.parse(pageJson(metadata, rows)), {
      metadata,
      items: rows.map((row) => JSON.parse(JSON.stringify(toGatewayEvent(row)))),
    });
    assert.equal(eventsJson([]), '[]');
  });
});

describe('the CSV encoder', () => {
  it('writes what csv-stringify writes (RFC 4180), for every awkward text', () => {
    const texts = [
      'plain',
      'a,b',
      'say "hi"',
      'two\r\nlines',
      'lf\nonly',
      'cr\ronly',
      '',
      ' lead',
      'trail ',
      '"',
      ',',
      'Zürich ✓ 東京 🚪',
      '=1+1',
      '-5',
      '@x',
      '\tx',
      "'quoted'",
    ];
    for (const text of texts) {
      const row: CsvRow = ['id', 0, 5, 1, 2, text, 'UTC', 18, text, text, 7, text, 8, text, text, 1];
      const guarded = guardCell(text);
      const record = [
        'id',
        '1970-01-01T00:00:00.000Z',
        '1970-01-01T00:00:00.000+00:00',
        '1970-01-01T00:00:00.005Z',
        '1',
        '2',
        guarded,
        '18',
        'Access Granted',
        guarded,
        guarded,
        '7',
        guarded,
        '8',
        guarded,
        guarded,
      ];
      // csv-stringify leaves a lone LF or CR unquoted when lines end in CRLF; spreadsheets then break
      // the row there, so this encoder quotes any line break (as quoted_match asks of csv-stringify).
      assert.equal(
        csvLine(row),
        stringify([record], { record_delimiter: 'windows', quoted_match: /[\r\n]/ }),
        JSON.stringify(text),
      );
    }
    assert.equal(CSV_HEADER_LINE, stringify([[...CSV_HEADER]], { record_delimiter: 'windows' }));
  });

  it('neutralises cells a spreadsheet would run, and only those', () => {
    for (const cell of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) assert.equal(guardCell(cell), `'${cell}`);
    for (const cell of ['1', 'a=b', 'Gate 1', '', ' =1']) assert.equal(guardCell(cell), cell);
    assert.equal(guardCell(null), '');
  });
});

describe('partitions', () => {
  it('drops only partitions wholly older than the cutoff, and makes the months ahead', () => {
    const cutoff = Date.UTC(2026, 4, 15);
    const parts = [
      { name: 'gateway_events_p202604', upperBound: Date.UTC(2026, 4, 1) },
      { name: 'gateway_events_p202605', upperBound: Date.UTC(2026, 5, 1) },
    ];
    assert.deepEqual(partitionsToDrop(parts, cutoff), ['gateway_events_p202604']);
    assert.deepEqual(monthsAhead(Date.UTC(2026, 10, 21), Date.UTC(2026, 4, 25)), [
      '2026-10',
      '2026-11',
      '2026-12',
      '2027-01',
    ]);
    assert.equal(monthOf(Date.UTC(2026, 11, 31, 23, 59)), '2026-12');
  });

  it("a batch's months: every month once, across boundaries and out of order", () => {
    const at = (y: number, m: number, d: number, ms = 0) => Date.UTC(y, m, d) + ms;
    assert.deepEqual(
      monthsOf([
        at(2026, 11, 31, 86_399_999),
        at(2027, 0, 1),
        at(2026, 11, 1),
        at(2026, 10, 30, 86_399_999),
        at(2027, 0, 31),
        at(2026, 11, 15),
        at(2027, 1, 1),
      ]),
      ['2026-12', '2027-01', '2026-11', '2027-02'],
    );
    assert.deepEqual(monthsOf([]), []);
  });
});

describe('api-version', () => {
  const req = (url: string, header?: string | string[]) => ({
    url,
    headers: header === undefined ? {} : { 'api-version': header },
  });
  it('reads the header or the query, normalized; two different ones match nothing', () => {
    assert.equal(requestedApiVersion(req('/x')), undefined);
    assert.equal(requestedApiVersion(req('/x', '1')), '1.0');
    assert.equal(requestedApiVersion(req('/x?a=1&api-version=2.0')), '2.0');
    assert.equal(requestedApiVersion(req('/x?api-version=3.0', '3')), '3.0');
    assert.equal(requestedApiVersion(req('/x?api-version=3.0', '1.0')), '1.0|3.0');
    assert.equal(requestedApiVersion(req('/x?api-version=1.0&api-version=3.0')), '1.0,3.0');
  });
});
