// What the sandbox tests share: the rows a sandbox leaves behind, in every table that names an account,
// a facility or a credential — the tables read from the schema, so a table added later is covered.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { EntityId } from '../../src/ids.ts';
import type { TestApp } from './harness.ts';

/** Every table with an account or facility column (or credential ids), from the schema: a table added later is covered. */
export async function sandboxRowsLeft(
  t: TestApp,
  ids: { account: EntityId; facilities: EntityId[]; credentials: string[] },
): Promise<Record<string, number>> {
  const db = t.services.database.db;
  const count = async (query: ReturnType<typeof sql<{ n: number }>>) => Number((await query.execute(db)).rows[0]!.n);
  const { rows: columns } = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select c.table_name, c.column_name, c.data_type from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
       and c.column_name in ('account_id', 'sandbox_of', 'facility_id', 'facility_ids', 'credential_id')
       and c.table_name <> 'deleted_credentials'`.execute(db);
  assert.ok(columns.length >= 25, `the schema's tables found (${columns.length})`);
  const left: Record<string, number> = {};
  for (const { table_name: table, column_name: column } of columns) {
    const where =
      column === 'facility_id'
        ? sql`${sql.ref(column)} = any(${ids.facilities}::int8[])`
        : column === 'facility_ids'
          ? sql`${sql.ref(column)} && ${ids.facilities}::int8[]`
          : column === 'credential_id'
            ? sql`${sql.ref(column)}::text = any(${ids.credentials}::text[])`
            : sql`${sql.ref(column)} = ${ids.account}::int8`;
    const n = await count(sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${where}`);
    if (n > 0) left[`${table}.${column}`] = n;
  }
  for (const [table, column, values] of [
    ['accounts', 'id', [ids.account]],
    ['facilities', 'id', ids.facilities],
  ] as const) {
    const n = await count(
      sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(table)} where ${sql.ref(column)} = any(${values}::int8[])`,
    );
    if (n > 0) left[`${table}.${column}`] = n;
  }
  return left;
}
