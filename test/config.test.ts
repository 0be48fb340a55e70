import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { describeDatabaseUrl } from '../src/db/start-failures.ts';

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
    assert.deepEqual(config.imageFetchAllowHosts, []);
    assert.deepEqual(config.webhookAllowHosts, []);
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
    assert.deepEqual(config.imageFetchAllowHosts, ['127.0.0.1:9999', 'images.local']);
    assert.deepEqual(config.webhookAllowHosts, [], 'an image host is not opened to webhooks');
    assert.equal(config.logLevel, 'debug');
  });

  it('reads an allow-list per purpose; OUTBOUND_ALLOW_HOSTS serves both only when set alone', () => {
    const lists = (env: Record<string, string>) => {
      const config = loadConfig(env, '/x');
      return { images: config.imageFetchAllowHosts, webhooks: config.webhookAllowHosts };
    };
    assert.deepEqual(lists({ OUTBOUND_ALLOW_HOSTS: 'hooks.local:8443, Both.Local' }), {
      images: ['hooks.local:8443', 'both.local'],
      webhooks: ['hooks.local:8443', 'both.local'],
    });
    assert.deepEqual(lists({ IMAGE_FETCH_ALLOW_HOSTS: 'img.local', WEBHOOK_ALLOW_HOSTS: 'hook.local,hook.local' }), {
      images: ['img.local'],
      webhooks: ['hook.local'],
    });
    // Once a specific list is set, the specific lists govern: the shared one opens nothing more.
    assert.deepEqual(lists({ OUTBOUND_ALLOW_HOSTS: 'shared.local', IMAGE_FETCH_ALLOW_HOSTS: 'img.local' }), {
      images: ['img.local'],
      webhooks: [],
    });
    assert.deepEqual(lists({ OUTBOUND_ALLOW_HOSTS: 'shared.local', WEBHOOK_ALLOW_HOSTS: 'hook.local' }), {
      images: [],
      webhooks: ['hook.local'],
    });
    // Set but empty is unset.
    assert.deepEqual(lists({ OUTBOUND_ALLOW_HOSTS: 'shared.local', WEBHOOK_ALLOW_HOSTS: ' , ' }), {
      images: ['shared.local'],
      webhooks: ['shared.local'],
    });
    for (const name of ['OUTBOUND_ALLOW_HOSTS', 'IMAGE_FETCH_ALLOW_HOSTS', 'WEBHOOK_ALLOW_HOSTS'])
      assert.throws(() => loadConfig({ [name]: 'http://x/' }, '/x'), new RegExp(`^ConfigError: ${name}: `));
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

  // Every numeric setting, as config.ts reads them: a new one read otherwise would not be listed here.
  const numericSettings = [
    ...fs
      .readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8')
      .matchAll(/integer\(\s*env,\s*'([A-Z_]+)'/g),
  ].map((m) => m[1]!);

  it('reads every numeric setting through one rule', () => {
    assert.ok(numericSettings.length >= 20, String(numericSettings));
    assert.ok(numericSettings.includes('TOKEN_TTL_SECONDS') && numericSettings.includes('PORT'));
  });

  for (const name of numericSettings) {
    it(`says what ${name} must be: a whole number, its unit and range, and what was given`, () => {
      for (const given of ['-5', '1.5', 'ten', '99999999999']) {
        assert.throws(
          () => loadConfig({ [name]: given }),
          (error: unknown) => {
            const shown = /^[-\d.]+$/.test(given) ? given : `"${given}"`;
            assert.ok(error instanceof ConfigError && error.variable === name);
            assert.match(
              error.message,
              new RegExp(
                `^${name}: must be a whole number( of [a-zA-Z ]+)? from \\d+( \\([a-z ]+\\))? to \\d+ \\(got ${shown.replace('.', '\\.')}\\)$`,
              ),
            );
            return true;
          },
        );
      }
    });
  }

  it('says the unit where there is one, and what 0 means where it means something', () => {
    const said = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    assert.equal(
      said({ TOKEN_TTL_SECONDS: '-5' }),
      'TOKEN_TTL_SECONDS: must be a whole number of seconds from 60 to 86400 (got -5)',
    );
    assert.equal(
      said({ PORT: 'eighty' }),
      'PORT: must be a whole number from 0 (any free port) to 65535 (got "eighty")',
    );
    assert.equal(
      said({ DATABASE_LOCK_TIMEOUT_MS: '5s' }),
      'DATABASE_LOCK_TIMEOUT_MS: must be a whole number of milliseconds from 0 (no limit) to 3600000 (got "5s")',
    );
    assert.equal(
      said({ EMBEDDED_SHARED_BUFFERS_MB: '0' }),
      'EMBEDDED_SHARED_BUFFERS_MB: must be a whole number of MiB from 1 to 1024 (got 0)',
    );
    // The bounds themselves are accepted.
    assert.equal(loadConfig({ TOKEN_TTL_SECONDS: '60' }).tokenTtlSeconds, 60);
    assert.equal(loadConfig({ TOKEN_TTL_SECONDS: '86400' }).tokenTtlSeconds, 86400);
  });

  it('shows the form of a DATABASE_URL it cannot read, never the value (it may hold a password)', () => {
    for (const [given, start] of [
      ['postgres://gatehouse:pa#ss@db.internal/gh', 'DATABASE_URL: is not a valid URL: write it as '],
      [
        'mysql://gatehouse:pass@db.internal/gh',
        'DATABASE_URL: must start with postgres:// or postgresql:// (got mysql:): write it as ',
      ],
      [
        'db.internal:5432/gh',
        'DATABASE_URL: must start with postgres:// or postgresql:// (got db.internal:): write it as ',
      ],
    ] as const) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: given }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.equal(
            error.message,
            `${start}postgres://user:password@host:5432/database, with @ : / # ? % in the user or password percent-encoded (@ as %40)`,
          );
          assert.doesNotMatch(error.message, /pa#ss|pass@/);
          return true;
        },
      );
    }
  });
});
