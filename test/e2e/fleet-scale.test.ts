// The fleet-scale benchmark (bench/fleet-scale/, issue 25) small, as a correctness test: 50
// facilities onboarded over the admin API, the reconnect storm, every controller polling and
// reporting from processes of their own, PMS changes, 5 webhook receivers, live streams, one
// facility uploading from 4 threads, a token flood. Every answer is 200 or a documented refusal,
// every event reaches every receiver and every stream exactly once, every change's command reaches
// its controller. Nothing here is timed: the benchmark measures, this test only checks.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { renderFleetScale } from '../../bench/fleet-scale/report.ts';
import { runFleetScale, type FleetScaleOptions, type FleetScaleResult } from '../../bench/fleet-scale/scenario.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';

const FACILITIES = 50;
let database: TestDatabase;
let options: FleetScaleOptions;
let result: FleetScaleResult;

/** The keys of a tally of answers, as numbers. */
const statuses = (tally: Record<string, number>) =>
  Object.keys(tally)
    .map(Number)
    .sort((a, b) => a - b);
const total = (tally: Record<string, number>) => Object.values(tally).reduce((n, x) => n + x, 0);

before(async () => {
  database = await createTestDatabase();
  options = {
    facilities: FACILITIES,
    databaseEnv: database.env,
    // On PostgreSQL the suite runs with Redis (shared rate-limit state): the server too.
    serverEnv: { REDIS_URL: process.env.REDIS_URL ?? '' },
    workers: 2,
    batchSize: 3,
    batchIntervalMs: 1000,
    pollWaitSeconds: 30,
    stormSeconds: 120,
    pollSeconds: 1,
    batchSeconds: 2,
    webhookSeconds: 2,
    fullSeconds: 4,
    receivers: 5,
    streams: 3,
    streamSample: 1,
    pmsPerSecond: 10,
    statusEveryMs: 1000,
    healthEveryMs: 100,
    upload: { senders: 4, batches: 3, events: 60 },
    floodRounds: 1,
    floodRequests: 400,
    drainSeconds: 60,
    onboardConcurrency: 4,
    // One connection per token request and batch, as at 10,000 facilities in this sandbox
    // (bench/fleet-scale.ts); a connection kept alive between them is undici's default.
    keepPostsAlive: false,
    settleMs: 0,
    // One busy sandbox beside the fleet (issue 30): made, used and set busy by the bench; the fleet's checks hold.
    sandboxes: 1,
  };
  result = await runFleetScale(options, () => {});
});

after(async () => {
  await database?.drop();
});

it('every controller gets a token in the storm; the refusals on the way are 503 with Retry-After, waited out', () => {
  assert.equal(result.storm.controllers, FACILITIES);
  assert.equal(result.storm.holding, FACILITIES);
  assert.equal(result.storm.errors, 0);
  assert.deepEqual(
    statuses(result.storm.statuses).filter((s) => s !== 503),
    [200],
  );
  assert.equal(result.storm.statuses['200'], FACILITIES);
  assert.equal(result.storm.refusals, result.storm.statuses['503'] ?? 0);
});

it('every batch, acknowledgement and poll is answered 200 with every event accepted, also 4 senders on one facility', () => {
  assert.ok(result.batches.sent >= FACILITIES, `${result.batches.sent} batches`);
  assert.deepEqual(result.batches.statuses, { 200: result.batches.sent });
  assert.equal(result.batches.partial, 0);
  assert.equal(result.batches.errors, 0);
  assert.ok(result.acks.sent > 0, 'the PMS changes were acknowledged');
  assert.deepEqual(result.acks.statuses, { 200: result.acks.sent });
  assert.deepEqual(statuses(result.polls.statuses), [200]);
  assert.equal(result.polls.errors, 0);
  const uploads = options.upload.senders * options.upload.batches;
  assert.deepEqual(result.upload.statuses, { 200: uploads }, result.upload.refusals.join('\n'));
  assert.equal(result.upload.partial, 0);
  assert.equal(result.upload.errors, 0);
});

it("every PMS change is answered and its command reaches the facility's controller", () => {
  assert.ok(result.pms.changes >= 10, `${result.pms.changes} changes`);
  assert.equal(total(result.pms.statuses), result.pms.changes, result.pms.refusals.join('\n'));
  assert.deepEqual(
    statuses(result.pms.statuses).filter((s) => s !== 200 && s !== 201),
    [],
  );
  assert.equal(result.pms.missing, 0);
  assert.equal(result.pms.delivered, result.pms.changes);
});

it('every event since the subscriptions reaches every one of the 5 receivers exactly once, signed', () => {
  assert.equal(result.webhooks.receivers.length, 5);
  assert.ok(result.webhooks.drained);
  for (const receiver of result.webhooks.receivers) {
    assert.ok(receiver.expected > result.batches.sent, `${receiver.expected} events expected`);
    assert.equal(receiver.missing, 0);
    assert.equal(receiver.duplicateEvents, 0);
    assert.equal(receiver.duplicateDeliveries, 0);
    assert.equal(receiver.unexpected, 0);
    assert.equal(receiver.rejected, 0);
    assert.ok((receiver.byType['gateway.events'] ?? 0) > 0);
    assert.ok((receiver.byType['command.status'] ?? 0) > 0, 'acknowledged commands are pushed too');
  }
});

it('every event of the full phase reaches every live stream exactly once', () => {
  assert.equal(result.streams.streams, options.streams);
  assert.ok(result.streams.drained);
  assert.ok(result.streams.expected > 0);
  assert.equal(result.streams.missing, 0);
  assert.equal(result.streams.duplicates, 0);
  assert.equal(result.streams.unexpected, 0);
  assert.equal(result.streams.latency.n, result.streams.expected * options.streams, 'every arrival was timed');
});

it('the status list, /health and the token during a flood answer 200; the flood is refused as documented', () => {
  assert.ok(result.statusList.samples.n > 0);
  assert.deepEqual(result.statusList.statuses, { 200: result.statusList.samples.n });
  assert.deepEqual([...new Set(result.statusList.rows)], [FACILITIES]);
  assert.ok(result.health.all.n > 0);
  assert.deepEqual(result.health.statuses, { 200: result.health.all.n });
  assert.equal(result.flood.length, 1);
  for (const round of result.flood) {
    assert.equal(round.valid.status, 200);
    assert.equal(round.cached.status, 200);
    assert.equal(total(round.flood.statuses), options.floodRequests);
    // Made-up client ids (in the body): 400 invalid_client, 503 when the line of checks is full, 429 when throttled.
    assert.deepEqual(
      statuses(round.flood.statuses).filter((s) => ![400, 429, 503].includes(s)),
      [],
    );
  }
  assert.equal(result.serverExit, null);
});

it('the report names every measure beside its target', () => {
  const text = renderFleetScale(result, options, 'test machine');
  for (const measure of [
    'reconnect storm',
    'a valid token during',
    'valid batches answered 200',
    'batch acknowledged, p99',
    'PMS change',
    'webhook commit',
    'live stream commit',
    'status list of all 50 facilities',
    '`/health` throughout',
    'memory per held long poll',
    'token issued',
    'token request',
    'long poll',
    'webhook delivery',
  ])
    assert.ok(text.includes(measure), measure);
  assert.equal(result.phases.map((p) => p.name).join(), 'storm,polls,batches,webhooks,full,upload,flood');
});
