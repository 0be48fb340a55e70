import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, describeDatabaseUrl, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, path.resolve('/srv/app/data'));
    assert.equal(config.databaseUrl, null);
    assert.equal(config.tokenTtlSeconds, 3600);
    assert.equal(config.eventRetentionDays, 180);
    assert.equal(config.auctionRecreateWaitMinutes, 15);
    assert.equal(config.blobStore, 'fs');
    assert.deepEqual(config.outboundAllowHosts, []);
  });

  it('reads every variable it is given', () => {
    const config = loadConfig(
      {
        PORT: '9090',
        DATA_DIR: '/var/lib/gatehouse',
        DATABASE_URL: 'postgres://u:p@db:5432/gh',
        TOKEN_TTL_SECONDS: '600',
        IMAGE_FETCH_ALLOW_HOSTS: '127.0.0.1:9999, Images.Local',
        LOG_LEVEL: 'debug',
      },
      '/x',
    );
    assert.equal(config.port, 9090);
    assert.equal(config.dataDir, '/var/lib/gatehouse');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/gh');
    assert.equal(config.tokenTtlSeconds, 600);
    assert.deepEqual(config.outboundAllowHosts, ['127.0.0.1:9999', 'images.local']);
    assert.equal(config.logLevel, 'debug');
  });

  it('reads one outbound allow-list: OUTBOUND_ALLOW_HOSTS, and IMAGE_FETCH_ALLOW_HOSTS as its older name', () => {
    assert.deepEqual(loadConfig({ OUTBOUND_ALLOW_HOSTS: 'hooks.local:8443' }, '/x').outboundAllowHosts, [
      'hooks.local:8443',
    ]);
    assert.deepEqual(
      loadConfig({ OUTBOUND_ALLOW_HOSTS: 'a.local, b.local', IMAGE_FETCH_ALLOW_HOSTS: 'b.local,c.local' }, '/x')
        .outboundAllowHosts,
      ['a.local', 'b.local', 'c.local'],
    );
    assert.throws(() => loadConfig({ OUTBOUND_ALLOW_HOSTS: 'http://x/' }, '/x'), /OUTBOUND_ALLOW_HOSTS/);
  });

  const bad: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BLOB_STORE: 's3' }, 'S3_BUCKET'],
    [{ TOKEN_TTL_SECONDS: '-5' }, 'TOKEN_TTL_SECONDS'],
    [{ IMAGE_FETCH_ALLOW_HOSTS: 'http://x/' }, 'IMAGE_FETCH_ALLOW_HOSTS'],
    [{ JWT_PRIVATE_KEY: 'secret' }, 'JWT_PRIVATE_KEY'],
    [{ CORS_ORIGINS: 'pms.example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://pms.example.com/' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://pms.example.com/app' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'ftp://pms.example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://*.example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://user:pw@pms.example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://pms.example.com:99999' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://pms.example.com http://localhost:3000' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: '*, https://pms.example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'null' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: ' , ' + ',' }, 'CORS_ORIGINS'],
    [{ SUPPORT_WEBHOOK_SECRET: 'whsec_not base64!' }, 'SUPPORT_WEBHOOK_SECRET'],
    [{ SUPPORT_WEBHOOK_SECRET: 'whsec_' }, 'SUPPORT_WEBHOOK_SECRET'],
    [{ SUPPORT_WEBHOOK_SECRET: 'whsec_c2hvcnQ=' }, 'SUPPORT_WEBHOOK_SECRET'],
    [{ SUPPORT_WEBHOOK_SECRET: 'hunter2-hunter2-hunter2' }, 'SUPPORT_WEBHOOK_SECRET'],
  ];
  for (const [env, variable] of bad) {
    it(`names ${variable} when it is invalid (${JSON.stringify(env)})`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === variable && error.message.startsWith(`${variable}: `),
      );
    });
  }

  it('reads SUPPORT_WEBHOOK_SECRET as the Standard Webhooks libraries take it, and never quotes a bad one', () => {
    assert.equal(loadConfig({}).supportWebhookSecret, null);
    const base64 = Buffer.alloc(24, 7).toString('base64');
    assert.equal(loadConfig({ SUPPORT_WEBHOOK_SECRET: `whsec_${base64}` }).supportWebhookSecret, `whsec_${base64}`);
    assert.equal(loadConfig({ SUPPORT_WEBHOOK_SECRET: ` ${base64} ` }).supportWebhookSecret, base64);
    const bad = 'whsec_almost-a-secret-but-not-base64';
    assert.throws(
      () => loadConfig({ SUPPORT_WEBHOOK_SECRET: bad }),
      (error: unknown) =>
        error instanceof ConfigError && /^SUPPORT_WEBHOOK_SECRET: /.test(error.message) && !error.message.includes(bad),
    );
  });

  it('reads CORS_ORIGINS: every origin by default, else the origins listed, as browsers write them', () => {
    assert.equal(loadConfig({}).corsOrigins, '*');
    assert.equal(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins, '*');
    assert.deepEqual(
      loadConfig({ CORS_ORIGINS: 'https://PMS.Example.com:443, http://localhost:3000,,http://[::1]:8080' }).corsOrigins,
      ['https://pms.example.com', 'http://localhost:3000', 'http://[::1]:8080'],
    );
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, https://a.example' }).corsOrigins, [
      'https://a.example',
    ]);
  });

  it('says in one line which CORS_ORIGINS entry is not an origin', () => {
    assert.throws(
      () => loadConfig({ CORS_ORIGINS: 'https://pms.example.com, pms2.example.com' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        !error.message.includes('\n') &&
        error.message.startsWith('CORS_ORIGINS: "pms2.example.com" is not an origin'),
    );
  });

  it('never shows a database password', () => {
    assert.equal(describeDatabaseUrl('postgres://user:hunter2@db.internal:6543/gh'), 'db.internal:6543/gh');
  });
});
