// Monthly partitions of gateway_events: created ahead of time by the maintenance job, on demand by
// ingest for a month that is missing, and dropped whole once older than the retention window.
import type pg from 'pg';

const MONTH_MS = 31 * 86_400_000;

/** "2026-03" for an instant (the UTC month its partition covers). */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** First instant of a "YYYY-MM" month (UTC). */
const monthStart = (month: string): number => Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1, 1);

/** Partitions whose whole range ends at or before the cutoff: they hold nothing still retained. */
export function partitionsToDrop(
  partitions: readonly { name: string; upperBound: number }[],
  cutoff: number,
): string[] {
  return partitions.filter((p) => p.upperBound <= cutoff).map((p) => p.name);
}

/**
 * The months made ahead of time: the last one, this one and the next two (older months within a
 * longer retention are made on demand by ingest, not as empty tables).
 */
export function monthsAhead(now: number, cutoff: number): string[] {
  const months: string[] = [];
  for (
    let t = monthStart(monthOf(Math.max(cutoff, now - MONTH_MS)));
    t <= now + 2 * MONTH_MS;
    t = Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth() + 1, 1)
  ) {
    months.push(monthOf(t));
  }
  return months;
}

/**
 * The partitions of gateway_events as this process knows them: the months known to have one (so that
 * ingest asks the database only for a month it has not seen), made on demand and ahead of time,
 * and dropped whole past the retention window. One per events face (built by createEvents).
 */
export class Partitions {
  private readonly known = new Set<string>();

  constructor(private readonly pool: pg.Pool) {}

  /** Makes sure the months' partitions exist (outside any transaction: DDL locks are brief). */
  async ensure(months: Iterable<string>): Promise<void> {
    for (const month of new Set(months)) {
      if (this.known.has(month)) continue;
      await this.pool.query('select gateway_events_ensure_partition($1::timestamptz)', [`${month}-01T00:00:00Z`]);
      this.known.add(month);
    }
  }

  /** A partition was dropped or never made behind this process's back: ask the database again. */
  forget(): void {
    this.known.clear();
  }

  /**
   * Creates the partitions of the coming months, drops those entirely older than the cutoff, and
   * forgets the controllers' event ids of events past it.
   */
  async maintain(now: number, retentionDays: number): Promise<MaintenanceResult> {
    const pool = this.pool;
    const cutoff = now - retentionDays * 86_400_000;
    const before = new Set((await listPartitions(pool)).map((p) => p.name));
    const created: string[] = [];
    for (const month of monthsAhead(now, cutoff)) {
      const { rows } = await pool.query<{ name: string }>(
        'select gateway_events_ensure_partition($1::timestamptz) as name',
        [`${month}-01T00:00:00Z`],
      );
      if (!before.has(rows[0]!.name)) created.push(rows[0]!.name);
      this.known.add(month);
    }
    const dropped: string[] = [];
    for (const name of partitionsToDrop(await listPartitions(pool), cutoff)) {
      if (!/^gateway_events_p\d{6}$/.test(name)) continue;
      const client = await pool.connect();
      try {
        // Never queue behind a long reader for long: the next run tries again.
        await client.query('begin');
        await client.query("set local lock_timeout = '5s'");
        await client.query(`drop table ${name}`);
        await client.query('commit');
        dropped.push(name);
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    }
    if (dropped.length > 0) this.forget();
    let idsDeleted = 0;
    // In slices, so that no transaction is long (the embedded database serializes them).
    for (;;) {
      const result = await pool.query(
        `delete from gateway_event_ids where ctid = any(array(select ctid from gateway_event_ids where occurred_at < $1::timestamptz limit 5000))`,
        [new Date(cutoff).toISOString()],
      );
      idsDeleted += result.rowCount ?? 0;
      if ((result.rowCount ?? 0) < 5000) break;
    }
    return { created, dropped, idsDeleted };
  }
}

/**
 * The distinct months of a batch's instants. A batch's events lie mostly in one month: an instant
 * inside the month just seen is skipped with two comparisons (formatting a date per event showed in
 * the ingest profile).
 */
export function monthsOf(instants: Iterable<number>): string[] {
  const months = new Set<string>();
  let from = 0;
  let to = -1;
  for (const ms of instants) {
    if (ms >= from && ms < to) continue;
    const month = monthOf(ms);
    months.add(month);
    from = monthStart(month);
    const d = new Date(from);
    to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return [...months];
}

interface PartitionRow {
  name: string;
  upper_ms: number;
}

/** The partitions and the end of their ranges. */
export async function listPartitions(pool: pg.Pool): Promise<{ name: string; upperBound: number }[]> {
  const { rows } = await pool.query<PartitionRow>(
    `select c.relname as name,
            (extract(epoch from (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz) * 1000)::int8 as upper_ms
       from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'gateway_events'::regclass`,
  );
  return rows.map((row) => ({ name: row.name, upperBound: Number(row.upper_ms) }));
}

export interface MaintenanceResult {
  created: string[];
  dropped: string[];
  idsDeleted: number;
}
