// A new embedded data directory is a copy of the prepared template (src/db/template.ts): it must
// get the same schema as one initialised and migrated in place, and secrets of its own. Always on
// the embedded database (the template is the embedded database's), whichever the suite runs on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { dataDirLayout } from '../../src/db/data-dir.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { hasCluster, preparedTemplate } from '../../src/db/template.ts';
import { createLogger } from '../../src/logger.ts';
import { startServices, type Services } from '../../src/services.ts';
import { LogCapture } from '../helpers/harness.ts';

const workDir = fs.mkdtempSync(path.join(process.env.GATEHOUSE_TEST_WORKDIR ?? os.tmpdir(), 'tpl-'));
const started: Services[] = [];

async function start(name: string, fromTemplate: boolean): Promise<{ services: Services; dataDir: string }> {
  const dataDir = path.join(workDir, name);
  const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
  const logger = createLogger(config, new LogCapture());
  const database = openDatabase(config, { role: 'owner', command: 'test', fromTemplate });
  const services = await startServices(config, logger, { role: 'owner', command: 'test', runJobs: false, database });
  started.push(services);
  return { services, dataDir };
}

/** Everything the schema is made of, in the service's and the job queue's schemas. */
async function schemaOf(database: Database) {
  const q = async (sql: string) => (await database.pool.query(sql)).rows;
  return {
    columns: await q(`select table_schema, table_name, column_name, data_type, column_default, is_nullable
      from information_schema.columns where table_schema in ('public', 'pgboss')
      order by table_schema, table_name, column_name`),
    indexes: await q(`select schemaname, tablename, indexname, indexdef from pg_indexes
      where schemaname in ('public', 'pgboss') order by schemaname, tablename, indexname`),
    constraints: await q(`select n.nspname, c.conname, pg_get_constraintdef(c.oid) as def
      from pg_constraint c join pg_namespace n on n.oid = c.connamespace
      where n.nspname in ('public', 'pgboss') order by n.nspname, c.conname`),
    functions: await q(`select n.nspname, p.proname, pg_get_function_identity_arguments(p.oid) as args
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('public', 'pgboss') order by n.nspname, p.proname, args`),
    migrations: await q('select version, name, checksum from gatehouse_migrations order by version'),
    jobSchema: await q('select version from pgboss.version'),
  };
}

const systemId = async (database: Database) =>
  String((await database.pool.query('select system_identifier from pg_control_system()')).rows[0].system_identifier);

const keyFiles = (dataDir: string) => {
  const { keysDir } = dataDirLayout(dataDir);
  return fs.readdirSync(keysDir).map((file) => fs.readFileSync(path.join(keysDir, file), 'utf8'));
};

before(async () => {
  await preparedTemplate();
});
after(async () => {
  for (const services of started) await services.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the prepared template of the embedded database', () => {
  it('holds no secret: a copy has no cursor key before its first start', async () => {
    const dataDir = path.join(workDir, 'bare');
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
    const database = await openDatabase(config, { role: 'owner', command: 'test' });
    try {
      const { rows } = await database.pool.query('select count(*)::int as n from gateway_event_cursor_key');
      assert.equal(rows[0].n, 0);
      assert.equal(fs.existsSync(dataDirLayout(dataDir).keysDir), false);
    } finally {
      await database.close();
    }
  });

  it('gives two new data directories secrets of their own, and the schema of one migrated in place', async () => {
    const a = await start('a', true);
    const b = await start('b', true);
    const inPlace = await start('in-place', false);
    for (const { dataDir } of [a, b, inPlace]) assert.ok(hasCluster(dataDirLayout(dataDir).pgData));

    // Copies of one template share its cluster; the one initialised in place has its own.
    assert.equal(await systemId(a.services.database), await systemId(b.services.database));
    assert.notEqual(await systemId(a.services.database), await systemId(inPlace.services.database));

    const cursorKey = async (services: Services) =>
      (await services.database.pool.query('select secret from gateway_event_cursor_key')).rows.map((r) =>
        (r.secret as Buffer).toString('hex'),
      );
    const [keyA, keyB] = [await cursorKey(a.services), await cursorKey(b.services)];
    assert.equal(keyA.length, 1);
    assert.equal(keyB.length, 1);
    assert.notEqual(keyA[0], keyB[0]);

    // Token signing keys and the gate-code key: files of each data directory, none shared.
    const [filesA, filesB] = [keyFiles(a.dataDir), keyFiles(b.dataDir)];
    assert.ok(filesA.length >= 2, `keys of a: ${filesA.length}`);
    for (const file of filesA) assert.equal(filesB.includes(file), false);

    assert.deepEqual(await schemaOf(a.services.database), await schemaOf(inPlace.services.database));
  });
});
