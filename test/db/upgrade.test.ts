// Upgrades from every tagged release: a database made and served by the release's own code
// (test/fixtures/releases/<tag>.sql, written by scripts/release-fixture.ts from the tag) is served by
// this version — its newer migrations applied in place, the release's credentials, tenant, gate code
// and events served — and migrations are append-only: every migration a release applied is, byte
// for byte, a migration of this version (a file edited after its release is refused by the database).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { readMigrations } from '../../src/db/migrate.ts';
import { dataDirLayout } from '../../src/db/data-dir.ts';
import { databaseLabel, onPostgres } from '../helpers/harness.ts';
import { cliJson, startServerProcess } from '../helpers/process.ts';

const releases = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/releases');
const tags = fs
  .readdirSync(releases)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length));

interface Release {
  release: string;
  keys: { JWT_PRIVATE_KEY: string; ACCESS_CODE_KEY: string };
  pmsApp: { clientId: string; clientSecret: string };
  accountKey: { apiKey: string; apiSecret: string };
  gateway: { clientId: string; clientSecret: string };
  account: { id: number };
  facility: { id: number; addressLine: string };
  unit: { id: number; unitNumber: string };
  visitor: { id: number; accessCode: string };
  events: { eventIds: string[] };
}

/** The migrations a release's database records having applied: from its dump's rows. */
function appliedBy(dump: string): { version: number; name: string; checksum: string }[] {
  return [
    ...dump.matchAll(/^INSERT INTO public\.gatehouse_migrations VALUES \((\d+), '(\w+)', '([0-9a-f]{64})'/gm),
  ].map(([, version, name, checksum]) => ({ version: Number(version), name: name!, checksum: checksum! }));
}

/** A database holding nothing but the release's dump, and the environment that serves it. */
async function databaseFrom(dump: string): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(process.env.GATEHOUSE_TEST_WORKDIR!, 'upgrade-'));
  if (!onPostgres) {
    // A cluster of its own (not the template: that one is migrated already), loaded in this process.
    const db = await PGlite.create(dataDirLayout(dataDir).pgData);
    await db.exec(dump);
    await db.close();
    return { env: { DATABASE_URL: '', DATA_DIR: dataDir }, drop: async () => fs.rmSync(dataDir, { recursive: true }) };
  }
  const name = `gh_t_${process.env.GATEHOUSE_TEST_RUN_ID}_up_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const loader = new pg.Client({ connectionString: url.toString() });
  await loader.connect();
  await loader.query(dump);
  await loader.end();
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

it('there is a release to upgrade from', () => {
  assert.ok(tags.includes('v0.1.0'), tags.join(', '));
});

for (const tag of tags) {
  describe(`a database made by ${tag} (${databaseLabel})`, () => {
    const release = JSON.parse(fs.readFileSync(path.join(releases, `${tag}.json`), 'utf8')) as Release;
    const dump = fs.readFileSync(path.join(releases, `${tag}.sql`), 'utf8');

    it('recorded only migrations that this version has unchanged (append-only)', () => {
      const applied = appliedBy(dump);
      assert.ok(applied.length >= 10, `the dump records its migrations: ${applied.length}`);
      const current = new Map(readMigrations().map((m) => [m.version, m]));
      for (const migration of applied) {
        const now = current.get(migration.version);
        assert.ok(now, `migration ${migration.version} of ${tag} is kept`);
        assert.equal(now.name, migration.name, `migration ${migration.version} keeps its name`);
        assert.equal(now.checksum, migration.checksum, `migration ${migration.version}_${migration.name} is unchanged`);
      }
    });

    describe('served by this version', () => {
      let database: Awaited<ReturnType<typeof databaseFrom>>;
      let server: Awaited<ReturnType<typeof startServerProcess>>;
      let env: Record<string, string>;
      after(async () => {
        await server?.kill('SIGTERM');
        await database?.drop();
      });

      it('applies the newer migrations in place and serves the release’s data', async () => {
        database = await databaseFrom(dump);
        env = { ...database.env, ...release.keys, REDIS_URL: '' };
        server = await startServerProcess(env, 120_000);
        const newer = readMigrations().filter((m) => !appliedBy(dump).some((a) => a.version === m.version));
        assert.ok(newer.length > 0 || tag !== 'v0.1.0', 'v0.1.0 lacks 0012');
        for (const migration of newer)
          assert.match(server.output(), new RegExp(`${String(migration.version).padStart(4, '0')}_${migration.name}`));

        const post = async (route: string, body: unknown, token?: string) => {
          const response = await fetch(`${server.url}${route}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
            body: JSON.stringify(body),
          });
          return { status: response.status, body: (await response.json()) as any };
        };
        const get = async (route: string, token: string) => {
          const response = await fetch(`${server.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
          return { status: response.status, body: (await response.json()) as any };
        };

        // The release's PMS credentials (hashed by it) give a token signed with the same key.
        const pmsToken = await post('/auth/token', {
          grant_type: 'password',
          client_id: release.pmsApp.clientId,
          client_secret: release.pmsApp.clientSecret,
          username: release.accountKey.apiKey,
          password: release.accountKey.apiSecret,
        });
        assert.equal(pmsToken.status, 200, JSON.stringify(pmsToken.body));
        const pms = pmsToken.body.access_token as string;
        const facility = await get(`/facilities/${release.facility.id}`, pms);
        assert.equal(facility.status, 200);
        assert.equal(facility.body.addressLine1, release.facility.addressLine, 'the old address is the first line');
        assert.equal(facility.body.addressLine2 ?? null, null);
        assert.deepEqual(
          facility.body.accessCodeRules,
          { characters: 'digits', minLength: 4, maxLength: 10 },
          'a facility made before gate-code rules has the default (0013)',
        );
        const units = await get(`/facilities/${release.facility.id}/units`, pms);
        assert.deepEqual(
          units.body.map((u: { unitNumber: string }) => u.unitNumber),
          [release.unit.unitNumber],
        );

        // The gate code the release sealed opens with the same ACCESS_CODE_KEY (a key that holds the codes scope).
        const codes = await cliJson(
          [
            ...['admin', 'account-key', 'create', '--account', String(release.account.id)],
            ...['--app', release.pmsApp.clientId, '--scopes', 'accesscontrol:read,accesscontrol:codes'],
          ],
          env,
        );
        const codesToken = await post('/auth/token', {
          grant_type: 'password',
          client_id: release.pmsApp.clientId,
          client_secret: release.pmsApp.clientSecret,
          username: codes.apiKey,
          password: codes.apiSecret,
        });
        assert.equal(codesToken.status, 200, JSON.stringify(codesToken.body));
        const visitor = await get(
          `/facilities/${release.facility.id}/visitors/${release.visitor.id}`,
          codesToken.body.access_token,
        );
        assert.equal(visitor.status, 200, JSON.stringify(visitor.body));
        assert.equal(visitor.body.code, release.visitor.accessCode);

        // The controller's credential still works; its earlier events are kept, and new ones are stored beside them.
        const controllerToken = await post('/auth/token', {
          grant_type: 'client_credentials',
          client_id: release.gateway.clientId,
          client_secret: release.gateway.clientSecret,
        });
        assert.equal(controllerToken.status, 200, JSON.stringify(controllerToken.body));
        const controller = controllerToken.body.access_token as string;
        const again = await post(
          '/gateway/v1/events',
          {
            events: [
              // One the release stored (a controller's retry) and a new one.
              {
                eventId: release.events.eventIds[0],
                eventType: 18,
                occurredAt: new Date().toISOString(),
                deviceId: 'kp-1',
                details: 'Access granted',
              },
              {
                eventId: `after-upgrade-${tag}`,
                eventType: 18,
                occurredAt: new Date().toISOString(),
                deviceId: 'kp-1',
                details: 'Access granted',
              },
            ],
          },
          controller,
        );
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(again.body.duplicates, 1, JSON.stringify(again.body));
        assert.equal(again.body.accepted, 1, JSON.stringify(again.body));

        // A change made now reaches the controller after the release's own commands.
        const added = await post(
          `/facilities/${release.facility.id}/units`,
          { unitNumber: `U-${tag.replace(/\W/g, '')}` },
          pms,
        );
        assert.equal(added.status, 201, JSON.stringify(added.body));
        const polled = await get('/gateway/v1/commands', controller);
        assert.equal(polled.status, 200, JSON.stringify(polled.body));
        const commands = JSON.stringify(polled.body);
        assert.match(commands, new RegExp(`U-${tag.replace(/\W/g, '')}`));
        assert.match(commands, new RegExp(release.unit.unitNumber));
      });
    });
  });
}
