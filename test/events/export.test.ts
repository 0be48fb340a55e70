// CSV export: columns, RFC 4180 quoting, formula neutralisation, filters, paged exports, a large
// export streamed in chunks, and a client that goes away mid-export stopping the database reads;
// unit and visitor filters across chunks and cursor pages.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CSV_HEADER } from '../../src/events/csv.ts';
import { EXPORT_CHUNK_ROWS } from '../../src/events/limits.ts';
import { FORMULA_CELLS, listenLocally, provisionReportingAccount, type ReportingAccount } from '../helpers/events.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { event, getJson } from './helpers.ts';

let t: TestApp;
let acme: ReportingAccount;

before(async () => {
  t = await startTestApp();
  acme = await provisionReportingAccount(t, { facilities: 2, timeZone: 'Europe/Zurich' });
});
after(() => t.close());

/** Parses RFC 4180 text (quoted fields, doubled quotes, CRLF records). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  assert.equal(field + record.join(''), '', 'the text ends with CRLF');
  return records;
}

describe('CSV export', () => {
  it('streams the columns of the contract, quoted, with formula cells neutralised', async () => {
    const payloads = [...FORMULA_CELLS, 'plain, with "quotes"\nand a line break', 'Zürich ✓ 東京'];
    const events = payloads.map((text, i) =>
      // deviceName admits no control characters (details admits tab and line breaks).
      event({
        eventType: 10,
        deviceName: text.replace(/[\t\r\n]/g, ''),
        details: text,
        deviceId: `dev-${i}`,
        occurredAt: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
      }),
    );
    await acme.ingest(0, events);

    const response = await t.app.inject({
      method: 'GET',
      url: `/gatewayevents/facilities/${acme.facilities[0]!.id}/export?eventTypes=10&sort=asc`,
      headers: { authorization: `Bearer ${acme.token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      String(response.headers['content-disposition']),
      new RegExp(`^attachment; filename="gateway-events-facility-${acme.facilities[0]!.id}-\\d{8}T\\d{6}Z\\.csv"$`),
    );
    const records = parseCsv(response.body);
    assert.deepEqual(records[0], [...CSV_HEADER]);
    const rows = records.slice(1);
    assert.equal(rows.length, payloads.length);
    const column = (name: string) => CSV_HEADER.indexOf(name as (typeof CSV_HEADER)[number]);
    // Ascending occurredAt: the last payload first.
    const guarded = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
    assert.deepEqual(
      rows.map((r) => r[column('details')]),
      [...payloads].reverse().map(guarded),
    );
    assert.deepEqual(
      rows.map((r) => r[column('deviceName')]),
      [...payloads].reverse().map((text) => guarded(text.replace(/[\t\r\n]/g, ''))),
    );
    for (const row of rows) {
      assert.equal(row.length, CSV_HEADER.length);
      assert.equal(row[column('eventTypeName')], 'Door Alarm');
      assert.equal(row[column('facilityName')], 'Facility 1');
      assert.equal(row[column('accountId')], String(acme.accountId));
      assert.match(row[column('occurredAtLocal')]!, /\.\d{3}\+0[12]:00$/);
      for (const cell of row) assert.equal(/^[=+\-@\t\r]/.test(cell), false, cell);
    }
  });

  it('exports one page when paged, with the next cursor in a header', async () => {
    const url = `/gatewayevents/accounts/${acme.accountId}/export?pageSize=3&eventTypes=10`;
    const first = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${acme.token}` } });
    assert.equal(first.statusCode, 200);
    assert.equal(parseCsv(first.body).length, 4);
    const cursor = String(first.headers['x-next-cursor']);
    assert.ok(cursor.length > 20);
    assert.equal(first.headers['x-total-count'], '8');
    const second = await t.app.inject({
      method: 'GET',
      url: `${url}&cursor=${cursor}`,
      headers: { authorization: `Bearer ${acme.token}` },
    });
    const firstIds = parseCsv(first.body)
      .slice(1)
      .map((r) => r[0]);
    const secondIds = parseCsv(second.body)
      .slice(1)
      .map((r) => r[0]);
    assert.equal(secondIds.length, 3);
    assert.equal(
      firstIds.some((id) => secondIds.includes(id)),
      false,
    );
    const tampered = await getJson(t, acme.token, `${url}&cursor=${cursor.slice(1)}`);
    assert.equal(tampered.status, 400);
    assert.equal(tampered.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(tampered.headers['content-disposition'], undefined, 'an error is not a download');
  });

  it('an export with no match is just the header', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/gatewayevents/facilities/${acme.facilities[1]!.id}/export`,
      headers: { authorization: `Bearer ${acme.token}` },
    });
    assert.equal(response.body, `${CSV_HEADER.join(',')}\r\n`);
  });

  it('refuses bad parameters before streaming anything', async () => {
    const response = await getJson(
      t,
      acme.token,
      `/gatewayevents/accounts/${acme.accountId}/export?startDate=tomorrow&pageSize=0`,
    );
    assert.equal(response.status, 400);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
  });

  it('names every bad parameter in one 400, schema and filter faults alike, in plain words (issue 16)', async () => {
    for (const url of [
      `/gatewayevents/accounts/${acme.accountId}/export?facilityIds=x&`,
      `/gatewayevents/facilities/${acme.facilities[0]!.id}/export?`,
    ]) {
      const response = await getJson(t, acme.token, `${url}sort=up&pageSize=abc&startDate=yesterday&eventTypes=2`);
      assert.equal(response.status, 400, url);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.deepEqual(
        Object.fromEntries(response.body.errors.map((e: any) => [e.path, e.message])),
        {
          sort: 'must be desc or asc',
          pageSize: 'must be a whole number from 1 to 10000',
          eventTypes: '"2" is not an event type (see GET /gatewayevents/types)',
          startDate:
            'must be an ISO 8601 date-time with an offset (2026-03-01T00:00:00Z) or a date (2026-03-01, midnight UTC)',
          ...(url.includes('accounts') ? { facilityIds: '"x" is not a facility id (a positive integer)' } : {}),
        },
        url,
      );
    }
  });
});

describe('a large export', () => {
  // More than two chunks: the one written and the one read ahead are not the whole export.
  const TOTAL = 3 * EXPORT_CHUNK_ROWS + 1_000;
  let listening: string;

  before(async () => {
    // Written straight to the table (the ingest route is not what is under test here).
    const facility = acme.facilities[1]!;
    await t.services.database.pool.query(
      `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at, received_at, device_name, details)
       select $1, $2, 'Facility 2', 'Europe/Zurich', 'bulk-' || n, 18, now() - (n || ' seconds')::interval, now(), 'Gate ' || (n % 7), repeat('d', 1000)
         from generate_series(1, ${TOTAL}) as n`,
      [acme.accountId, facility.id],
    );
    listening = await listenLocally(t);
  });

  const exportedRows = async () => {
    const text = await t.services.metrics.registry.getSingleMetricAsString('gatehouse_gateway_event_export_rows_total');
    return Number(/gatehouse_gateway_event_export_rows_total (\d+)/.exec(text)?.[1] ?? 0);
  };

  it('streams every row, in order, chunked', async () => {
    const response = await fetch(`${listening}/gatewayevents/facilities/${acme.facilities[1]!.id}/export?sort=asc`, {
      headers: { authorization: `Bearer ${acme.token}` },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('transfer-encoding'), 'chunked');
    const text = await response.text();
    const lines = text.split('\r\n');
    assert.equal(lines.length, TOTAL + 2); // header, rows, '' after the last CRLF
    const times = lines.slice(1, -1).map((line) => line.split(',')[1]!);
    assert.deepEqual(times, [...times].sort(), 'ascending occurredAt across every chunk');
    assert.equal(new Set(lines.slice(1, -1).map((line) => line.split(',')[0])).size, TOTAL, 'no row twice');
  });

  /**
   * Every export the store starts while `during` runs: its rows read so far, and `ended`, which
   * resolves when it stops — 'done' when it read to the end, 'stopped' when its reader went away.
   */
  async function watchExports(during: (exports: WatchedExport[]) => Promise<void>): Promise<WatchedExport[]> {
    const store = t.services.events.store;
    const original = store.exportText;
    const exports: WatchedExport[] = [];
    store.exportText = function (...args) {
      const chunks = original.apply(this, args);
      let end: (how: 'done' | 'stopped') => void = () => {};
      const watched: WatchedExport = { rows: 0, ended: new Promise((resolve) => (end = resolve)) };
      exports.push(watched);
      return (async function* () {
        let done = false;
        try {
          for await (const chunk of chunks) {
            watched.rows += chunk.rows;
            yield chunk;
          }
          done = true;
        } finally {
          end(done ? 'done' : 'stopped');
        }
      })();
    };
    try {
      await during(exports);
    } finally {
      store.exportText = original;
    }
    return exports;
  }

  it('answers HEAD with the headers and reads nothing', async () => {
    const before = await exportedRows();
    const url = `/gatewayevents/facilities/${acme.facilities[1]!.id}/export`;
    const headers = { authorization: `Bearer ${acme.token}` };
    const exports = await watchExports(async () => {
      const response = await t.app.inject({ method: 'HEAD', url, headers });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(response.body, '');
    });
    // An export starts its first read before the answer's headers go out: none was started.
    assert.equal(exports.length, 0, 'HEAD started an export');
    assert.equal(await exportedRows(), before);
    // The watch does see a GET's export (it would have seen the HEAD's).
    const seen = await watchExports(async () => {
      await t.app.inject({ method: 'GET', url: `${url}?pageSize=1`, headers });
      await t.app.inject({ method: 'GET', url: `${url}?sort=asc`, headers });
    });
    assert.equal(seen.length, 1);
    assert.equal(await seen[0]!.ended, 'done');
  });

  it('stops reading the database when the client goes away', async () => {
    const exports = await watchExports(async (exports) => {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(
          `${listening}/gatewayevents/facilities/${acme.facilities[1]!.id}/export`,
          { headers: { authorization: `Bearer ${acme.token}` } },
          (response) => {
            assert.equal(response.statusCode, 200);
            // Read one chunk, then stop reading (the server fills the socket and waits), and hang up.
            response.once('data', () => {
              response.pause();
              request.destroy();
              resolve();
            });
          },
        );
        request.on('error', (error) =>
          (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(error),
        );
      });
      assert.equal(exports.length, 1);
      // The signal, not a wait: the export's reads end once its client is gone, before the last row.
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        exports[0]!.ended,
        new Promise((resolve) => (timer = setTimeout(() => resolve('still reading after 20 s'), 20_000))),
      ]);
      clearTimeout(timer);
      assert.equal(ended, 'stopped');
    });
    assert.ok(
      exports[0]!.rows < TOTAL,
      `read ${exports[0]!.rows} of ${TOTAL} rows: the export ran on without its client`,
    );
    // Every connection the export took is back in the pool, idle (the read in flight ends quietly).
    const pool = t.services.database.pool;
    const settled = () => pool.idleCount === pool.totalCount && pool.waitingCount === 0;
    for (let i = 0; i < 50 && !settled(); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(pool.waitingCount, 0);
    assert.equal(
      pool.idleCount,
      pool.totalCount,
      `${pool.totalCount - pool.idleCount} connection(s) still checked out`,
    );
  });
});

