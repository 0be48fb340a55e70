// The reference deployment (deploy/, docs/OPERATIONS.md "Deploy"), run as written as far as it can be
// without systemd, on PostgreSQL and Redis: Debian's HAProxy with deploy/haproxy.cfg (its addresses set
// through the variables deploy/haproxy.defaults names), two instances started as gatehouse@.service
// starts them (its Environment= and the settings of deploy/gatehouse.env, keys written by
// deploy/new-secrets), and traffic through the balancer — two controllers long-polling their commands
// and reporting events (acknowledging each command), a PMS creating units (each a command), a live
// stream that reconnects with Last-Event-ID as an EventSource does. Every instance is restarted in turn
// as the chapter's procedure does (SIGTERM, wait for the exit, start, wait until HAProxy has it UP).
// Asserted: 0 failed requests (every answer as the contract says; a long poll answered empty at a
// drain is an answer), 0 lost events (every event acknowledged is readable, and the stream saw each
// exactly once across its reconnects), every command delivered and acknowledged, and HAProxy took each
// draining instance out before its drain delay ended.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clientFor, eventually, ok, provisionThroughAdmin } from '../helpers/e2e.ts';
import { parseEnvironmentFile, unitEnvironment, unitSection } from '../helpers/env-file.ts';
import { startHaproxy, type Haproxy } from '../helpers/haproxy.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { markdownSection, shellBlocks } from '../docs/markdown.ts';
import { event } from '../events/helpers.ts';
import { openStream, type SseStream } from '../events/sse-client.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const deploy = (file: string) => path.join(root, 'deploy', file);
const BACKEND = 'gatehouse';

describe('docs/OPERATIONS.md, "Deploy"', () => {
  it('installs the files this test runs, and restarts the instances HAProxy knows by the names it checks', () => {
    const chapter = markdownSection(fs.readFileSync(path.join(root, 'docs/OPERATIONS.md'), 'utf8'), 'Deploy');
    const steps = shellBlocks(chapter).join('\n');
    assert.match(steps, /^sudo install -m 600 deploy\/gatehouse\.env \/etc\/gatehouse\/gatehouse\.env$/m);
    assert.match(steps, /^sudo deploy\/new-secrets \/etc\/gatehouse\/gatehouse\.env$/m);
    assert.match(steps, /^sudo install -m 644 deploy\/gatehouse@\.service \/etc\/systemd\/system\/$/m);
    assert.match(steps, /^sudo install -m 644 deploy\/haproxy\.cfg \/etc\/haproxy\/haproxy\.cfg$/m);
    // The unit reads the file the chapter installs; HAProxy's defaults are the units the chapter starts.
    const unit = unitSection(fs.readFileSync(deploy('gatehouse@.service'), 'utf8'), 'Service');
    assert.deepEqual(unit.get('EnvironmentFile'), ['/etc/gatehouse/gatehouse.env']);
    assert.match(steps, /systemctl enable --now gatehouse@8081\n[\s\S]*systemctl enable --now gatehouse@8082/);
    const config = fs.readFileSync(deploy('haproxy.cfg'), 'utf8');
    const defaults = parseEnvironmentFile(fs.readFileSync(deploy('haproxy.defaults'), 'utf8'));
    // The rolling restart: `for i in 1 2`, unit gatehouse@808$i, HAProxy's server gatehouse$i.
    assert.match(steps, /^for i in 1 2; do\n {2}sudo systemctl restart gatehouse@808\$i\n/m);
    assert.match(steps, /grep -q "\^gatehouse,gatehouse\$i,\.\*,UP,"/);
    for (const i of [1, 2]) {
      assert.equal(defaults[`GATEHOUSE_INSTANCE_${i}`], `127.0.0.1:808${i}`);
      assert.ok(
        config.includes(`server gatehouse${i} "\${GATEHOUSE_INSTANCE_${i}-127.0.0.1:808${i}}"`),
        `haproxy.cfg's server gatehouse${i}`,
      );
    }
    // The numbers the chapter states are the files' own.
    const settings = parseEnvironmentFile(fs.readFileSync(deploy('gatehouse.env'), 'utf8'));
    const prose = chapter.replace(/\s+/g, ' ');
    assert.ok(prose.includes(`\`SHUTDOWN_DRAIN_DELAY_SECONDS\` (${settings.SHUTDOWN_DRAIN_DELAY_SECONDS} s)`));
    assert.ok(prose.includes(`\`SHUTDOWN_TIMEOUT_SECONDS\` (${settings.SHUTDOWN_TIMEOUT_SECONDS} s`));
    assert.ok(prose.includes(`\`TimeoutStopSec\` is ${unit.get('TimeoutStopSec')![0]!.replace('s', ' s')}`));
  });
});

