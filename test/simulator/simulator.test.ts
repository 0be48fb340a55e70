// The simulator against a stand-in service: it authenticates, applies the command it receives and
// acknowledges it, reports keypad events for the visitor, and — while the service answers 503 —
// retries its batches with the same eventIds, losing nothing. Its failures are said in words
// (against the real service: test/e2e/admin-cli.test.ts).
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { HttpError } from '../../src/simulator/client.ts';
import { describeFailure } from '../../src/simulator/failures.ts';
import { Simulator, DEFAULT_OPTIONS } from '../../src/simulator/simulator.ts';
import { freePort, runCli } from '../helpers/process.ts';

interface Batch {
  status: number;
  ids: string[];
  events: {
    eventId: string;
    eventType: number;
    visitorId?: EntityId;
    codeEntered?: string;
    data?: { commandId?: string };
  }[];
}

const batches: Batch[] = [];
let failNext = 0;
let served = false;
let tokens = 0;
let server: http.Server;
let url: string;

const COMMAND = {
  id: '11111111-1111-4111-8111-111111111111',
  sequence: 1,
  type: 'visitor.upsert',
  createdAt: new Date().toISOString(),
  payload: {
    action: 'create',
    unit: { id: 21, unitNumber: 'A1', status: 'Rented' },
    visitor: {
      id: 11,
      unitId: 21,
      unitNumber: 'A1',
      firstName: 'Sam',
      lastName: 'Sim',
      isTenant: true,
      isEnabled: true,
      accessCode: '2468',
      timeGroup: {
        id: 1,
        name: '24 Hours',
        timeZone: 'UTC',
        windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '00:00', end: '24:00' }],
      },
      accessProfile: { id: 1, name: 'All Access', accessAreas: null },
    },
  },
};

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.url === '/auth/token') {
        tokens++;
        return send(200, { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
      }
      if (req.headers.authorization !== 'Bearer tok') return send(401, {});
      if (req.url?.startsWith('/gateway/v1/commands')) {
        const after = Number(new URL(req.url, 'http://x').searchParams.get('after'));
        if (after < 1 && !served) {
          served = true;
          return send(200, { commands: [COMMAND] });
        }
        return setTimeout(() => send(200, { commands: [] }), 200);
      }
      if (req.url === '/gateway/v1/events') {
        const events = JSON.parse(body).events;
        const status = failNext > 0 ? 503 : 200;
        if (failNext > 0) failNext--;
        batches.push({ status, ids: events.map((e: { eventId: string }) => e.eventId), events });
        return status === 200
          ? send(200, { accepted: events.length, duplicates: 0, rejected: [], warnings: [] })
          : send(503, {});
      }
      send(404, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

it('applies and acknowledges a command, reports the visitor’s entries, retries through 503s with the same eventIds', async () => {
  const simulator = new Simulator(url, [{ clientId: 'gwc_1', clientSecret: 'secret' }], {
    ...DEFAULT_OPTIONS,
    entriesPerMinute: 1200,
    wrongCodeShare: 0,
    doorAlarmsPerHour: 0,
    deviceDropsPerHour: 0,
    pollWaitSeconds: 1,
    batchSize: 10,
    flushMs: 100,
    tickMs: 50,
  });
  simulator.start();
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setTimeout(r, 25));
  };
  await until(() => batches.some((b) => b.status === 200 && b.events.some((e) => e.eventType === 18)));
  failNext = 3;
  await until(() => failNext === 0 && batches.at(-1)!.status === 200);
  const summary = await simulator.stop(5000);

  assert.equal(tokens, 1, 'one token, reused');
  const ack = batches.flatMap((b) => b.events).find((e) => e.eventType === 3);
  assert.equal(ack?.data?.commandId, COMMAND.id);
  const grants = batches
    .filter((b) => b.status === 200)
    .flatMap((b) => b.events)
    .filter((e) => e.eventType === 18);
  assert.ok(grants.length > 0);
  assert.ok(grants.every((e) => e.visitorId === 11 && e.codeEntered === '2468'));

  // Every failed batch was sent again whole, with the same ids, before anything newer.
  const failedAt = batches.map((b, i) => (b.status === 503 ? i : -1)).filter((i) => i >= 0);
  assert.equal(failedAt.length, 3);
  for (const i of failedAt) assert.deepEqual(batches[i + 1]!.ids, batches[i]!.ids);
  // Nothing lost: each generated event was accepted exactly once.
  const accepted = batches.filter((b) => b.status === 200).flatMap((b) => b.ids);
  assert.equal(new Set(accepted).size, accepted.length);
  assert.equal(accepted.length, summary.eventsGenerated);
  assert.equal(summary.eventsAccepted, summary.eventsGenerated);
  assert.equal(summary.queued, 0);
  assert.equal(summary.commandsApplied, 1);
  assert.ok(summary.retries >= 3);
  assert.match(
    simulator.progressLine(),
    /^1 facility · 1 commands applied · [\d,]+ events sent · 0 queued · \d+ errors · service up$/,
  );
});

it('the command line refuses to run without a gateway credential, in one line', async () => {
  const result = await runCli(['simulate', '--url', url], {});
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    'gatehouse: give at least one gateway credential: --gateway <clientId:clientSecret> or --gateways-file <file>\n',
  );
});

it('names an unreachable service in words and exits 1 when nothing was ever accepted', async () => {
  const closed = await freePort();
  const result = await runCli(
    ['simulate', '--url', `http://127.0.0.1:${closed}`, '--gateway', 'gwc_1:secret', '--duration', '2', '--quiet'],
    {},
  );
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    `gatehouse: the service accepted nothing during the run: cannot reach the service at http://127.0.0.1:${closed} (ECONNREFUSED): is it running? check --url\n`,
  );
});

it('says each failure in words, with what to check', () => {
  const base = 'http://gatehouse.test';
  const say = (error: unknown) => describeFailure(error, base, 'gwc_7');
  assert.equal(
    say(
      new HttpError(
        401,
        '{"error":"invalid_client","error_description":"Client authentication failed."}',
        null,
        'token',
      ),
    ),
    'the gateway credential gwc_7 was refused (401 invalid_client): check --gateway clientId:clientSecret',
  );
  assert.equal(
    say(new HttpError(404, '', null, 'token')),
    'http://gatehouse.test has no token endpoint (404 for /auth/token): is --url the address of a Gatehouse service?',
  );
  assert.equal(
    say(new HttpError(503, '{"title":"Service Unavailable","detail":"the database is not reachable"}', 2000, 'events')),
    'the service is unavailable (503 the database is not reachable): trying again',
  );
  assert.equal(
    say(new HttpError(429, '', 3000, 'commands')),
    'the service is limiting requests (429): trying again in 3 s',
  );
  assert.equal(
    say(new HttpError(400, '{"detail":"body must have events"}', null, 'events')),
    'a batch of events was refused (400 body must have events): its events are dropped',
  );
  assert.equal(
    say(new HttpError(403, '{"detail":"needs the scope gateway"}', null, 'commands')),
    'the credential gwc_7 may not act as a gateway (403 needs the scope gateway): is it a gateway credential (`gatehouse admin gateway create`)?',
  );
  const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } });
  assert.equal(say(refused), 'cannot find the host of http://gatehouse.test (ENOTFOUND): check --url');
});
