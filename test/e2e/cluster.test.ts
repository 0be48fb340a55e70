// One process per core (WORKERS, src/cluster.ts) with the real server process. On PostgreSQL: two
// workers behind one port on a fresh database and data directory — connections are taken in turn,
// a token issued by one worker is accepted by the other (one signing key, made once), a long poll
// and a live stream held on one worker wake for what is written through the other (LISTEN/NOTIFY),
// a killed worker is replaced while the other serves, and SIGTERM stops them all with exit 0. On
// the embedded database: more than one worker is refused in one line, and `auto` is one process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { provisionThroughAdmin } from '../helpers/e2e.ts';
import { onPostgres } from '../helpers/harness.ts';
import { runCli, startServerProcess } from '../helpers/process.ts';
import { realServer } from '../helpers/server.ts';
import { event } from '../events/helpers.ts';
import { openStream } from '../events/sse-client.ts';

describe('WORKERS, read by the configuration', () => {
  it('auto is one per core on PostgreSQL and 1 on the embedded database; more than 1 needs PostgreSQL', () => {
    const postgres = { DATABASE_URL: 'postgres://gatehouse@db.internal:5432/gatehouse' };
    assert.equal(loadConfig({}).workers, 1);
    assert.equal(loadConfig({ ...postgres, WORKERS: 'auto' }).workers, os.availableParallelism());
    assert.equal(loadConfig({ ...postgres, WORKERS: '3' }).workers, 3);
    assert.equal(loadConfig({ WORKERS: 'auto' }).workers, 1);
    assert.throws(() => loadConfig({ WORKERS: '2' }), {
      message:
        'WORKERS: 2 processes need DATABASE_URL (PostgreSQL): the embedded database is served by one process; set WORKERS=1 or DATABASE_URL',
    });
    for (const bad of ['0', '-1', 'many', '1.5', '1025'])
      assert.throws(() => loadConfig({ ...postgres, WORKERS: bad }), {
        name: 'ConfigError',
        message: /^WORKERS: must be auto \(one per core\) or a whole number of processes from 1 to 1024 \(got /,
      });
  });
});

if (!onPostgres) {
  describe('the embedded database', () => {
    it('refuses WORKERS=2 and --workers 3 in one line naming the setting, before making a data directory', async () => {
      const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-cluster-')), 'data');
      for (const [args, env] of [
        [['serve'], { WORKERS: '2' }],
        [['serve', '--workers', '3'], {}],
      ] as const) {
        const result = await runCli([...args], { DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0', ...env });
        assert.equal(result.code, 1, result.stderr);
        const processes = args.length > 1 ? 3 : 2;
        assert.equal(
          result.stderr,
          `gatehouse: WORKERS: ${processes} processes need DATABASE_URL (PostgreSQL): the embedded database is served by one process; set WORKERS=1 or DATABASE_URL\n`,
        );
        assert.equal(fs.existsSync(dataDir), false);
      }
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    });

    it('serves WORKERS=auto as one process', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-cluster-'));
      const server = await startServerProcess({ DATABASE_URL: '', DATA_DIR: dataDir, WORKERS: 'auto' });
      try {
        assert.equal((await fetch(`${server.url}/health`)).status, 200);
        const serving = JSON.parse(
          server
            .output()
            .split('\n')
            .find((l) => l.includes('gatehouse is serving'))!,
        );
        assert.equal(serving.workers, undefined);
        assert.doesNotMatch(server.output(), /starting workers|worker is serving/);
        assert.equal(await server.kill('SIGTERM'), 0);
      } finally {
        await server.kill('SIGKILL');
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
} else {
  describe('two workers on PostgreSQL', () => {
    const served = realServer({ WORKERS: '2', RATE_LIMIT_PER_MINUTE: '100000' });
    /** The primary's line: its pid, the workers' pids. */
    const primary = () =>
      JSON.parse(
        served.server
          .output()
          .split('\n')
          .find((l) => l.includes('"gatehouse is serving"'))!,
      ) as { pid: number; pids: number[]; workers: number; port: number };
    let seq = 0;

    interface Answer {
      status: number;
      body: any;
      /** Its X-Correlation-ID, which the worker's request log line carries. */
      reqId: string;
    }

    /** A request on `agent`'s connection, or on a connection of its own (agent false). */
    function call(
      agent: http.Agent | false,
      method: string,
      route: string,
      options: { token?: string; json?: unknown } = {},
    ): Promise<Answer> {
      const reqId = `cluster-${process.pid}-${++seq}`;
      const headers: Record<string, string> = { 'x-correlation-id': reqId };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      const payload = options.json === undefined ? undefined : JSON.stringify(options.json);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      return new Promise((resolve, reject) => {
        const request = http.request(`${served.url}${route}`, { method, agent, headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {}
            resolve({ status: response.statusCode ?? 0, body, reqId });
          });
        });
        request.once('error', reject);
        request.end(payload);
      });
    }

    /** The pid of the worker that answered the request: from its log line. */
    async function workerOf(reqId: string): Promise<number> {
      const needle = `"reqId":"${reqId}"`;
      const line = (await served.server.logged(needle))
        .split('\n')
        .find((l) => l.includes(needle) && l.includes('"statusCode"'));
      assert.ok(line, `no log line for ${reqId}`);
      return JSON.parse(line).pid;
    }

    /** A kept-alive connection to each worker named (connections are handed out in turn). */
    async function connectionTo(pids: number[]): Promise<Map<number, http.Agent>> {
      const agents = new Map<number, http.Agent>();
      for (let i = 0; i < 20 && agents.size < pids.length; i++) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const pid = await workerOf((await call(agent, 'GET', '/health')).reqId);
        if (pids.includes(pid) && !agents.has(pid)) agents.set(pid, agent);
        else agent.destroy();
      }
      assert.deepEqual([...agents.keys()].sort(), [...pids].sort(), 'a connection to each worker');
      return agents;
    }

    /** The workers that answer `count` requests, each on a new connection. */
    async function answering(count: number): Promise<number[]> {
      const answers = await Promise.all(Array.from({ length: count }, () => call(false, 'GET', '/health')));
      for (const answer of answers) assert.equal(answer.status, 200);
      return Promise.all(answers.map((a) => workerOf(a.reqId)));
    }

    /** The controller's token, issued by the worker `pid`. */
    async function gatewayTokenFrom(pid: number): Promise<string> {
      const { clientId, clientSecret } = tenant.gateway;
      const answer = await call(agents.get(pid)!, 'POST', '/auth/token', {
        json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.access_token;
    }

    let tenant: Awaited<ReturnType<typeof provisionThroughAdmin>>;
    let agents: Map<number, http.Agent>;
    let first: number;
    let second: number;
    /** A PMS token issued by the second worker. */
    let issuedBySecond: string;

    it('starts two workers that share the port and take new connections in turn, each line with its pid', async () => {
      const line = primary();
      assert.equal(line.workers, 2);
      assert.equal(line.pids.length, 2);
      assert.equal(new Set([line.pid, ...line.pids]).size, 3, 'a primary and two workers, each its own process');
      assert.equal(new URL(served.url).port, String(line.port));
      // The first worker served before the second was started: it migrated and made the keys alone.
      // (A worker's lines reach the pipe on their own: the primary's "serving" line may come first.)
      const output = await served.server.logged('"worker is serving"', 2);
      const [a, b] = line.pids as [number, number];
      const servedAt = (pid: number) => output.indexOf(`"pid":${pid},"worker"`);
      assert.ok(output.indexOf('"worker is serving"', servedAt(a)) < servedAt(b), output);
      // Every line of a worker carries its pid and worker id.
      const workerLines = output.split('\n').filter((l) => l.includes(`"pid":${a}`) || l.includes(`"pid":${b}`));
      assert.ok(workerLines.length >= 4, output);
      for (const l of workerLines) assert.match(l, /"pid":\d+,"worker":[12],/);
      // One signing key (and one gate-code key) in the fresh data directory, for both workers.
      const keys = fs.readdirSync(path.join(served.env.DATA_DIR!, 'keys')).sort();
      assert.equal(keys.filter((k) => k.endsWith('.json')).length, 1, keys.join(', '));
      assert.ok(keys.includes('access-codes.key'));

      const workers = await answering(8);
      assert.deepEqual([...new Set(workers)].sort(), [...line.pids].sort(), `answered by ${workers.join(', ')}`);
      agents = await connectionTo(line.pids);
      [first, second] = line.pids as [number, number];
    });

    it('a token issued by one worker is accepted by the other', async () => {
      tenant = await provisionThroughAdmin(served.url, served.database, 'Cluster');
      const { body: pmsApp } = await call(agents.get(second)!, 'POST', '/admin/applications', {
        token: tenant.operator,
        json: { name: 'Cluster second PMS' },
      });
      const credential = await call(agents.get(second)!, 'POST', '/admin/account-keys', {
        token: tenant.operator,
        json: { accountId: tenant.account.id, clientId: pmsApp.clientId },
      });
      assert.equal(credential.status, 201);
      const issued = await call(agents.get(second)!, 'POST', '/auth/token', {
        json: {
          grant_type: 'password',
          client_id: pmsApp.clientId,
          client_secret: pmsApp.clientSecret,
          username: credential.body.apiKey,
          password: credential.body.apiSecret,
        },
      });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal(await workerOf(issued.reqId), second);
      issuedBySecond = issued.body.access_token;
      for (const [pid, agent] of agents) {
        const whoami = await call(agent, 'GET', '/auth/whoami', { token: issuedBySecond });
        assert.equal(whoami.status, 200, `worker ${pid}: ${JSON.stringify(whoami.body)}`);
        assert.equal(await workerOf(whoami.reqId), pid);
      }
      // And the JWKS the workers publish is the same.
      const jwks = await Promise.all([...agents.values()].map((agent) => call(agent, 'GET', '/.well-known/jwks.json')));
      assert.deepEqual(jwks[0]!.body, jwks[1]!.body);
    });

    it('a command poll held on one worker wakes at once for a change made through the other', async () => {
      const token = await gatewayTokenFrom(second);
      const facilityId = tenant.facility.id;
      const pending = await call(agents.get(first)!, 'GET', '/gateway/v1/commands?after=0&limit=1000', { token });
      assert.equal(pending.status, 200);
      const after = pending.body.commands.at(-1)?.sequence ?? 0;

      const sent = Date.now();
      let answeredAt = 0;
      const poll = call(agents.get(first)!, 'GET', `/gateway/v1/commands?after=${after}&wait=30`, { token }).then(
        (answer) => {
          answeredAt = Date.now();
          return answer;
        },
      );
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(answeredAt, 0, 'the poll is held: nothing for it yet');
      const changedAt = Date.now();
      const unit = await call(agents.get(second)!, 'POST', `/facilities/${facilityId}/units`, {
        token: tenant.pms,
        json: { unitNumber: 'CLUSTER-1' },
      });
      assert.equal(unit.status, 201, JSON.stringify(unit.body));
      const answer = await poll;
      assert.equal(answer.status, 200);
      assert.deepEqual(
        answer.body.commands.map((c: { payload: { unit?: { unitNumber: string } } }) => c.payload.unit?.unitNumber),
        ['CLUSTER-1'],
      );
      // Woken by the other worker's notification, not by the end of its 30 s wait.
      assert.ok(answeredAt - changedAt < 5000, `answered ${answeredAt - changedAt} ms after the change`);
      assert.ok(answeredAt - sent >= 1500);
      assert.equal(await workerOf(answer.reqId), first);
      assert.equal(await workerOf(unit.reqId), second);
    });

    it('a live stream open on one worker wakes for events ingested through the other', async () => {
      const token = await gatewayTokenFrom(first);
      const stream = await openStream(`${served.url}/gatewayevents/accounts/${tenant.account.id}/stream`, tenant.pms);
      assert.equal(stream.status, 200);
      await stream.waitFor(() => stream.comments().includes('stream open'));
      // Batches through each worker in turn: whichever worker holds the stream, three of them are
      // stored by the other.
      const latencies = new Map<number, number[]>();
      const order = [first, second, first, second, first, second];
      for (const [i, pid] of order.entries()) {
        const batch = await call(agents.get(pid)!, 'POST', '/gateway/v1/events', {
          token,
          json: { events: [event({ details: `cluster-${i}` }, 0)] },
        });
        const answeredAt = performance.now();
        assert.equal(batch.status, 200, JSON.stringify(batch.body));
        await stream.waitForEvents(i + 1, 10_000);
        latencies.set(pid, [...(latencies.get(pid) ?? []), performance.now() - answeredAt]);
      }
      stream.close();
      assert.deepEqual(
        stream.events().map((e) => e.event.details),
        order.map((_, i) => `cluster-${i}`),
      );
      // The stream's safety poll runs every 5 s: wakes well under a second are the notification's
      // (the median of each worker's three within 500 ms, every one within half the poll interval).
      for (const [pid, ms] of latencies) {
        const sorted = [...ms].sort((a, b) => a - b);
        const shown = `stored by worker ${pid}: ${ms.map((v) => v.toFixed(0)).join(', ')} ms`;
        assert.equal(sorted.length, 3);
        assert.ok(sorted[1]! < 500, shown);
        assert.ok(sorted[2]! < 2500, shown);
      }
    });

    it('/metrics answers every worker’s figures summed, whichever worker takes the scrape', async () => {
      /** The requests to /health answered (every status), as a scrape through the worker `pid` says. */
      const healthChecks = async (pid: number) => {
        const scrape = await call(agents.get(pid)!, 'GET', '/metrics', { token: tenant.operator });
        assert.equal(scrape.status, 200, String(scrape.body));
        assert.equal(await workerOf(scrape.reqId), pid);
        const lines = String(scrape.body)
          .split('\n')
          .filter(
            (l) => l.startsWith('gatehouse_http_request_duration_seconds_count{') && l.includes('route="/health"'),
          );
        return lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
      };
      const before = await healthChecks(first);
      // Three answered by the first worker, two by the second: each scrape counts all five.
      for (const [pid, times] of [
        [first, 3],
        [second, 2],
      ] as const) {
        for (let i = 0; i < times; i++) assert.equal((await call(agents.get(pid)!, 'GET', '/health')).status, 200);
      }
      assert.equal(await healthChecks(second), before + 5);
      assert.equal(await healthChecks(first), before + 5);
    });

    it('a killed worker is replaced while the other serves; the replacement accepts the tokens issued before', async () => {
      process.kill(second, 'SIGKILL');
      const output = await served.server.logged('"a worker exited: replacing it"', 1, 10_000);
      const exitLine = JSON.parse(output.split('\n').find((l) => l.includes('a worker exited: replacing it'))!);
      assert.equal(exitLine.workerPid, second);
      assert.equal(exitLine.signal, 'SIGKILL');
      assert.equal(exitLine.replaceInMs, 1000);
      // Served meanwhile by the worker left.
      assert.deepEqual([...new Set(await answering(4))], [first]);

      const replaced = await served.server.logged('"worker replaced"', 1, 60_000);
      const { pids } = JSON.parse(replaced.split('\n').find((l) => l.includes('"worker replaced"'))!);
      assert.equal(pids.length, 2);
      assert.ok(pids.includes(first));
      const replacement = pids.find((pid: number) => pid !== first);
      assert.notEqual(replacement, second);
      agents.get(second)!.destroy();
      agents = await connectionTo(pids);
      const whoami = await call(agents.get(replacement)!, 'GET', '/auth/whoami', { token: issuedBySecond });
      assert.equal(whoami.status, 200);
      second = replacement;
    });

    it('SIGTERM to the primary stops every worker gracefully, and the primary exits 0', async () => {
      for (const agent of agents.values()) agent.destroy();
      const { pid } = primary();
      assert.equal(await served.server.kill('SIGTERM'), 0, served.server.output().slice(-3000));
      const lines = served.server
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"stopped"'));
      for (const worker of [first, second]) {
        assert.ok(
          lines.some((l) => l.includes(`"pid":${worker},`)),
          `worker ${worker} stopped gracefully`,
        );
        assert.throws(() => process.kill(worker, 0), { code: 'ESRCH' });
      }
      assert.ok(lines.some((l) => l.includes(`"pid":${pid},"cleanly":true`)));
    });
  });
}
