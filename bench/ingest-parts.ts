// `npm run bench -- ingest-parts`: where an ingest batch's database time goes (issue 12 item 2).
//
// A PostgreSQL database with BENCH_EVENTS (200,000) events of one account of 4 facilities (500
// units and 1,000 visitors each, the type mix of bench/events.ts), loaded in SQL; then batches of
// 500 new events, each part of the ingest transaction timed on its own (median of ROUNDS rounds,
// each in a transaction that is rolled back, so the table does not grow between variants):
//
//   - the whole ingest statement (ids, then events; as src/events/ingest.ts) with EXPLAIN (ANALYZE,
//     BUFFERS) printed once;
//   - the idempotency insert alone, the event insert alone;
//   - the event insert without each read index in turn (dropped inside the rolled-back transaction);
//   - the name look-ups (units, visitors);
//   - the same rows into a lean table (one table, unique (facility, event id), the three read indexes).
//
// Settings: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; a database is created and
// dropped), BENCH_EVENTS (200000), BENCH_ROUNDS (15).
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { maskCode } from '../src/events/judge.ts';
import type { EntityId } from '../src/ids.ts';
import { createTenancy } from '../src/tenancy/index.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const FACILITIES = 4;
const UNITS = 500;
const BATCH = 500;
const DAY = 86_400_000;
const TYPES = [18, 18, 18, 18, 18, 18, 18, 15, 15, 33, 34, 33, 34, 10, 12, 11, 5, 37, 3, 1];
const UNIT_TYPES = new Set([18, 15, 33, 34]);
const VISITOR_TYPES = new Set([18, 15]);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Facility {
  id: EntityId;
  accountId: EntityId;
  units: EntityId[];
  visitors: EntityId[];
}

async function provision(url: string): Promise<Facility[]> {
  const config = loadConfig({ DATABASE_URL: url, DATA_DIR: '/tmp', LOG_LEVEL: 'warn' });
  const database = await openDatabase(config, { role: 'owner', command: 'bench' });
  try {
    await migrate(database.pool);
    const tenancy = createTenancy(database.db);
    const account = await tenancy.createAccount({ name: 'Parts account' });
    const facilities: Facility[] = [];
    for (let f = 0; f < FACILITIES; f++) {
      const facility = await tenancy.createFacility({
        accountId: account.id,
        name: `Site ${f + 1}`,
        timeZone: 'America/Denver',
      });
      const pool = database.pool;
      const units = (
        await pool.query<{ id: EntityId }>(
          `insert into units (facility_id, unit_number, status)
           select $1::int8, 'U-' || n, 'Rented' from generate_series(1, $2::int) n returning id`,
          [facility.id, UNITS],
        )
      ).rows.map((r) => Number(r.id));
      const timeGroup = (
        await pool.query('select id from time_groups where facility_id = $1 and is_default', [facility.id])
      ).rows[0].id;
      const profile = (
        await pool.query('select id from access_profiles where facility_id = $1 and is_default', [facility.id])
      ).rows[0].id;
      const visitors = (
        await pool.query<{ id: EntityId }>(
          `insert into visitors (facility_id, unit_id, first_name, last_name, is_tenant, time_group_id, access_profile_id,
                                 access_code_digest, access_code_sealed)
           select $1::int8, ($2::int8[])[1 + (n - 1) % array_length($2::int8[], 1)], 'Visitor', 'No. ' || n, true,
                  $3::int8, $4::int8, sha256(($1::int8 || ':' || n)::bytea), '\\x00'::bytea
             from generate_series(1, $5::int) as n returning id`,
          [facility.id, units, timeGroup, profile, 2 * UNITS],
        )
      ).rows.map((r) => Number(r.id));
      facilities.push({ id: facility.id, accountId: account.id, units, visitors });
    }
    return facilities;
  } finally {
    await database.close();
  }
}

