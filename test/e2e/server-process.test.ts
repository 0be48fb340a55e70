// The real server process: start, serve, stop on SIGTERM; refusals that must be fast and clear;
// (What a SIGKILL may lose — nothing acknowledged — is tested in admin-cli.test.ts, on both databases.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { clientFor } from '../helpers/e2e.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { runCli, startServerProcess } from '../helpers/process.ts';
import { portRefusal } from '../../src/server.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

describe('the server process', () => {
  it('serves /health, /availability and /swagger, keeps /metrics for a token, and stops cleanly on SIGTERM', async () => {
    const server = await startServerProcess(database.env);
    const client = clientFor(server.url);
    assert.equal((await client.GET('/health')).response.status, 200);
    assert.equal((await client.GET('/availability')).response.status, 200);
    // The Swagger UI is a page, not an operation of the API description: plain fetch.
    assert.equal((await fetch(`${server.url}/swagger/`)).status, 200);
    // Scraping with an operator's token is tested in test/reliability/hostile-input.test.ts.
    assert.equal((await client.GET('/metrics', { parseAs: 'text' })).response.status, 401);
    // The serving line names the address a person opens (not an interface's), and what to open there.
    const { port } = new URL(server.url);
    const serving = JSON.parse(
      server
        .output()
        .split('\n')
        .find((l) => l.includes('gatehouse is serving'))!,
    );
    assert.equal(serving.url, `http://localhost:${port}`);
    assert.equal(
      serving.ready,
      `open http://localhost:${port}/swagger (API reference), http://localhost:${port}/console (support console)`,
    );
    // The API documents name it there too (PORT=0: the port it got), for Swagger UI and generated clients.
    const document = (await (await fetch(`${server.url}/swagger/v3.0.json`)).json()) as { servers: { url: string }[] };
    assert.equal(document.servers[0]!.url, `http://localhost:${port}`);
    assert.equal(await server.kill('SIGTERM'), 0);
    assert.match(server.output(), /"msg":"stopped"/);
    if (!onPostgres) assert.equal(fs.existsSync(path.join(database.env.DATA_DIR!, 'gatehouse.lock')), false);
    // The next start is clean.
    // PUBLIC_URL, when set, is where a person opens it.
    const again = await startServerProcess({ ...database.env, PUBLIC_URL: 'https://gatehouse.example.com' });
    assert.equal((await clientFor(again.url).GET('/availability')).response.status, 200);
    assert.match(await again.logged('gatehouse is serving'), /"url":"https:\/\/gatehouse.example.com"/);
    assert.equal(await again.kill('SIGINT'), 0);
  });

  it('stops promptly on SIGTERM even with a connection that never sent a request', async () => {
    const server = await startServerProcess(database.env);
    const { port } = new URL(server.url);
    const idle = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => idle.once('connect', resolve));
    idle.on('error', () => {});
    const started = Date.now();
    assert.equal(await server.kill('SIGTERM'), 0);
    // Without closing unused connections this waited for the 35 s shutdown limit and exited 1.
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    idle.destroy();
  });

  it('refuses an unwritable data directory within seconds, in one line', async () => {
    const file = path.join(database.env.DATA_DIR!, 'not-a-directory');
    fs.writeFileSync(file, '');
    const result = await runCli(['serve'], { ...database.env, DATA_DIR: path.join(file, 'data'), PORT: '0' });
    assert.equal(result.code, 1);
    // About 2 s on an idle machine (mostly the TypeScript loader); the bound only catches a hang.
    assert.ok(result.ms < 45_000, `took ${result.ms} ms`);
    assert.equal(
      result.stderr,
      `gatehouse: DATA_DIR ${file}/data cannot be created: ${file} is a file, not a directory: name a directory (it is created if missing)\n`,
    );
  });

  it('refuses a DATABASE_URL that points nowhere within seconds, in one line, without the password', async () => {
    const result = await runCli(['serve'], {
      ...database.env,
      DATABASE_URL: 'postgres://postgres:s3cret-pw@127.0.0.1:1/test',
      PORT: '0',
    });
    assert.equal(result.code, 1);
    // About 2 s on an idle machine (mostly the TypeScript loader); the bound only catches a hang.
    assert.ok(result.ms < 45_000, `took ${result.ms} ms`);
    assert.equal(
      result.stderr,
      'gatehouse: no PostgreSQL is answering at 127.0.0.1:1 (DATABASE_URL): is it running, and listening there? check the host and port in DATABASE_URL\n',
    );
  });

  // Each start failure is one line with the fix on stderr, exit 1, no stack, for `serve` and `migrate` alike.
  const refusedAtStart = async (env: Record<string, string>, line: string | RegExp) => {
    for (const command of ['serve', 'migrate']) {
      const result = await runCli([command], { ...database.env, PORT: '0', ...env });
      assert.equal(result.code, 1, `${command}: ${result.stderr}`);
      assert.equal(result.stdout, '', command);
      // `migrate`, once it reached a database, first says which (the command line's rule); then the one line.
      const stderr = result.stderr.replace(/^gatehouse: database: PostgreSQL at [^\n]*\n/, '');
      if (command === 'serve') assert.equal(stderr, result.stderr, 'serve prints no database line');
      if (typeof line === 'string') assert.equal(stderr, `gatehouse: ${line}\n`, command);
      else assert.match(stderr, line, command);
      assert.equal(stderr.split('\n').length, 2, `${command}: one line: ${result.stderr}`);
    }
  };

  it('refuses a DATA_DIR that is a file, saying so', async () => {
    const file = path.join(database.env.DATA_DIR!, 'a-file');
    fs.writeFileSync(file, 'not a directory');
    await refusedAtStart(
      { DATA_DIR: file },
      `DATA_DIR ${file} is a file, not a directory: name a directory (it is created if missing)`,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), 'not a directory');
  });

  it('refuses a numeric setting out of its range, with its unit, its range and what was given', async () => {
    await refusedAtStart(
      { TOKEN_TTL_SECONDS: '-5' },
      'TOKEN_TTL_SECONDS: must be a whole number of seconds from 60 to 86400 (got -5)',
    );
  });

  if (onPostgres) {
    const urlWith = (changes: { pathname?: string; username?: string }) => {
      const url = new URL(database.env.DATABASE_URL!);
      Object.assign(url, changes);
      return url.toString();
    };

    it('refuses a database that does not exist, with the createdb that makes it, before creating DATA_DIR', async () => {
      const dataDir = path.join(database.env.DATA_DIR!, 'never-made');
      const { hostname } = new URL(database.env.DATABASE_URL!);
      await refusedAtStart(
        { DATABASE_URL: urlWith({ pathname: '/gatehouse_no_such_db' }), DATA_DIR: dataDir },
        new RegExp(
          `^gatehouse: database "gatehouse_no_such_db" does not exist on ${hostname}:\\d+: create it \\(createdb -h ${hostname} .*gatehouse_no_such_db\\) or correct DATABASE_URL\n$`,
        ),
      );
      assert.equal(fs.existsSync(dataDir), false, 'the data directory is made only once the database answered');
    });

    it('refuses a role that may not create the tables, naming the privileges it needs', async () => {
      const role = `gh_t_${process.env.GATEHOUSE_TEST_RUN_ID}_norights`;
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`create role ${role} login`);
        const { pathname } = new URL(database.env.DATABASE_URL!);
        await refusedAtStart(
          { DATABASE_URL: urlWith({ username: role }) },
          new RegExp(
            `^gatehouse: user "${role}" may not set up database "${pathname.slice(1)}" on .* \\(permission denied for schema public\\): the role needs CONNECT and CREATE on the database and CREATE on its schema public; simplest, make it the database's owner \\(ALTER DATABASE ${pathname.slice(1)} OWNER TO ${role}\\) or correct DATABASE_URL\n$`,
          ),
        );
      } finally {
        await admin.query(`drop role if exists ${role}`);
        await admin.end();
      }
    });

    it('refuses a role that may create tables but not the job queue’s schema, naming the privileges it needs', async () => {
      // A new, empty database: the role may create in schema public (so the migrations pass) but
      // not schemas in the database, which the job queue (pg-boss) makes at its start.
      const name = `gh_t_${process.env.GATEHOUSE_TEST_RUN_ID}_noschema`;
      const role = `${name}_role`;
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`create role ${role} login`);
        await admin.query(`create database ${name}`);
        const inside = new pg.Client({ connectionString: urlWith({ pathname: `/${name}` }) });
        await inside.connect();
        await inside.query(`grant create on schema public to ${role}`);
        await inside.end();
        await refusedAtStart(
          { DATABASE_URL: urlWith({ pathname: `/${name}`, username: role }) },
          new RegExp(
            `^gatehouse: user "${role}" may not set up database "${name}" on .* \\(permission denied for database ${name}\\): the role needs CONNECT and CREATE on the database`,
          ),
        );
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.query(`drop role if exists ${role}`);
        await admin.end();
      }
    });
  }

  describe('a port it cannot listen on', () => {
    let blocker: net.Server;
    let taken: number;
    before(async () => {
      blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      taken = (blocker.address() as net.AddressInfo).port;
    });
    after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

    /** `serve` with this environment on a data directory that does not exist yet. */
    const serveOnNewDataDir = async (env: Record<string, string>) => {
      const dataDir = path.join(fs.mkdtempSync(path.join(database.env.DATA_DIR!, 'port-')), 'new');
      const result = await runCli(['serve'], { ...database.env, DATA_DIR: dataDir, HOST: '127.0.0.1', ...env }, 30_000);
      assert.notEqual(result.code, 0);
      // About 2 s on an idle machine; it used to migrate the new data directory first.
      assert.ok(result.ms < 20_000, `took ${result.ms} ms`);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.equal(fs.existsSync(dataDir), false, 'the data directory is not created before the port is checked');
      return result.stderr;
    };

    it('refuses a port in use in one line with the fix, before creating the data directory', async () => {
      assert.equal(
        await serveOnNewDataDir({ PORT: String(taken) }),
        `gatehouse: port ${taken} is in use: set PORT (or PORT=0 for any free port)\n`,
      );
    });

    it('refuses a HOST that is not an address of this machine', async () => {
      // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address.
      assert.equal(
        await serveOnNewDataDir({ HOST: '192.0.2.1', PORT: '8080' }),
        'gatehouse: HOST 192.0.2.1 is not an address of this machine: set HOST (0.0.0.0 for all, 127.0.0.1 for this machine only)\n',
      );
    });

    it('names the fix for a privileged port (a unit test: this machine runs the suite as root, who may bind any port)', () => {
      const refusal = portRefusal(Object.assign(new Error('listen EACCES'), { code: 'EACCES' }), '0.0.0.0', 80);
      assert.match(String(refusal?.message), /^port 80 needs privileges .*set PORT to 1024 or above/);
      assert.equal(portRefusal(new Error('something else'), '0.0.0.0', 80), null);
    });
  });

  it('names a bad configuration variable in one line', async () => {
    const result = await runCli(['serve'], { ...database.env, PORT: 'eighty' });
    assert.notEqual(result.code, 0);
    assert.equal(
      result.stderr,
      'gatehouse: PORT: must be a whole number from 0 (any free port) to 65535 (got "eighty")\n',
    );
  });
});

if (!onPostgres) {
  describe('the embedded database under one owner', () => {
    it('refuses a second server on a data directory that a running server owns', async () => {
      const first = await startServerProcess(database.env);
      const second = await runCli(['serve'], { ...database.env, PORT: '0' });
      assert.notEqual(second.code, 0);
      assert.match(
        second.stderr,
        new RegExp(`^gatehouse: data directory .* is in use by process ${first.child.pid} \\(gatehouse serve`),
      );
      assert.equal(
        (await clientFor(first.url).GET('/availability')).response.status,
        200,
        'the first server is unharmed',
      );
      // Other commands use the running server's database through its socket.
      const migrate = await runCli(['migrate'], database.env);
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.match(JSON.parse(migrate.stdout).location, /via the running server/);
      assert.equal(await first.kill(), 0);
    });
  });
}
