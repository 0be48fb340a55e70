// A database failover survived (issue 27): the real server process behind a TCP relay to PostgreSQL,
// under the traffic of a site — two controllers reporting event batches (each batch retried after
// Retry-After until acknowledged, as a controller does) and one long-polling its commands, a PMS
// writing visitors (each a command for the controller), two webhook subscriptions with receivers on
// loopback, an auction whose closing job falls due during the outage — when every connection of the
// service is cut at once and the database is unreachable for 30 s (new connections refused), as a
// Patroni failover or a restart does.
// Meanwhile every request is answered: 503 with Retry-After for what needs the database, 200 for
// /health (and for a long poll whose wait ran out, which reads nothing), /availability 503 with the
// database and jobs false; never a 500, never no answer; the process lives and no promise fails
// unheard. Once the database is back the service serves within 5 s, without a restart, and its two
// notification listeners LISTEN again within 5 s (before the fix: 6 s, their back-off grown to 10 s);
// every acknowledged batch is stored exactly once; every acknowledged visitor's command reaches the
// controller; every stored event reaches each receiver in exactly one delivery (a delivery sent
// again keeps its webhook-id); the job due during the outage runs; the log tells the outage in a
// few lines. (A job whose handler runs at the cut: test/jobs/outcome.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { COMMAND_CHANNEL } from '../../src/commands/signals.ts';
import { EVENTS_CHANNEL } from '../../src/events/signals.ts';
import { event } from '../events/helpers.ts';
import { startImageHost, type ImageHost } from '../net/image-host.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { seed } from '../helpers/seed.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { gatewayToken, partnerToken, provisionAccount } from '../helpers/tenants.ts';

/** Patroni's default failover takes about 30 s (GitLab measured 1–3 min). */
const OUTAGE_MS = 30_000;
const SERVES_AGAIN_WITHIN_MS = 5000;
/** The job due during the outage runs within this of the database's return (workers poll every second). */
const JOBS_RESUME_WITHIN_MS = 10_000;
const BATCH = 10;
const REPORT_EVERY_MS = 250;
const PROBE_EVERY_MS = 100;
const CLIENT_TYPE = 'FailoverAuctions';

type Kind = 'report' | 'poll' | 'visitor' | 'read' | 'write-probe' | 'health' | 'availability' | 'setup';

interface Answer {
  kind: Kind;
  target: string;
  status: number;
  startedAt: number;
  endedAt: number;
  retryAfter: number | null;
  body: any;
}

/**
 * Every request of the site's traffic, each answer judged as it comes: the expected success, or 503
 * problem+json with Retry-After that names no driver internals; anything else (a 500, no answer at
 * all) is a failure.
 */
class Site {
  readonly answers: Answer[] = [];
  readonly failures: string[] = [];
  running = true;
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly url: string) {}

  run(loop: () => Promise<void>): void {
    this.loops.push(
      loop().catch((error: Error) => {
        this.failures.push(`a traffic loop failed: ${error.stack}`);
      }),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** A request; null when it got no answer (recorded as a failure). */
  async send(
    kind: Kind,
    method: string,
    target: string,
    token: string | null,
    json?: unknown,
    success: number[] = [200],
  ): Promise<Answer | null> {
    const startedAt = Date.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.url}${target}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: json === undefined ? undefined : JSON.stringify(json),
        signal: AbortSignal.timeout(45_000),
      });
      text = await response.text();
    } catch (error) {
      this.failures.push(`no answer to ${method} ${target}: ${(error as Error).message}`);
      return null;
    }
    const retryAfter = response.headers.get('retry-after');
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    const answer: Answer = {
      kind,
      target,
      status: response.status,
      startedAt,
      endedAt: Date.now(),
      retryAfter: retryAfter === null ? null : Number(retryAfter),
      body,
    };
    this.answers.push(answer);
    if (response.status === 503) {
      if (!/^[1-9]\d*$/.test(String(retryAfter))) this.failures.push(`503 without Retry-After on ${target}: ${text}`);
      // /availability answers its own body (the checks), every other route a problem.
      const type = kind === 'availability' ? /^application\/json/ : /^application\/problem\+json/;
      if (!type.test(String(response.headers.get('content-type'))))
        this.failures.push(`503 on ${target} as ${response.headers.get('content-type')}`);
      if (/ECONN|terminated|\bselect\b|pg_|pgboss/i.test(text))
        this.failures.push(`503 leaks the driver: ${text.slice(0, 300)}`);
    } else if (!success.includes(response.status))
      this.failures.push(`${response.status} on ${method} ${target}: ${text.slice(0, 300)}`);
    return answer;
  }

  /** Waits as the answer says (its Retry-After), or `ms` after a success. */
  async pause(answer: Answer | null, ms: number): Promise<void> {
    const wait = answer?.status === 503 ? (answer.retryAfter ?? 1) * 1000 : answer ? ms : 500;
    const until = Date.now() + wait;
    while (this.running && Date.now() < until) await sleep(Math.min(100, until - Date.now()));
  }
}