/** Batch k of facility f: the columns of the ingest statement's unnest. */
function batch(facility: Facility, k: number, base: number, spanMs: number) {
  const cols = {
    ids: [] as string[],
    eventIds: [] as string[],
    types: [] as number[],
    occurred: [] as string[],
    deviceIds: [] as string[],
    deviceNames: [] as string[],
    unitIds: [] as (number | null)[],
    unitNumbers: [] as (string | null)[],
    visitorIds: [] as (number | null)[],
    visitorNames: [] as (string | null)[],
    codes: [] as (string | null)[],
    details: [] as string[],
    data: [] as (string | null)[],
  };
  for (let j = 0; j < BATCH; j++) {
    const i = k * BATCH + j;
    const h = Math.imul(i + 1, 2654435761) >>> 0;
    const type = TYPES[h % TYPES.length]!;
    const unit = UNIT_TYPES.has(type) ? (h >>> 7) % UNITS : null;
    const visitor = VISITOR_TYPES.has(type) ? (h >>> 11) % (2 * UNITS) : null;
    cols.ids.push(crypto.randomUUID());
    cols.eventIds.push(`new-${k}-${j}`);
    cols.types.push(type);
    cols.occurred.push(new Date(base + Math.floor((j * spanMs) / BATCH)).toISOString());
    cols.deviceIds.push(`kp-${i % 7}`);
    cols.deviceNames.push(`Keypad ${i % 7}`);
    cols.unitIds.push(unit === null ? null : facility.units[unit]!);
    cols.unitNumbers.push(unit === null ? null : `U-${unit + 1}`);
    cols.visitorIds.push(visitor === null ? null : facility.visitors[visitor]!);
    cols.visitorNames.push(visitor === null ? null : `Visitor No. ${visitor + 1}`);
    cols.codes.push(type === 15 ? maskCode(String(100000 + i)) : null);
    cols.details.push(`Gate ${i % 7}: ${type === 18 ? 'access granted' : 'event'} #${i}`);
    cols.data.push(null);
  }
  return cols;
}

const BATCH_CTE = `
  with batch as (
    select * from unnest($1::uuid[], $2::text[], $3::int2[], $4::timestamptz[], $5::text[], $6::text[], $7::int8[],
                         $8::text[], $9::int8[], $10::text[], $11::text[], $12::text[], $13::text[])
      with ordinality as b(id, event_id, event_type, occurred_at, device_id, device_name, unit_id, unit_number,
                           visitor_id, visitor_name, code_entered, details, data, ord)
  )`;
const EVENT_COLUMNS = `id, account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at,
  received_at, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name, code_entered, details, data`;
const EVENT_SELECT = `b.id, f.account_id, f.id, f.name, f.time_zone, b.event_id, b.event_type, b.occurred_at, now(),
  b.device_id, b.device_name, b.unit_id, b.unit_number, b.visitor_id, b.visitor_name, b.code_entered, b.details, b.data::jsonb`;

const WHOLE = `${BATCH_CTE},
  fresh as (
    insert into gateway_event_ids (facility_id, event_id, occurred_at)
    select $14::int8, event_id, occurred_at from batch on conflict do nothing returning event_id
  ),
  stored as (
    insert into gateway_events (${EVENT_COLUMNS})
    select ${EVENT_SELECT} from batch b join fresh using (event_id) cross join facilities f
     where f.id = $14::int8 and f.account_id = $15::int8 order by b.ord
    returning gwc_event_id, event_type
  )
  select count(*)::int as inserted from stored`;
