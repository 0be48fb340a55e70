import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrate, migrationsApplied, readMigrations } from '../../src/db/migrate.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('migrations', () => {
  it('the template database has every migration applied', async () => {
    assert.equal(await migrationsApplied(t.services.database.pool), true);
    const { rows } = await t.services.database.pool.query('select version from gatehouse_migrations order by version');
    assert.deepEqual(
      rows.map((r) => r.version),
      readMigrations().map((m) => m.version),
    );
  });

  it('applies new files once, in order, even when several instances migrate at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.writeFileSync(
      path.join(dir, '9001_test_counter.sql'),
      'create table test_counter (n int); insert into test_counter values (1);',
    );
    fs.writeFileSync(path.join(dir, '9002_test_counter_more.sql'), 'insert into test_counter values (2);');
    const files = [...readMigrations(), ...readMigrations(dir)];
    const results = await Promise.all([
      migrate(t.services.database.pool, files),
      migrate(t.services.database.pool, files),
      migrate(t.services.database.pool, files),
    ]);
    assert.deepEqual(results.flatMap((r) => r.applied).sort(), ['9001_test_counter', '9002_test_counter_more']);
    const { rows } = await t.services.database.pool.query('select n from test_counter order by n');
    assert.deepEqual(
      rows.map((r) => r.n),
      [1, 2],
    );
    fs.rmSync(dir, { recursive: true });
  });

  it('a failing migration is rolled back whole and reported by name', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.writeFileSync(
      path.join(dir, '9003_test_broken.sql'),
      'create table test_half (n int); select * from no_such_table;',
    );
    await assert.rejects(
      migrate(t.services.database.pool, [...readMigrations(), ...readMigrations(dir)]),
      /migration 9003_test_broken failed/,
    );
    const { rows } = await t.services.database.pool.query("select to_regclass('test_half') as t");
    assert.equal(rows[0].t, null);
    fs.rmSync(dir, { recursive: true });
  });

  it('reports an applied migration whose file changed', async () => {
    const changed = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'different' } : m));
    const result = await migrate(t.services.database.pool, changed);
    assert.deepEqual(result.changed, ['0001_foundation']);
  });
});