if (onPostgres) {
  describe('the reference deployment: HAProxy and two instances, each restarted in turn under traffic', () => {
    let database: TestDatabase;
    let work: string;
    let haproxy: Haproxy;
    let base: string;
    /** Each instance: its server name in deploy/haproxy.cfg, its port, its process (the latest). */
    const instances: { name: string; port: number; server?: ServerProcess }[] = [];
    /** What gatehouse@.service gives an instance on `port`: the env file's settings, then the unit's own. */
    let instanceEnv: (port: number) => Record<string, string>;
    let drainDelayMs: number;

    before(async () => {
      database = await createTestDatabase();
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-deploy-'));

      // The environment file as the chapter makes it: deploy/gatehouse.env copied, its keys written by
      // deploy/new-secrets. Then what differs on this machine: the database, Redis, the data directory,
      // and the balancer's address.
      const envFile = path.join(work, 'gatehouse.env');
      fs.copyFileSync(deploy('gatehouse.env'), envFile);
      execFileSync(deploy('new-secrets'), [envFile], { stdio: 'pipe' });
      const settings = parseEnvironmentFile(fs.readFileSync(envFile, 'utf8'));
      assert.match(settings.JWT_PRIVATE_KEY!, /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----$/);
      assert.match(settings.ACCESS_CODE_KEY!, /^[0-9a-f]{64}$/);
      drainDelayMs = Number(settings.SHUTDOWN_DRAIN_DELAY_SECONDS) * 1000;

      const [front, ...ports] = await Promise.all([freePort(), freePort(), freePort()]);
      base = `http://127.0.0.1:${front}`;

      // The unit: its environment for an instance (PORT=%i), its command, its stop settings matching the service's.
      const unit = unitSection(fs.readFileSync(deploy('gatehouse@.service'), 'utf8'), 'Service');
      assert.deepEqual(unit.get('ExecStart'), ['/usr/bin/node /opt/gatehouse/bin/gatehouse serve']);
      assert.deepEqual(unit.get('EnvironmentFile'), ['/etc/gatehouse/gatehouse.env']);
      assert.deepEqual(unit.get('KillSignal'), ['SIGTERM']);
      assert.deepEqual(unit.get('Restart'), ['on-failure']);
      const stopSeconds = Number(/^(\d+)s$/.exec(unit.get('TimeoutStopSec')![0]!)![1]);
      assert.ok(stopSeconds > Number(settings.SHUTDOWN_TIMEOUT_SECONDS), 'systemd waits longer than the service');
      instanceEnv = (port) => ({
        ...unitEnvironment(unit.get('Environment') ?? [], { i: String(port) }),
        // EnvironmentFile= overrides Environment= (systemd.exec): the file must not set PORT or HOST.
        ...settings,
        DATABASE_URL: database.env.DATABASE_URL!,
        DATA_DIR: database.env.DATA_DIR!,
        REDIS_URL: process.env.REDIS_URL ?? settings.REDIS_URL!,
        PUBLIC_URL: base,
      });
      assert.equal(settings.PORT, undefined);
      assert.equal(settings.HOST, undefined);

      // HAProxy with deploy/haproxy.cfg as it is, its addresses through deploy/haproxy.defaults' variables.
      const socket = path.join(work, 'admin.sock');
      const defaults = parseEnvironmentFile(fs.readFileSync(deploy('haproxy.defaults'), 'utf8'));
      const addresses: Record<string, string> = {
        GATEHOUSE_BIND: `127.0.0.1:${front}`,
        GATEHOUSE_INSTANCE_1: `127.0.0.1:${ports[0]}`,
        GATEHOUSE_INSTANCE_2: `127.0.0.1:${ports[1]}`,
        GATEHOUSE_HAPROXY_SOCKET: socket,
      };
      assert.deepEqual(Object.keys(defaults).sort(), Object.keys(addresses).sort(), 'the variables the file reads');
      assert.equal(defaults.GATEHOUSE_INSTANCE_1, '127.0.0.1:8081', 'the defaults are the units gatehouse@8081 …');
      for (const [i, port] of ports.entries()) instances.push({ name: `gatehouse${i + 1}`, port: port! });
      // The first instance alone migrates; the second starts once it serves (docs: start them in turn).
      for (const instance of instances) instance.server = await startServerProcess(instanceEnv(instance.port));
      haproxy = await startHaproxy(deploy('haproxy.cfg'), addresses, socket);
      for (const instance of instances) await haproxy.waitFor(BACKEND, instance.name, 'UP');
    });

    after(async () => {
      await haproxy?.stop();
      await Promise.all(instances.map((i) => i.server?.kill('SIGTERM')));
      await database?.drop();
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it('restarts every instance under traffic: 0 failed requests, 0 lost events, every command delivered', async () => {
      const tenant = await provisionThroughAdmin(base, database, 'Rolling');
      const admin = clientFor(base, tenant.operator);
      const second = await ok(
        admin.POST('/admin/facilities', {
          body: { accountId: tenant.account.id, name: 'Rolling South', timeZone: 'America/Denver' },
        }),
        201,
      );
      const secondGateway = await ok(admin.POST('/admin/gateways', { body: { facilityId: second.id } }), 201);

      const failures: string[] = [];
      let running = true;
      /** A request through the balancer; anything but `expected` (or no answer at all) is a failure. */
      async function call(what: string, url: string, init: RequestInit, expected: number): Promise<any> {
        try {
          const response = await fetch(`${base}${url}`, init);
          const text = await response.text();
          if (response.status !== expected) {
            failures.push(`${what}: ${response.status} ${text.slice(0, 300)}`);
            return null;
          }
          return text ? JSON.parse(text) : null;
        } catch (error) {
          failures.push(`${what}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`);
          return null;
        }
      }
      const json = (token: string, body?: unknown): RequestInit => ({
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

      // ---- Two controllers: long polls, and a report every 150 ms with the acknowledgements due ----
      const acknowledged = new Set<string>(); // the details of the events the service answered as stored
      const controllers = [
        { facilityId: tenant.facility.id, gateway: tenant.gateway },
        { facilityId: second.id, gateway: secondGateway },
      ].map(({ facilityId, gateway }) => ({
        facilityId,
        gateway,
        token: '',
        after: 0,
        /** Commands received, by id: the unit each names. */
        received: new Map<string, string>(),
        toAcknowledge: [] as { id: string; sequence: number; type: string }[],
        polls: 0,
        emptyPolls: 0,
      }));
      for (const controller of controllers) {
        const { clientId, clientSecret } = controller.gateway;
        controller.token = (
          await call(
            'controller token',
            '/auth/token',
            {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                grant_type: 'client_credentials',
                client_id: clientId,
                client_secret: clientSecret,
              }),
            },
            200,
          )
        ).access_token;
      }
      const polling = controllers.map(async (c) => {
        while (running) {
          const answer = await call('command poll', `/gateway/v1/commands?after=${c.after}&wait=5`, json(c.token), 200);
          if (!answer) {
            await new Promise((r) => setTimeout(r, 200));
            continue;
          }
          c.polls++;
          if (answer.commands.length === 0) c.emptyPolls++;
          for (const command of answer.commands) {
            c.received.set(command.id, command.payload.unit?.unitNumber);
            c.toAcknowledge.push({ id: command.id, sequence: command.sequence, type: command.type });
            c.after = Math.max(c.after, command.sequence);
          }
        }
      });
      const reporting = controllers.map(async (c, n) => {
        let i = 0;
        // Until every command received has been acknowledged, after the traffic stops too.
        while (running || c.toAcknowledge.length > 0) {
          const acks = c.toAcknowledge.splice(0);
          // Each event's details name it uniquely: the stream and the list show details (not the eventId).
          const events = [
            event({ details: `rolling ${n}-${i++}` }, 0),
            ...acks.map((command) =>
              event(
                {
                  eventType: 3,
                  details: `rolling ${n}: command ${command.sequence} applied`,
                  data: { commandId: command.id, sequence: command.sequence, type: command.type },
                },
                0,
              ),
            ),
          ];
          const answer = await call('event report', '/gateway/v1/events', json(c.token, { events }), 200);
          if (answer && answer.rejected.length === 0 && answer.accepted + answer.duplicates === events.length) {
            for (const e of events) acknowledged.add(e.details as string);
          } else {
            if (answer) failures.push(`event report: ${JSON.stringify(answer)}`);
            c.toAcknowledge.unshift(...acks); // sent again, as a controller does
          }
          await new Promise((r) => setTimeout(r, 150));
        }
      });

      // ---- The PMS: a unit every 300 ms, on each facility in turn (each becomes a command) ----
      const created = new Map<string, number>(); // unitNumber → facilityId
      const writing = (async () => {
        let n = 0;
        while (running) {
          const facilityId = controllers[n % 2]!.facilityId;
          const unitNumber = `R-${++n}`;
          const unit = await call(
            'unit create',
            `/facilities/${facilityId}/units`,
            json(tenant.pms, { unitNumber }),
            201,
          );
          if (unit) created.set(unitNumber, facilityId);
          await new Promise((r) => setTimeout(r, 300));
        }
      })();

      // ---- A live stream of the account, reconnecting with Last-Event-ID as an EventSource does ----
      // From a minute before the traffic began (startDate), so that the first events, reported while it
      // opened, are not before its start; every reconnect sends the same filter with Last-Event-ID.
      const since = new Date(Date.now() - 60_000).toISOString();
      const streamUrl = `${base}/gatewayevents/accounts/${tenant.account.id}/stream?startDate=${since}`;
      const streamed: string[] = [];
      const streamEnds: { shutdownHint: boolean; retry?: number }[] = [];
      let stream: SseStream | null = null;
      let lastEventId: string | undefined;
      const streaming = (async () => {
        while (running) {
          let opened: SseStream;
          try {
            opened = await openStream(streamUrl, tenant.pms, lastEventId ? { 'last-event-id': lastEventId } : {});
          } catch (error) {
            failures.push(`stream open: ${(error as Error).message}`);
            await new Promise((r) => setTimeout(r, 1000));
            continue;
          }
          if (opened.status !== 200) {
            failures.push(`stream open: ${opened.status} ${opened.body}`);
            await new Promise((r) => setTimeout(r, 1000));
            continue;
          }
          stream = opened;
          let seen = 0;
          const take = () => {
            const events = opened.events();
            for (const { id, event: e } of events.slice(seen)) {
              streamed.push(e.details);
              lastEventId = id;
            }
            seen = events.length;
          };
          while (!opened.isEnded() && running) {
            take();
            await new Promise((r) => setTimeout(r, 50));
          }
          take();
          if (!running) break;
          // The server ended it: it says when to reconnect, and why.
          const frames = opened.frames;
          const retry = [...frames].reverse().find((f) => f.retry !== undefined)?.retry;
          const shutdownHint = frames.at(-1)?.comment?.startsWith('the service is shutting down') ?? false;
          streamEnds.push({ shutdownHint, retry });
          await new Promise((r) => setTimeout(r, retry ?? 1000));
        }
      })();

      // ---- The rolling restart, as docs/OPERATIONS.md says: one instance at a time ----
      await new Promise((r) => setTimeout(r, 3000));
      const restarts: { name: string; signalledToDown: number; exit: number | string }[] = [];
      for (const instance of instances) {
        const signalledAt = Date.now();
        const down = haproxy.waitFor(BACKEND, instance.name, 'DOWN', 30_000);
        const exit = await instance.server!.kill('SIGTERM');
        restarts.push({ name: instance.name, signalledToDown: (await down) - signalledAt, exit });
        instance.server = await startServerProcess(instanceEnv(instance.port));
        await haproxy.waitFor(BACKEND, instance.name, 'UP', 30_000);
        // Some traffic on the restarted instance before the next one goes.
        await new Promise((r) => setTimeout(r, 3000));
      }
      running = false;
      (stream as SseStream | null)?.close();
      await Promise.all([...polling, writing, streaming]);
      await Promise.all(reporting);

      // 0 failed requests; each instance exited cleanly, and HAProxy took it out within its drain delay.
      assert.deepEqual(failures, []);
      for (const restart of restarts) {
        assert.equal(restart.exit, 0, `${restart.name} exited cleanly`);
        assert.ok(
          restart.signalledToDown < drainDelayMs,
          `${restart.name} out ${restart.signalledToDown} ms after SIGTERM`,
        );
      }
      // Traffic ran throughout: both controllers reported and polled, the PMS wrote, the stream reconnected
      // after every restart that ended it, told each time to reconnect.
      assert.ok(acknowledged.size > 50, `${acknowledged.size} events acknowledged`);
      assert.ok(created.size > 20, `${created.size} units created`);
      assert.ok(streamEnds.length >= 1, 'the stream was on a restarted instance at least once');
      for (const end of streamEnds) {
        assert.ok(end.shutdownHint, `each end came with the shutdown comment: ${JSON.stringify(streamEnds)}`);
        assert.ok(end.retry! >= 1000 && end.retry! <= 2000);
      }

      // Every command delivered to its controller (and acknowledged).
      for (const [unitNumber, facilityId] of created) {
        const controller = controllers.find((c) => c.facilityId === facilityId)!;
        assert.ok([...controller.received.values()].includes(unitNumber), `the command for ${unitNumber} delivered`);
      }
      const pms = clientFor(base, tenant.pms);
      for (const controller of controllers) {
        const commands = await ok(
          pms.GET('/facilities/{facilityId}/commands', {
            params: { path: { facilityId: controller.facilityId }, query: { limit: 1000 } },
          }),
        );
        const mine = commands.filter((c) => controller.received.has(c.id));
        assert.equal(mine.length, controller.received.size);
        for (const command of mine) assert.equal(command.status, 'acknowledged', JSON.stringify(command));
      }

      // 0 lost events: every event acknowledged is readable (a cursor walk of the account) …
      const stored = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await ok(
          pms.GET('/gatewayevents/accounts/{accountId}', {
            params: {
              path: { accountId: tenant.account.id },
              query: { pageSize: 1000, ...(cursor ? { cursor } : {}) },
            },
          }),
        );
        for (const item of page.items) if (item.details) stored.add(item.details);
        cursor = page.metadata.nextCursor ?? undefined;
      } while (cursor);
      const missing = [...acknowledged].filter((id) => !stored.has(id));
      assert.deepEqual(missing, [], 'every acknowledged event is stored');
      // … and the stream saw each exactly once across its reconnects (a last stream reads what came after).
      const tail = await openStream(streamUrl, tenant.pms, lastEventId ? { 'last-event-id': lastEventId } : {});
      const all = () => [...streamed, ...tail.events().map((e) => e.event.details as string)];
      await eventually('the stream to catch up', async () => stored.size === new Set(all()).size, 20_000).catch(
        (error: Error) => {
          const seen = new Set(all());
          const unseen = [...stored].filter((d) => !seen.has(d));
          throw new Error(
            `${error.message}: ${stored.size} stored, ${streamed.length} streamed + ${tail.events().length} at the ` +
              `end (status ${tail.status}); not streamed: ${unseen.slice(0, 20).join(' | ')}; ends ${JSON.stringify(streamEnds)}`,
          );
        },
      );
      tail.close();
      assert.equal(new Set(all()).size, all().length, 'no event streamed twice');
      assert.deepEqual([...new Set(all())].sort(), [...stored].sort(), 'every stored event streamed');
    });
  });
}
