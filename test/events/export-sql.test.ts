// The CSV lines the database writes (the unpaged export) against the TypeScript rules in csv.ts:
// the formula guard and RFC 4180 quoting cell by cell, and whole exports byte for byte over local
// times across daylight-saving changes, odd offsets, sub-millisecond instants, unknown event types
// and tricky text, in both orders and across chunks — on a server by COPY (PostgreSQL's CSV writer,
// its line ends made CRLF by csvRowsFromCopy), on the embedded database by one text per chunk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CSV_HEADER_LINE, csvField, csvLines, csvRowsFromCopy, offsetSql, sqlCsvField } from '../../src/events/csv.ts';
import { exportCsv } from '../../src/events/export.ts';
import { EXPORT_CHUNK_ROWS } from '../../src/events/limits.ts';
import type { EventFilter } from '../../src/events/query.ts';
import { eventFilter, FORMULA_CELLS } from '../helpers/events.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';

let t: TestApp;
let acme: ProvisionedAccount;

const CELLS = [
  '',
  'plain',
  ...FORMULA_CELLS,
  '\nLF first',
  'a, b',
  'say "hi"',
  '"quoted"',
  'line\r\nbreak',
  'end\r',
  "'already",
  ' =space first',
  '=a,"b"\n',
  'Zürich ✓ 東京 🚪',
  '-',
  '==',
];

before(async () => {
  t = await startTestApp();
  acme = await provisionAccount(t, { facilities: 1, timeZone: 'Europe/Zurich' });
  // Straight into the table: every zone at instants stepping (with microseconds) across the autumn
  // changes of 2026, each row with tricky text cycled through its text columns.
  await t.services.database.pool.query(
    `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type,
        occurred_at, received_at, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name, details)
     select $1, $2, ($3::text[])[1 + (n + 3) % $4], tz, 'sql-' || n || '-' || tz, ($5::int2[])[1 + n % 5], at,
            at + interval '1.0004995 seconds',
            case when n % 3 = 0 then null else ($3::text[])[1 + n % $4] end,
            case when n % 4 = 0 then null else ($3::text[])[1 + (n + 1) % $4] end,
            case when n % 2 = 0 then null else 1000 + n % 9 end,
            case when n % 2 = 0 then null else ($3::text[])[1 + (n + 2) % $4] end,
            case when n % 5 = 0 then null else 2000 + n % 7 end,
            ($3::text[])[1 + (n + 5) % $4],
            case when n % 6 = 0 then null else ($3::text[])[1 + (n + 7) % $4] end
       from unnest(array['UTC', 'Europe/Zurich', 'America/Denver', 'America/St_Johns', 'Asia/Kathmandu',
                         'Australia/Lord_Howe', 'Pacific/Chatham']) as tz,
            lateral (select row_number() over () as n, at
                       from generate_series(timestamptz '2026-09-26 00:00:00.000500Z', timestamptz '2026-11-02 00:00Z',
                                            interval '53 minutes 7.1234567 seconds') as at) s`,
    [acme.accountId, acme.facilities[0]!.id, CELLS, CELLS.length, [18, 10, 5, 99, 33]],
  );
});
after(() => t.close());