if (onPostgres) {
  describe('a database failover: every connection cut, the database unreachable 30 s', () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let server: ServerProcess;
    let admin: pg.Client;
    let imageHost: ImageHost;
    const receivers: Receiver[] = [];
    let setup: {
      accountId: string;
      facilityId: string;
      guid: string;
      pms: string;
      controllers: string[];
      partner: string;
    };

    before(async () => {
      database = await createTestDatabase();
      setup = await seed(database.env, async (t) => {
        const account = await provisionAccount(t, { facilities: 2, name: 'Failover Storage' });
        const [north, south] = account.facilities;
        return {
          accountId: String(account.accountId),
          facilityId: String(north!.id),
          guid: north!.guid!,
          pms: account.token,
          controllers: [(await gatewayToken(t, north!.id)).token, (await gatewayToken(t, south!.id)).token],
          partner: (await partnerToken(t, CLIENT_TYPE, [north!.guid!])).token,
        };
      });
      imageHost = await startImageHost();
      receivers.push(await startReceiver(), await startReceiver());
      const direct = new URL(database.env.DATABASE_URL!);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const viaProxy = new URL(direct);
      viaProxy.host = proxy.address;
      server = await startServerProcess({
        ...database.env,
        DATABASE_URL: viaProxy.toString(),
        RATE_LIMIT_PER_MINUTE: '1000000',
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      });
      admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await admin.connect();
    });
    after(async () => {
      await server?.kill();
      await proxy?.close();
      await admin?.end();
      for (const receiver of receivers) await receiver.close();
      await imageHost?.close();
      await database?.drop();
    });

    it('answers 503 + Retry-After meanwhile, serves within 5 s of its return, loses no acknowledged write; jobs and lanes resume', async () => {
      const site = new Site(server.url);
      const { facilityId, pms, controllers } = setup;
      const must = async (answer: Promise<Answer | null>, status = 200) => {
        const got = await answer;
        assert.equal(got?.status, status, JSON.stringify(got?.body));
        return got!.body;
      };

      // The PMS subscribes both receivers; a unit for the visitors it writes.
      for (const receiver of receivers)
        await must(
          site.send(
            'setup',
            'POST',
            '/webhooks/subscriptions',
            pms,
            { url: receiver.url, topics: ['gateway.events'] },
            [201],
          ),
          201,
        );
      const unit = await must(
        site.send('setup', 'POST', `/facilities/${facilityId}/units`, pms, { unitNumber: 'F-1' }, [201]),
        201,
      );
      // Its tenant first (a vacant unit's first visitor is); then the PMS adds visitors to it.
      await must(
        site.send(
          'setup',
          'POST',
          `/facilities/${facilityId}/visitors`,
          pms,
          { unitId: unit.id, accessCode: '700000', firstName: 'Dana', lastName: 'Tenant', isTenant: true },
          [201],
        ),
        201,
      );

      // What each part of the site saw acknowledged.
      const acknowledgedEvents: string[] = [];
      const acknowledgedVisitors = new Set<number>();
      const visitorsCommanded = new Set<number>();
      const acks: Record<string, unknown>[] = [];

      /** A controller: reports a batch, and the same batch again after Retry-After until it is acknowledged. */
      const controller = (i: number) => async () => {
        let sent = 0;
        while (site.running) {
          const batch = [
            ...(i === 0 ? acks.splice(0) : []),
            ...Array.from({ length: BATCH }, (_, n) => event({ eventId: `fo-${i}-${sent}-${n}` }, 5)),
          ];
          sent++;
          for (;;) {
            const answer = await site.send('report', 'POST', '/gateway/v1/events', controllers[i]!, { events: batch });
            if (answer?.status === 200) {
              if (answer.body.accepted + answer.body.duplicates !== batch.length)
                site.failures.push(`a batch acknowledged without every event: ${JSON.stringify(answer.body)}`);
              acknowledgedEvents.push(...batch.map((e) => e.eventId as string));
              await site.pause(answer, REPORT_EVERY_MS);
              break;
            }
            await site.pause(answer, REPORT_EVERY_MS);
            // Stopped while its batch waits: the batch was never acknowledged, nothing to check.
            if (!site.running) return;
          }
        }
      };

      /** The north controller's long poll for commands; each received command is acknowledged in its next batch. */
      const commandPoll = async () => {
        let afterSequence = 0;
        while (site.running) {
          const answer = await site.send(
            'poll',
            'GET',
            `/gateway/v1/commands?after=${afterSequence}&wait=5`,
            controllers[0]!,
          );
          if (answer?.status === 200) {
            for (const command of answer.body.commands) {
              afterSequence = Math.max(afterSequence, command.sequence);
              const visitor = command.payload?.visitor?.id;
              if (command.type === 'visitor.upsert') visitorsCommanded.add(visitor);
              acks.push(event({ eventId: `ack-${command.id}`, eventType: 3, data: { commandId: command.id } }, 1));
            }
            continue;
          }
          await site.pause(answer, 0);
        }
      };

      /**
       * The PMS adds a visitor each second. A write answered 503 may or may not have taken effect, so it
       * is not repeated as it was: the next one is another visitor, with another code.
       */
      const pmsWrites = async () => {
        let n = 0;
        while (site.running) {
          n++;
          const answer = await site.send(
            'visitor',
            'POST',
            `/facilities/${facilityId}/visitors`,
            pms,
            {
              unitId: unit.id,
              accessCode: String(700_000 + n),
              firstName: 'Fail',
              lastName: `Over ${n}`,
              isTenant: false,
            },
            [201],
          );
          if (answer?.status === 201) acknowledgedVisitors.add(answer.body.visitor.id);
          await site.pause(answer, 1000);
        }
      };

      /** A probe that does not wait for Retry-After: what the service answers, every 100 ms. */
      let probes = 0;
      const probe = async () => {
        while (site.running) {
          probes++;
          await Promise.all([
            site.send('health', 'GET', '/health', null),
            site.send('availability', 'GET', '/availability', null, undefined, [200]),
            site.send('read', 'GET', `/gatewayevents/facilities/${facilityId}?pageSize=20&sort=desc`, pms),
            site
              .send('write-probe', 'POST', '/gateway/v1/events', controllers[1]!, {
                events: [event({ eventId: `probe-${probes}` }, 5)],
              })
              .then((answer) => {
                if (answer?.status === 200) acknowledgedEvents.push(`probe-${probes}`);
              }),
          ]);
          await sleep(PROBE_EVERY_MS);
        }
      };

      const exited = server.exited.then((code): never => {
        throw new Error(`the server exited (${code}):\n${server.output().slice(-3000)}`);
      });
      exited.catch(() => {});

      site.run(controller(0));
      site.run(controller(1));
      site.run(commandPoll);
      site.run(pmsWrites);
      site.run(probe);
      let cutAt = 0;
      let backAt = 0;
      try {
        // Traffic flows: batches acknowledged, a command delivered, deliveries received.
        await Promise.race([
          exited,
          (async () => {
            const deadline = Date.now() + 30_000;
            while (
              acknowledgedEvents.length < 100 ||
              visitorsCommanded.size === 0 ||
              receivers.some((r) => r.received.length === 0)
            ) {
              assert.ok(Date.now() < deadline, `traffic did not flow: ${site.failures.slice(0, 5).join('; ')}`);
              await sleep(100);
            }
          })(),
        ]);
        // An auction that ends during the outage: its closing job falls due while the database is away.
        const auction = await must(
          site.send('setup', 'POST', '/api/3/auctioninfo', setup.partner, {
            guid: setup.guid,
            clientType: CLIENT_TYPE,
            auctionableUnitInfo: [
              {
                unitId: 'FO-1',
                unitName: 'FO-1',
                auctionType: 'Lien',
                unitWidth: 10,
                unitLength: 10,
                description: 'Boxes',
                categories: ['Boxes'],
                tenantName: 'J. Doe',
                startsAt: new Date().toISOString(),
                endsAt: new Date(Date.now() + OUTAGE_MS / 3).toISOString(),
                minimumBid: 25,
                imageUrls: [`${imageHost.url}/photo.jpg`],
              },
            ],
          }),
        );
        assert.equal(auction.data.results[0].outcome, 'created', JSON.stringify(auction));

        // The failover: every connection cut at once, nothing answers for 30 s.
        ({ cutAt, backAt } = await Promise.race([exited, proxy.cutFor(OUTAGE_MS)]));

        // Each measured from the return, together: how long until `reached` answers true.
        const sinceReturn = async (reached: () => Promise<boolean> | boolean) => {
          for (;;) {
            if (await reached()) return Date.now() - backAt;
            if (Date.now() - backAt > 30_000) return Number.POSITIVE_INFINITY;
            await sleep(20);
          }
        };
        // Served again: the probe's first 200s to requests sent after the return.
        const servedAfter = (kind: Kind) =>
          sinceReturn(() => site.answers.some((a) => a.kind === kind && a.startedAt >= backAt && a.status === 200));
        // The notification listeners (new sessions, LISTENing): long polls and live streams on this
        // instance wake again for what other instances write.
        const listeningAfter = sinceReturn(async () => {
          const { rows } = await admin.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
              where datname = current_database() and query = any($1) and backend_start >= to_timestamp($2 / 1000.0)`,
            [[`listen ${COMMAND_CHANNEL}`, `listen ${EVENTS_CHANNEL}`], cutAt],
          );
          return rows[0]!.n === 2;
        });
        // The job that fell due during the outage runs.
        const closedAfter = sinceReturn(async () => {
          const { rows } = await admin.query<{ status: string }>(
            `select status from auctions where facility_id = $1 and unit_id = 'FO-1'`,
            [facilityId],
          );
          return rows[0]?.status === 'ClosedUnsold';
        });
        const [read, write, available, listening, closed] = await Promise.race([
          exited,
          Promise.all([
            servedAfter('read'),
            servedAfter('write-probe'),
            servedAfter('availability'),
            listeningAfter,
            closedAfter,
          ]),
        ]);
        console.log(
          `# after the return: a read served in ${read} ms, a batch acknowledged in ${write} ms, ` +
            `/availability 200 in ${available} ms, both listeners back in ${listening} ms, ` +
            `the job due meanwhile run in ${closed} ms`,
        );
        assert.ok(read < SERVES_AGAIN_WITHIN_MS, `a read served ${read} ms after the return`);
        assert.ok(write < SERVES_AGAIN_WITHIN_MS, `a batch acknowledged ${write} ms after the return`);
        assert.ok(available < SERVES_AGAIN_WITHIN_MS, `/availability 200 ${available} ms after the return`);
        assert.ok(listening < SERVES_AGAIN_WITHIN_MS, `listening again ${listening} ms after the return`);
        assert.ok(closed < JOBS_RESUME_WITHIN_MS, `the closing job ran ${closed} ms after the return`);

        // A few more seconds of traffic after the return, then it stops.
        await Promise.race([exited, sleep(3000)]);
      } finally {
        await site.stop();
      }

      assert.equal(server.child.exitCode, null, `the server exited:\n${server.output().slice(-3000)}`);
      assert.deepEqual(site.failures, [], 'only the expected answers, and 503 with Retry-After');

      // During the outage (requests sent and answered inside it, a moment after the cut): what needs the
      // database 503, /health 200, /availability 503 saying what is down.
      const during = site.answers.filter((a) => a.startedAt >= cutAt + 500 && a.endedAt <= backAt);
      const byKind = (kind: Kind) => during.filter((a) => a.kind === kind);
      for (const kind of ['report', 'visitor', 'read', 'write-probe'] as const) {
        assert.ok(byKind(kind).length > 0, `no ${kind} during the outage`);
        assert.deepEqual(
          [...new Set(byKind(kind).map((a) => a.status))],
          [503],
          `${kind} during the outage: ${JSON.stringify(byKind(kind).slice(0, 3))}`,
        );
      }
      assert.ok(
        byKind('read').every((a) => a.body.code === 'DATABASE_UNAVAILABLE'),
        JSON.stringify(byKind('read')[0]),
      );
      assert.deepEqual([...new Set(byKind('health').map((a) => a.status))], [200]);
      assert.ok(byKind('availability').length > 0);
      for (const answer of byKind('availability')) {
        assert.equal(answer.status, 503);
        assert.equal(answer.body.status, 'unavailable');
        assert.equal(answer.body.checks.database, false);
        assert.equal(answer.body.checks.jobs, false);
      }
      // A poll whose wait ran out during the outage reads nothing: 200 with no commands; any other 503.
      for (const answer of byKind('poll'))
        assert.ok(answer.status === 503 || answer.body.commands.length === 0, JSON.stringify(answer));
      const served503 = during.filter((a) => a.status === 503).length;
      console.log(`# during the outage: ${during.length} answers, ${served503} of them 503`);

      // Nothing the service acknowledged is lost, and nothing is stored twice.
      const { rows: stored } = await admin.query<{ id: string; gwc: string; copies: number; received: Date }>(
        `select gwc_event_id as gwc, count(*)::int as copies, min(id::text) as id, min(received_at) as received
           from gateway_events where account_id = $1 group by gwc_event_id`,
        [setup.accountId],
      );
      assert.ok(
        stored.some((row) => row.received.getTime() < cutAt),
        'events stored before the outage',
      );
      assert.ok(
        stored.some((row) => row.received.getTime() > backAt),
        'events stored after it',
      );
      const copies = new Map(stored.map((row) => [row.gwc, row.copies]));
      assert.ok(acknowledgedEvents.length > 0);
      assert.deepEqual(
        acknowledgedEvents.filter((id) => copies.get(id) !== 1),
        [],
        'every acknowledged event stored exactly once',
      );
      assert.ok(acknowledgedVisitors.size > 0);

      // After the return: every acknowledged visitor's command reaches the controller, every stored
      // event each receiver (the controller's acknowledgements too), each event in one delivery.
      const deadline = Date.now() + 30_000;
      const undelivered = () => {
        const ids = new Set(stored.map((row) => row.id));
        return receivers.map((r) => {
          const got = new Set(r.received.flatMap((d) => d.json.data.events.map((e: { id: string }) => e.id)));
          return [...ids].filter((id) => !got.has(id)).length;
        });
      };
      const pollAfterStop = new Site(server.url);
      let afterSequence = 0;
      while (
        [...acknowledgedVisitors].some((id) => !visitorsCommanded.has(id)) ||
        undelivered().some((missing) => missing > 0)
      ) {
        assert.ok(
          Date.now() < deadline,
          `commands missing: ${[...acknowledgedVisitors].filter((id) => !visitorsCommanded.has(id))}; ` +
            `events undelivered per receiver: ${undelivered()}`,
        );
        // The controller keeps polling (its loop has stopped with the rest of the traffic).
        const answer = await pollAfterStop.send(
          'poll',
          'GET',
          `/gateway/v1/commands?after=${afterSequence}&wait=1`,
          controllers[0]!,
        );
        for (const command of answer?.body?.commands ?? []) {
          afterSequence = Math.max(afterSequence, command.sequence);
          if (command.type === 'visitor.upsert') visitorsCommanded.add(command.payload.visitor.id);
        }
      }
      assert.deepEqual(pollAfterStop.failures, []);
      for (const receiver of receivers) {
        // Each event in exactly one delivery; a delivery sent again (its acceptance not yet written
        // when the connections were cut) carries the same webhook-id and body, which receivers dedupe by.
        const deliveries = new Map<string, string>();
        for (const d of receiver.received) {
          const seen = deliveries.get(d.json.id);
          assert.ok(seen === undefined || seen === d.body, 'a delivery sent again is the same');
          deliveries.set(d.json.id, d.body);
        }
        const events = [...deliveries.values()].flatMap((body) =>
          JSON.parse(body).data.events.map((e: { id: string }) => e.id),
        );
        assert.equal(events.length, new Set(events).size, 'no event in two deliveries');
        assert.equal(events.length, stored.length, 'every stored event delivered');
        console.log(
          `# receiver: ${receiver.received.length} requests, ${deliveries.size} deliveries, ${events.length} events`,
        );
      }

      // The process lived through it, no promise failed unheard, and the log tells the outage in a few
      // lines besides the answers' own: each listener lost, retrying (once, not every attempt), back.
      assert.equal(server.child.exitCode, null);
      const output = server.output();
      assert.doesNotMatch(output, /uncaught|unhandled|no one to hear it/i);
      const lines = (text: string) => output.split('\n').filter((line) => line.includes(text)).length;
      assert.equal(lines('notification listener lost its connection'), 2);
      assert.equal(lines('notification listener could not connect; retrying'), 2);
      assert.equal(lines('notification listener is listening again'), 2);
    });
  });
}
