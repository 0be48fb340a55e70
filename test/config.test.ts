import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  ConfigError,
  editDistance,
  loadConfig,
  misspeltSettings,
  misspeltSettingWarning,
  SETTINGS,
} from '../src/config.ts';
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
    [{ TRUST_PROXY: '10.0.0.300' }, 'TRUST_PROXY'],
    [{ LOG_FORMAT: 'text' }, 'LOG_FORMAT'],
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

  it('trusts no proxy by default, and reads TRUST_PROXY as addresses, CIDR ranges and named ranges', () => {
    assert.deepEqual(loadConfig({}).trustProxy, []);
    assert.deepEqual(loadConfig({ TRUST_PROXY: ' , ' }).trustProxy, []);
    assert.deepEqual(
      loadConfig({
        TRUST_PROXY: '10.0.0.7, 10.1.0.0/16,2001:DB8::/32 ,::1, Loopback,uniquelocal,10.0.0.7, ::ffff:192.0.2.1',
      }).trustProxy,
      ['10.0.0.7', '10.1.0.0/16', '2001:db8::/32', '::1', 'loopback', 'uniquelocal', '::ffff:192.0.2.1'],
    );
  });

  it('says which TRUST_PROXY entry it cannot read, and refuses to trust every address', () => {
    const refusal = (value: string) => {
      try {
        loadConfig({ TRUST_PROXY: value });
      } catch (error) {
        assert.ok(error instanceof ConfigError && error.variable === 'TRUST_PROXY', String(error));
        return error.message;
      }
      assert.fail(`TRUST_PROXY=${value} was accepted`);
    };
    const form = 'an IPv4 or IPv6 address, a CIDR range (10.0.0.0/8, fd00::/8) or loopback, linklocal, uniquelocal';
    // fastify's own parser would take `10` (0.0.0.10) and a host name would never match a peer.
    for (const entry of [
      '10.0.0.300',
      '10',
      'proxy.internal',
      '10.0.0.0/33',
      '10.0.0.0/8x',
      '::1/129',
      'fe80::1%eth0',
    ]) {
      assert.equal(refusal(`127.0.0.1, ${entry}`), `TRUST_PROXY: "${entry}" is not ${form}`);
    }
    for (const entry of ['*', 'true', '0.0.0.0/0', '::/0']) {
      assert.match(
        refusal(entry),
        new RegExp(`^TRUST_PROXY: "${entry.replace(/[*/]/g, '\\$&')}" would trust every address`),
      );
    }
  });

  it('reads LOG_FORMAT: auto by default, json or pretty', () => {
    assert.equal(loadConfig({}).logFormat, 'auto');
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
    assert.throws(() => loadConfig({ LOG_FORMAT: 'text' }), {
      message: 'LOG_FORMAT: must be one of auto, json, pretty, got "text"',
    });
  });

  it('reads exactly the settings SETTINGS lists: the one list misspelt names are compared with', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env, '/x');
    assert.deepEqual([...read].sort(), [...SETTINGS].sort());
  });
});

describe('misspelt settings', () => {
  it('names the setting each misspelling of the issue most likely meant', () => {
    const env = { PROT: '8081', DATABSE_URL: 'postgres://x', REDIS_ULR: 'redis://x', OUTBOUND_ALLOW_HOST: 'a.local' };
    assert.deepEqual(misspeltSettings(env).map(misspeltSettingWarning), [
      'DATABSE_URL: not a setting; did you mean DATABASE_URL?',
      'OUTBOUND_ALLOW_HOST: not a setting; did you mean OUTBOUND_ALLOW_HOSTS?',
      'PROT: not a setting; did you mean PORT?',
      'REDIS_ULR: not a setting; did you mean REDIS_URL?',
    ]);
  });

  it('finds two edits in a long name, one in a short one, a setting in the wrong case, and the nearest setting', () => {
    assert.deepEqual(
      misspeltSettings({
        TOKN_TTL_SECOND: '1', // two deletions
        LOGLEVEL: 'debug',
        HOTS: '::', // a transposition
        port: '8080',
        WEBHOK_TIMEOUT_MS: '1', // one edit from WEBHOOK_TIMEOUT_MS
      }),
      [
        { variable: 'HOTS', setting: 'HOST' },
        { variable: 'LOGLEVEL', setting: 'LOG_LEVEL' },
        { variable: 'TOKN_TTL_SECOND', setting: 'TOKEN_TTL_SECONDS' },
        { variable: 'WEBHOK_TIMEOUT_MS', setting: 'WEBHOOK_TIMEOUT_MS' },
        { variable: 'port', setting: 'PORT' },
      ],
    );
  });

  it('says nothing of the settings themselves, nor of what a shell, npm, a container or libpq sets', () => {
    const settings = Object.fromEntries(SETTINGS.map((name) => [name, 'x']));
    const usual =
      'HOME PATH PWD OLDPWD USER SHELL TERM LANG HOSTNAME LOGNAME SHLVL TMPDIR TMP TEMP EDITOR PAGER TZ NODE_ENV ' +
      'NODE_OPTIONS CI DEBUG COLORTERM MAIL LC_ALL XDG_RUNTIME_DIR SSH_AUTH_SOCK HTTP_PROXY HTTPS_PROXY NO_PROXY ' +
      'KUBERNETES_PORT KUBERNETES_SERVICE_HOST REDIS_PORT REDIS_HOST REDIS_SERVICE_HOST POSTGRES_PORT POSTGRES_HOST ' +
      'PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD DATABASE_HOST DATABASE_PORT DOCKER_HOST INVOCATION_ID ' +
      'JOURNAL_STREAM LISTEN_PID NOTIFY_SOCKET AWS_REGION AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY FORCE_COLOR NO_COLOR';
    const env = {
      ...settings,
      ...Object.fromEntries(usual.split(' ').map((name) => [name, 'x'])),
      npm_config_port: '1',
      npm_package_name: 'gatehouse',
      http_proxy: 'x',
    };
    assert.deepEqual(misspeltSettings(env), []);
  });

  it('measures the Damerau–Levenshtein distance (a transposition is one edit)', () => {
    assert.equal(editDistance('PROT', 'PORT'), 1);
    assert.equal(editDistance('HOME', 'HOST'), 2);
    assert.equal(editDistance('REDIS_ULR', 'REDIS_URL'), 1);
    assert.equal(editDistance('', 'PORT'), 4);
    assert.equal(editDistance('PORT', 'PORT'), 0);
    assert.equal(editDistance('KITTEN', 'SITTING'), 3);
    assert.equal(editDistance('CA', 'ABC'), 3); // the optimal-string-alignment form: no edit of a transposed pair
    assert.equal(editDistance('DATABASE_URL', 'WEBHOOK_SWEEP_MS', 2), 3, 'gives up past the limit');
  });
});