interface WatchedExport {
  rows: number;
  ended: Promise<'done' | 'stopped'>;
}

describe('unit and visitor filters', () => {
  const ROWS = 12_000;
  const column = (name: string) => CSV_HEADER.indexOf(name as (typeof CSV_HEADER)[number]);
  const exportOf = async (query: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/gatewayevents/facilities/${acme.facilities[0]!.id}/export?${query}`,
      headers: { authorization: `Bearer ${acme.token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    return { rows: parseCsv(response.body).slice(1), headers: response.headers };
  };

  before(async () => {
    // Unit n % 4 and visitor n % 5 (ids 1001–1004, 2001–2005, as a controller reports them), written
    // straight to the table: more rows than one export chunk holds.
    await t.services.database.pool.query(
      `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at, received_at, unit_id, visitor_id, details)
       select $1, $2, 'Facility 1', 'Europe/Zurich', 'unit-' || n, 18, now() - (n || ' seconds')::interval, now(),
              1001 + n % 4, 2001 + n % 5, 'n' || n
         from generate_series(1, ${ROWS}) as n`,
      [acme.accountId, acme.facilities[0]!.id],
    );
  });

  it('streams only the listed units (more than one chunk) and visitors', async () => {
    const { rows } = await exportOf('unitIds=1002,1003&sort=asc');
    assert.equal(rows.length, ROWS / 2);
    assert.ok(rows.every((r) => r[column('unitId')] === '1002' || r[column('unitId')] === '1003'));
    assert.equal(new Set(rows.map((r) => r[0])).size, rows.length, 'no row twice across chunks');
    const times = rows.map((r) => r[column('occurredAt')]!);
    assert.deepEqual(times, [...times].sort());
    const both = await exportOf('unitIds=1002&visitorIds=2004');
    // n % 4 = 1 and n % 5 = 3: n % 20 = 13.
    assert.deepEqual(
      both.rows.map((r) => r[column('details')]).sort(),
      Array.from({ length: ROWS / 20 }, (_, k) => `n${13 + 20 * k}`).sort(),
    );
    const repeated = await exportOf('visitorIds=2001&visitorIds=2005');
    assert.equal(repeated.rows.length, (2 * ROWS) / 5);
    assert.ok(repeated.rows.every((r) => ['2001', '2005'].includes(r[column('visitorId')]!)));
  });

  it('pages by cursor with the filter, every row once, and refuses the cursor with other ids', async () => {
    const query = 'unitIds=1002&visitorIds=2004&pageSize=250';
    const whole = (await exportOf('unitIds=1002&visitorIds=2004')).rows.map((r) => r[0]);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await exportOf(`${query}${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.headers['x-total-count'], String(ROWS / 20));
      seen.push(...page.rows.map((r) => r[0]!));
      const next = page.headers['x-next-cursor'];
      if (pages === 0) {
        for (const other of [
          'unitIds=1003&visitorIds=2004',
          'unitIds=1002',
          'visitorIds=2004',
          'unitIds=1002,1003&visitorIds=2004',
        ]) {
          const refused = await getJson(
            t,
            acme.token,
            `/gatewayevents/facilities/${acme.facilities[0]!.id}/export?${other}&pageSize=250&cursor=${next}`,
          );
          assert.equal(refused.status, 400, other);
          assert.equal(refused.body.code, 'INVALID_CURSOR');
        }
      }
      cursor = next === undefined ? undefined : String(next);
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(seen, whole);
  });

  it('refuses ids that are not positive integers', async () => {
    for (const [query, path] of [
      ['unitIds=abc', 'unitIds'],
      ['visitorIds=1,0', 'visitorIds'],
    ]) {
      const response = await getJson(t, acme.token, `/gatewayevents/accounts/${acme.accountId}/export?${query}`);
      assert.equal(response.status, 400);
      assert.deepEqual(
        response.body.errors.map((e: any) => e.path),
        [path],
      );
      assert.equal(response.headers['content-disposition'], undefined);
    }
  });
});