/** As ingest.ts now: the names looked up by joins in the same statement (no unit_number / visitor_name parameters). */
const WHOLE_NAMES = `${BATCH_CTE},
  fresh as (
    insert into gateway_event_ids (facility_id, event_id, occurred_at)
    select $14::int8, event_id, occurred_at from batch on conflict do nothing returning event_id
  ),
  stored as (
    insert into gateway_events (${EVENT_COLUMNS})
    select ${EVENT_SELECT.replace('b.unit_number', '(select u.unit_number from units u where u.id = b.unit_id and u.facility_id = f.id)').replace('b.visitor_name', "(select concat_ws(' ', v.first_name, v.last_name) from visitors v where v.id = b.visitor_id and v.facility_id = f.id)")}
      from batch b join fresh using (event_id) cross join facilities f
     where f.id = $14::int8 and f.account_id = $15::int8 order by b.ord
    returning gwc_event_id, event_type
  )
  select count(*)::int as inserted from stored`;
/** The same, with a plain insert of the ids (no speculative insertion): fails on a duplicate id. */
const WHOLE_NAMES_PLAIN = WHOLE_NAMES.replace(
  'from batch on conflict do nothing returning event_id',
  'from batch returning event_id',
);
const JSON_CTE = `
  with batch as (
    select * from rows from (json_to_recordset($1::json)
      as (id uuid, event_id text, event_type int2, occurred_at timestamptz, device_id text, device_name text, unit_id int8,
           unit_number text, visitor_id int8, visitor_name text, code_entered text, details text, data jsonb)) with ordinality
      as b(id, event_id, event_type, occurred_at, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name,
           code_entered, details, data, ord)
    where $2::int is null or true
  )`;
const WHOLE_JSON = `${JSON_CTE},
  fresh as (
    insert into gateway_event_ids (facility_id, event_id, occurred_at)
    select $3::int8, event_id, occurred_at from batch on conflict do nothing returning event_id
  ),
  stored as (
    insert into gateway_events (${EVENT_COLUMNS})
    select ${EVENT_SELECT.replace('b.data::jsonb', 'b.data')} from batch b join fresh using (event_id) cross join facilities f
     where f.id = $3::int8 and f.account_id = $4::int8 order by b.ord
    returning gwc_event_id, event_type
  )
  select count(*)::int as inserted from stored`;
const IDS_ONLY = `${BATCH_CTE}
  insert into gateway_event_ids (facility_id, event_id, occurred_at)
  select $14::int8, event_id, occurred_at from batch where $15::int8 is not null on conflict do nothing returning event_id`;
const EVENTS_ONLY = `${BATCH_CTE}
  insert into gateway_events (${EVENT_COLUMNS})
  select ${EVENT_SELECT} from batch b cross join facilities f where f.id = $14::int8 and f.account_id = $15::int8 order by b.ord`;
const LEAN_ONLY = `${BATCH_CTE}
  insert into lean_events (${EVENT_COLUMNS})
  select ${EVENT_SELECT} from batch b cross join facilities f where f.id = $14::int8 and f.account_id = $15::int8 order by b.ord`;