describe('CSV lines written by the database', () => {
  it('guards and quotes every cell as csvField does', async () => {
    const { rows } = await t.services.database.pool.query<{ out: string[] }>(
      `select array_agg(${sqlCsvField('c')} order by i) as out from unnest($1::text[]) with ordinality as u(c, i)`,
      [CELLS],
    );
    assert.deepEqual(rows[0]!.out, CELLS.map(csvField));
    const nulls = await t.services.database.pool.query<{ out: string }>(`select ${sqlCsvField('null::text')} as out`);
    assert.equal(nulls.rows[0]!.out, csvField(null));
  });

  it('writes every offset as ±hh:mm, quarter hours from the list and any other from its interval', async () => {
    const quarters = Array.from({ length: 113 }, (_, i) => (i - 56) * 15 * 60);
    const odd = [-(7 * 3600 + 59 * 60 + 56), 5 * 3600 + 53 * 60 + 28];
    const { rows } = await t.services.database.pool.query<{ out: string[] }>(
      `select array_agg(${offsetSql('make_interval(secs => s)')} order by i) as out from unnest($1::int4[]) with ordinality as u(s, i)`,
      [[...quarters, ...odd]],
    );
    const hhmm = (seconds: number) => {
      const minutes = Math.floor(Math.abs(seconds) / 60);
      return `${seconds < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    };
    assert.deepEqual(rows[0]!.out, [...quarters, ...odd].map(hhmm));
  });

  const filterOf = (sort: 'asc' | 'desc', extra: Partial<EventFilter> = {}) =>
    eventFilter(acme.accountId, { sort, ...extra });

  /** What the export sent before the database wrote the lines: rows rendered by csvLine. */
  async function renderedInNode(filter: EventFilter): Promise<string> {
    let text = CSV_HEADER_LINE;
    for await (const rows of t.services.events.store.exportChunks(filter, EXPORT_CHUNK_ROWS)) text += csvLines(rows);
    return text;
  }

  async function exported(filter: EventFilter): Promise<string> {
    const csv = await exportCsv(t.services.events.store, filter, {}, t.services.events.metrics.exportedRows);
    let text = '';
    for await (const chunk of csv.lines) text += chunk;
    return text;
  }

  for (const sort of ['asc', 'desc'] as const) {
    it(`exports byte for byte what csvLine renders (${sort})`, async () => {
      const expected = await renderedInNode(filterOf(sort));
      const lines = expected.split('\r\n').length;
      assert.ok(lines > 5000, `${lines} lines`);
      const actual = await exported(filterOf(sort));
      assert.equal(actual.length, expected.length);
      assert.ok(actual === expected, 'the two texts differ');
    });
  }

  it('exports byte for byte with filters', async () => {
    const filter = filterOf('desc', { unitIds: [1003, 1005], eventTypes: [18, 99], start: Date.parse('2026-10-20') });
    const expected = await renderedInNode(filter);
    assert.ok(expected.length > CSV_HEADER_LINE.length);
    assert.ok((await exported(filter)) === expected);
  });

  it('continues exactly after every chunk, hostile text and equal instants included (chunks of 7 and 97)', async () => {
    // Thirty events at one instant: the chunks end between rows of equal time, and only seq tells them apart.
    await t.services.database.pool.query(
      `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type,
          occurred_at, received_at, details)
       select $1, $2, 'Tie', 'America/Denver', 'tie-' || n, 18, timestamptz '2026-10-10 10:10:10.010Z', now(),
              ($3::text[])[1 + n % $4]
         from generate_series(1, 30) n`,
      [acme.accountId, acme.facilities[0]!.id, CELLS, CELLS.length],
    );
    for (const sort of ['asc', 'desc'] as const) {
      const filter = filterOf(sort, { start: Date.parse('2026-10-01'), end: Date.parse('2026-10-20') });
      const expected = await renderedInNode(filter);
      for (const chunkRows of [7, 97]) {
        let actual = CSV_HEADER_LINE;
        let serverChunks = 0;
        for await (const chunk of t.services.events.store.exportText(filter, chunkRows)) {
          if (Buffer.isBuffer(chunk.text)) serverChunks++;
          actual += chunk.text.toString();
        }
        assert.ok(actual === expected, `${sort}, chunks of ${chunkRows}: the texts differ`);
        // On a server every chunk came by COPY (as bytes); the embedded database sends text.
        assert.equal(serverChunks > 0, t.services.database.kind === 'postgres');
      }
    }
  });

  it('an export of no rows is the header only', async () => {
    const filter = filterOf('asc', { eventTypes: [1] });
    assert.equal(await exported(filter), CSV_HEADER_LINE);
  });
});

describe("COPY's CSV rows made the contract's (csvRowsFromCopy)", () => {
  const rows = (text: string) => csvRowsFromCopy(Buffer.from(text, 'utf8'));

  it('ends each row with CRLF and leaves a line break inside quotes as it is', () => {
    const copied = 'a,"x\ny",b\n"say ""hi""\n",2\nlast,"\r\n"\n';
    const { text, rows: count, lastRowStart } = rows(copied);
    assert.equal(text.toString(), 'a,"x\ny",b\r\n"say ""hi""\n",2\r\nlast,"\r\n"\r\n');
    assert.equal(count, 3);
    assert.equal(text.toString('utf8', lastRowStart), 'last,"\r\n"\r\n');
  });

  it('counts nothing in nothing, and refuses data that stops inside a row', () => {
    assert.deepEqual({ ...rows(''), text: rows('').text.length }, { text: 0, rows: 0, lastRowStart: 0 });
    assert.throws(() => rows('a,b\nc,"d\n'), /inside a row/);
    assert.throws(() => rows('a,b'), /inside a row/);
  });
});