export default async function run(): Promise<void> {
  const name = `gh_bench_parts_${process.pid}`;
  const adminClient = new pg.Client({ connectionString: PG_URL });
  await adminClient.connect();
  await adminClient.query(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const out: string[] = [];
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    const facilities = await provision(url.toString());
    await client.connect();
    const base = Date.now() - 179.5 * DAY;
    // The realistic table: EVENTS events over 179 days, ids in the side table, as ingest leaves them.
    await client.query(
      `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at,
                                   received_at, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name, details)
       select f.account_id, f.id, f.name, f.time_zone, 'bench-' || i, (array[18,18,18,18,18,18,18,15,15,33,34,33,34,10,12,11,5,37,3,1])[1 + i % 20],
              to_timestamp(($2::float8 + i::float8 * 179 * 86400000 / $3) / 1000), now(), 'kp-' || i % 7, 'Keypad ' || i % 7,
              case when i % 20 < 13 then u.ids[1 + i % 500] end, case when i % 20 < 13 then 'U-' || (1 + i % 500) end,
              case when i % 20 < 9 then v.ids[1 + i % 1000] end, case when i % 20 < 9 then 'Visitor No. ' || (1 + i % 1000) end,
              'Gate ' || i % 7 || ': event #' || i
         from generate_series(0, $3 - 1) i
         join facilities f on f.id = ($1::int8[])[1 + i % ${FACILITIES}]
         cross join lateral (select array_agg(id order by id) ids from units where facility_id = f.id) u
         cross join lateral (select array_agg(id order by id) ids from visitors where facility_id = f.id) v`,
      [facilities.map((f) => f.id), base, EVENTS],
    );
    await client.query(
      'insert into gateway_event_ids (facility_id, event_id, occurred_at) select facility_id, gwc_event_id, occurred_at from gateway_events',
    );
    // The lean table of issue 12: one table, a unique (facility, event id) index, three read indexes.
    await client.query(`create table lean_events (like gateway_events including defaults)`);
    await client.query(`insert into lean_events select * from gateway_events`);
    await client.query(`create unique index on lean_events (facility_id, gwc_event_id)`);
    await client.query(`create index on lean_events (account_id, occurred_at, seq)`);
    await client.query(`create index on lean_events (facility_id, occurred_at, seq)`);
    await client.query(`create index on lean_events (account_id, seq)`);
    await client.query('vacuum analyze');
    const indexes = (
      await client.query<{ name: string }>(
        `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
          where i.indrelid = 'gateway_events'::regclass order by 1`,
      )
    ).rows.map((r) => r.name);

    let k = 0;
    const params = (facility: Facility) => {
      const c = batch(facility, k++, Date.now() - DAY, DAY / 2);
      return [
        c.ids,
        c.eventIds,
        c.types,
        c.occurred,
        c.deviceIds,
        c.deviceNames,
        c.unitIds,
        c.unitNumbers,
        c.visitorIds,
        c.visitorNames,
        c.codes,
        c.details,
        c.data,
        facility.id,
        facility.accountId,
      ];
    };
    const asJson = (values: unknown[]) => {
      const c = values as [
        string[],
        string[],
        number[],
        string[],
        string[],
        string[],
        (number | null)[],
        (string | null)[],
        (number | null)[],
        (string | null)[],
        (string | null)[],
        string[],
        (string | null)[],
        number,
        number,
      ];
      return () => [
        JSON.stringify(
          c[0].map((id, j) => ({
            id,
            event_id: c[1][j],
            event_type: c[2][j],
            occurred_at: c[3][j],
            device_id: c[4][j],
            device_name: c[5][j],
            unit_id: c[6][j],
            unit_number: c[7][j],
            visitor_id: c[8][j],
            visitor_name: c[9][j],
            code_entered: c[10][j],
            details: c[11][j],
            data: c[12][j] === null ? null : JSON.parse(c[12][j]!),
          })),
        ),
        null,
        c[13],
        c[14],
      ];
    };
    const timed = async (label: string, sql: string, before?: string, json = false) => {
      const times: number[] = [];
      const wal: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const facility = facilities[round % FACILITIES]!;
        const raw = params(facility);
        const values = json ? asJson(raw) : () => raw;
        await client.query('begin');
        if (before) await client.query(before);
        const lsn0 = (await client.query('select pg_current_wal_insert_lsn() as l')).rows[0].l as string;
        const started = performance.now();
        await client.query(sql, values() as unknown[]);
        times.push(performance.now() - started);
        wal.push(
          Number(
            (await client.query('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) as d', [lsn0])).rows[0].d,
          ),
        );
        await client.query('rollback');
      }
      out.push(
        `| ${label} | ${median(times).toFixed(2)} | ${Math.min(...times).toFixed(2)} | ${Math.round(median(wal) / 1024)} |`,
      );
      return median(times);
    };
    out.push(
      `Ingest statement parts, PostgreSQL, ${EVENTS.toLocaleString('en-US')} events in the table, batches of ${BATCH}, median of ${ROUNDS} (each rolled back)`,
      '',
      '| part | median ms | best ms | WAL KiB (median; other sessions add to it) |',
      '|---|---|---|---|',
    );
    // Warm-up.
    await timed('warm-up (whole statement)', WHOLE);
    out.pop();
    await timed('whole statement (ids + events)', WHOLE);
    await timed(
      'whole statement, the batch as one JSON parameter (json_to_recordset), serialization included',
      WHOLE_JSON,
      undefined,
      true,
    );
    await timed('whole statement (ids + events), again', WHOLE);
    await timed('whole statement with the names joined in (ingest.ts now)', WHOLE_NAMES);
    await timed('the same, the ids inserted without on conflict (fails on a duplicate)', WHOLE_NAMES_PLAIN);
    await timed('whole statement with the names joined in, again', WHOLE_NAMES);
    await timed('the same without on conflict, again', WHOLE_NAMES_PLAIN);
    await timed('idempotency insert alone', IDS_ONLY);
    await timed('idempotency insert without its BRIN index', IDS_ONLY, 'drop index gateway_event_ids_occurred');
    await timed('idempotency insert without on conflict', IDS_ONLY.replace(' on conflict do nothing', ''));
    await timed('idempotency insert alone, again', IDS_ONLY);
    await timed('idempotency insert without on conflict, again', IDS_ONLY.replace(' on conflict do nothing', ''));
    await timed('event insert alone (all indexes)', EVENTS_ONLY);
    for (const index of indexes) await timed(`event insert without ${index}`, EVENTS_ONLY, `drop index ${index}`);
    await timed('event insert, no index at all', EVENTS_ONLY, indexes.map((i) => `drop index ${i};`).join(' '));
    await timed('lean table insert (unique + 3 read indexes)', LEAN_ONLY);
    const f0 = facilities[0]!;
    const unitIds = [...new Set(params(f0)[6] as (number | null)[])].filter((v) => v !== null);
    const visitorIds = [...new Set(params(f0)[8] as (number | null)[])].filter((v) => v !== null);
    const names: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      await client.query('select id, unit_number from units where facility_id = $1 and id = any($2::int8[])', [
        f0.id,
        unitIds,
      ]);
      await client.query(
        `select id, concat_ws(' ', first_name, last_name) as name from visitors where facility_id = $1 and id = any($2::int8[])`,
        [f0.id, visitorIds],
      );
      names.push(performance.now() - started);
    }
    out.push(
      `| name look-ups (${unitIds.length} units, ${visitorIds.length} visitors; two statements) | ${median(names).toFixed(2)} | ${Math.min(...names).toFixed(2)} | |`,
    );
    const advisory: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      await client.query('select pg_advisory_xact_lock(1, 2)');
      advisory.push(performance.now() - started);
    }
    out.push(
      `| one round trip (advisory lock statement) | ${median(advisory).toFixed(2)} | ${Math.min(...advisory).toFixed(2)} | |`,
    );

    await client.query('begin');
    const explain = await client.query(`explain (analyze, buffers, costs off) ${WHOLE}`, params(f0));
    await client.query('rollback');
    out.push('', '```', ...explain.rows.map((r) => r['QUERY PLAN'] as string), '```');
    await client.query('begin');
    const explainNames = await client.query(`explain (analyze, buffers, costs off) ${WHOLE_NAMES}`, params(f0));
    await client.query('rollback');
    out.push(
      '',
      'With the names joined in:',
      '',
      '```',
      ...explainNames.rows.map((r) => r['QUERY PLAN'] as string),
      '```',
    );
    const sizes = await client.query(
      `select relname, pg_size_pretty(pg_total_relation_size(oid)) as size from pg_class
        where relname in ('gateway_event_ids', 'gateway_event_ids_pkey', 'lean_events') order by 1`,
    );
    out.push('', sizes.rows.map((r) => `${r.relname}: ${r.size}`).join(', '));
  } finally {
    await client.end().catch(() => {});
    await adminClient.query(`drop database if exists ${name} with (force)`);
    await adminClient.end();
  }
  console.log(out.join('\n'));
}
