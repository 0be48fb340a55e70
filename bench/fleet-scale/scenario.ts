// The fleet-scale scenario (issue 25): an operator's fleet on one machine, the service a real
// server process, its load from processes of its own (ipc.ts). `npm run bench -- fleet-scale`
// runs it at full size (bench/fleet-scale.ts); test/e2e/fleet-scale.test.ts runs it small, as a
// correctness test. The phases, one after another on one server:
//
//   onboarding  N facilities and their controllers' credentials over the admin API (a server of
//               its own, stopped after: the outage);
//   storm       the server back; every controller asks for a token at once (tokens' CPU);
//   polls       then every controller holds its long poll, nothing else (polls' CPU, memory held);
//   batches     + every controller reports a small batch every ~interval (batches' CPU);
//   webhooks    + 5 webhook receivers subscribed to the account's topics (gateway.events,
//               command.status, facility.status; deliveries' CPU), then drained;
//   full        + 100 live streams, PMS changes across the fleet, the status list sampled (every
//               latency of the report), then drained (the batches stop first, so a drain ends);
//   upload      + one facility uploading from 4 threads at once;
//   flood       + a valid token request during a flood of made-up client ids;
//   drain       every event of every phase since the subscriptions at every receiver.
// /health is sampled all along. The server's CPU (and PostgreSQL's backends') is read per phase
// from /proc; a kind's cost is its phase's CPU less the kinds under it, per request.
import fs from 'node:fs';
import pg from 'pg';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createTenancy } from '../../src/tenancy/index.ts';
import { runCli, startServerProcess, type ServerProcess } from '../../test/helpers/process.ts';
import { call, cpuMeter, cpuMs, inParallel } from '../load.ts';
import { count, eventKey, now, sleep, spread, type Spread, type Tally, addTallies } from './clock.ts';
import { type ControllerCounts, type Credential, freshCounts, type StormResult } from './controllers.ts';
import { startWorker, type Notice, type WorkerHandle } from './ipc.ts';
import { PmsDriver } from './pms.ts';
import type { FloodRound, Sample, UploadResult } from './probe.ts';
import { startWebhookReceiver } from './receivers.ts';
import type { StreamReport } from './streams.ts';

export interface FleetScaleOptions {
  facilities: number;
  /** The database's env (DATA_DIR, DATABASE_URL: '' for the embedded database). */
  databaseEnv: Record<string, string>;
  /** Another tree's bin/gatehouse (default: this tree's). */
  bin?: string;
  /** More server settings. */
  serverEnv?: Record<string, string>;
  /** Controller processes. */
  workers: number;
  batchSize: number;
  batchIntervalMs: number;
  pollWaitSeconds: number;
  stormSeconds: number;
  pollSeconds: number;
  batchSeconds: number;
  webhookSeconds: number;
  fullSeconds: number;
  receivers: number;
  streams: number;
  /** Stream arrivals are timed for one event in this many. */
  streamSample: number;
  pmsPerSecond: number;
  statusEveryMs: number;
  healthEveryMs: number;
  upload: { senders: number; batches: number; events: number };
  floodRounds: number;
  floodRequests: number;
  /** The longest wait for receivers, streams and commands to catch up. */
  drainSeconds: number;
  onboardConcurrency: number;
  /** Controllers keep their token and batch connection open between requests (ControllersInit). */
  keepPostsAlive: boolean;
  /** How long the server is left alone before its memory is read (fresh, after the storm): RSS settles. */
  settleMs: number;
  /**
   * Busy sandboxes beside the fleet (issue 30: they must cost it nothing measurable): each of another
   * account, a small facility whose controller the service itself simulates at the most activity a control
   * allows (an entry a second).
   */
  sandboxes: number;
}

/** The most keypad entries an hour a sandbox control allows (src/sandbox/controllers/rules.ts). */
const BUSY_SANDBOX_ACTIVITY = 3600;

export interface PhaseCpu {
  name: string;
  seconds: number;
  serverMs: number;
  databaseMs: number;
  loadMs: number;
  /** CPU busy time of the whole machine (every process: other work on a shared machine too). */
  machineMs: number;
  start: number;
  end: number;
}

export interface ReceiverResult {
  expected: number;
  missing: number;
  duplicateEvents: number;
  duplicateDeliveries: number;
  unexpected: number;
  rejected: number;
  deliveries: number;
  byType: Tally;
}

export interface FleetScaleResult {
  facilities: number;
  database: 'PostgreSQL' | 'embedded';
  onboarding: { seconds: number; perSecond: number };
  storm: {
    controllers: number;
    holding: number;
    /** Seconds from the storm's start until the last controller held a token (of those that did). */
    seconds: number;
    refusals: number;
    maxRefusals: number;
    /** Controllers refused more than twice. */
    refusedMoreThanTwice: number;
    statuses: Tally;
    errors: number;
  };
  flood: FloodRound[];
  batches: { sent: number; statuses: Tally; partial: number; errors: number; latency: Spread };
  acks: { sent: number; statuses: Tally; latency: Spread };
  polls: { answered: number; statuses: Tally; errors: number };
  upload: UploadResult & { latency: Spread };
  pms: {
    changes: number;
    statuses: Tally;
    refusals: string[];
    delivered: number;
    missing: number;
    latency: Spread;
  };
  webhooks: {
    receivers: ReceiverResult[];
    latency: Spread;
    webhookPhaseLatency: Spread;
    drained: boolean;
  };
  streams: {
    streams: number;
    expected: number;
    missing: number;
    duplicates: number;
    unexpected: number;
    latency: Spread;
    drained: boolean;
  };
  statusList: { samples: Spread; statuses: Tally; rows: number[] };
  health: { all: Spread; statuses: Tally; byPhase: { name: string; spread: Spread }[] };
  /** RSS: fresh; after the storm (tokens issued, no poll); with every poll held (median over the phase); the most in the full phase. */
  memory: { idleKiB: number; stormKiB: number; heldKiB: number; held: number; fullMaxKiB: number };
  phases: PhaseCpu[];
  counts: Record<string, ControllerCounts & { deliveries: number; streamEvents: number }>;
  serverExit: number | string | null;
}

type Log = (message: string) => void;

/** The resident memory of a process, KiB. */
function rssKiB(pid: number): number {
  const line = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? Number.NaN);
}

/** CPU ms the whole machine has been busy (all cores, /proc/stat; USER_HZ = 100). */
function machineBusyMs(): number {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const [user, nice, system, , , irq, softirq, steal] = fields as number[];
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 10;
}

/** `n` RSS readings, 500 ms apart. */
async function rssSamples(pid: number, n: number): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    values.push(rssKiB(pid));
    if (i < n - 1) await sleep(500);
  }
  return values;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function mergeCounts(all: ControllerCounts[]): ControllerCounts {
  const into = freshCounts();
  for (const c of all) {
    into.polls += c.polls;
    addTallies(into.pollStatuses, c.pollStatuses);
    into.pollErrors += c.pollErrors;
    into.commands += c.commands;
    into.batches += c.batches;
    addTallies(into.batchStatuses, c.batchStatuses);
    into.batchPartial += c.batchPartial;
    into.batchErrors += c.batchErrors;
    for (const ms of c.batchMs) into.batchMs.push(ms);
    into.acks += c.acks;
    addTallies(into.ackStatuses, c.ackStatuses);
    for (const ms of c.ackMs) into.ackMs.push(ms);
    into.tokenRequests += c.tokenRequests;
    addTallies(into.tokenStatuses, c.tokenStatuses);
  }
  return into;
}

async function until(condition: () => boolean | Promise<boolean>, ms: number, everyMs = 100): Promise<boolean> {
  const deadline = now() + ms;
  while (!(await condition())) {
    if (now() > deadline) return false;
    await sleep(everyMs);
  }
  return true;
}

const tokenForm = (credential: { clientId: string; clientSecret: string }) => ({
  grant_type: 'client_credentials',
  client_id: credential.clientId,
  client_secret: credential.clientSecret,
});

export async function runFleetScale(o: FleetScaleOptions, log: Log): Promise<FleetScaleResult> {
  const env: Record<string, string> = {
    ...o.databaseEnv,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    REDIS_URL: '',
    // Tokens outlive the run: a token's expiry in the middle would be a second storm.
    TOKEN_TTL_SECONDS: '86400',
    ...o.serverEnv,
  };
  const operatorApp = await operatorApplication(env, o.bin);

  // ---- Onboarding, over the admin API (the operator's bulk work: no per-caller rate limit) ----
  const streamKeys = Math.ceil(o.streams / 20); // EVENT_STREAMS_PER_CREDENTIAL's default: 20 streams a key
  let onboarded: Awaited<ReturnType<typeof onboard>>;
  {
    const first = await startServerProcess({ ...env, RATE_LIMIT_PER_MINUTE: '10000000' }, 120_000, {
      quiet: true,
      bin: o.bin,
    });
    try {
      onboarded = await onboard(first, operatorApp, o, streamKeys, log);
    } finally {
      await first.kill();
    }
  }

  // ---- The outage is over: the service starts again, with nothing remembered ----
  const receivers = await Promise.all(Array.from({ length: o.receivers }, startWebhookReceiver));
  const server = await startServerProcess(env, 120_000, { quiet: true, bin: o.bin });
  let serverExit: number | string | null = null;
  let stopping = false;
  void server.exited.then((code) => {
    serverExit = code;
    // Said at once: the phases after it would only wait for answers that cannot come.
    if (!stopping)
      log(`the server exited (${code}) in the middle of the run; its last output:\n${server.output().slice(-4000)}`);
  });
  const workers: WorkerHandle[] = [];
  let statsClient: pg.Client | null = null;
  let pms: PmsDriver | null = null;
  try {
    const pid = server.child.pid!;
    if (env.DATABASE_URL) {
      statsClient = new pg.Client({ connectionString: env.DATABASE_URL });
      await statsClient.connect();
    }
    const backendPids = statsClient
      ? async () =>
          (
            await statsClient!.query<{ pid: number }>(
              'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
            )
          ).rows.map((row) => row.pid)
      : null;

    // Commits (events stored, by key, in order) and commands seen (by change mark).
    const commits = new Map<string, number>();
    const keys: string[] = [];
    const marksSeen = new Map<string, number>();
    const onNotice = (notice: Notice) => {
      if (notice.type === 'commits')
        notice.seqs.forEach((seq, i) => {
          const key = eventKey(notice.source, seq);
          commits.set(key, notice.at[i]!);
          keys.push(key);
        });
      else
        notice.marks.forEach((mark, i) => {
          if (!marksSeen.has(mark)) marksSeen.set(mark, notice.at[i]!);
        });
    };

    const share = Math.ceil(onboarded.credentials.length / o.workers);
    const shares = Array.from({ length: o.workers }, (_, w) =>
      onboarded.credentials.slice(w * share, (w + 1) * share),
    ).filter((credentials) => credentials.length > 0);
    const uploadSource = shares.length;
    // Started together (each is a Node process loading TypeScript: seconds, one after another).
    const started = await Promise.allSettled([
      ...shares.map((credentials, w) =>
        startWorker('controllers', {
          baseUrl: server.url,
          source: w,
          credentials,
          firstIndex: w * share,
          addressBlock: 30,
          batchSize: o.batchSize,
          pollWaitSeconds: o.pollWaitSeconds,
          keepPostsAlive: o.keepPostsAlive,
        }),
      ),
      startWorker('probe', { baseUrl: server.url, source: uploadSource }),
      startWorker('streams', { sampleEvery: o.streamSample }),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') workers.push(outcome.value);
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    for (const worker of workers) worker.onNotice(onNotice);
    const controllers = workers.filter((w) => w.role === 'controllers');
    const probe = workers.find((w) => w.role === 'probe')!;
    const streamsWorker = workers.find((w) => w.role === 'streams')!;
    const each = <T>(command: string, args?: unknown) => Promise.all(controllers.map((w) => w.call<T>(command, args)));
    await probe.call('startHealth', { everyMs: o.healthEveryMs });

    // ---- Phases ----
    const phases: PhaseCpu[] = [];
    const counts: FleetScaleResult['counts'] = {};
    const loadPids = workers.map((w) => w.pid);
    const loadCpu = () => loadPids.reduce((n, p) => n + cpuMs(p), 0);
    const deliveriesBetween = (start: number, end: number) =>
      receivers.reduce((n, r) => n + r.deliveredAt.filter((at) => at >= start && at < end).length, 0);
    const streamTotal = async () =>
      (await streamsWorker.call<number[]>('progress')).reduce((n: number, x: number) => n + x, 0);
    async function phase(name: string, work: () => Promise<void>) {
      log(`${name}: begins`);
      const meter = cpuMeter(pid, backendPids);
      const load0 = loadCpu();
      const machine0 = machineBusyMs();
      const start = now();
      const streamed0 = await streamTotal();
      await work();
      const end = now();
      const cpu = await meter();
      phases.push({
        name,
        seconds: (end - start) / 1000,
        serverMs: cpu.server,
        databaseMs: cpu.database,
        loadMs: loadCpu() - load0,
        machineMs: machineBusyMs() - machine0,
        start,
        end,
      });
      counts[name] = {
        ...mergeCounts(await each<ControllerCounts>('counts')),
        deliveries: deliveriesBetween(start, end),
        streamEvents: (await streamTotal()) - streamed0,
      };
      log(
        `${name}: ${((end - start) / 1000).toFixed(1)} s, server CPU ${Math.round(cpu.server)} ms, database CPU ${Math.round(cpu.database)} ms`,
      );
    }
    const pollsHeld = async () => (await each<number>('pollsHeld')).reduce((n, x) => n + x, 0);

    // Idle: the service started, nothing connected.
    await sleep(o.settleMs);
    const idleKiB = median(await rssSamples(pid, o.settleMs > 0 ? 5 : 1));

    // Storm.
    let storm: StormResult[] = [];
    let stormStart = 0;
    await phase('storm', async () => {
      stormStart = now() + 500;
      storm = await each<StormResult>('storm', { startAt: stormStart, deadline: stormStart + o.stormSeconds * 1000 });
    });
    const stormTokenAt = storm.flatMap((s) => s.tokenAt);
    const stormRefusals = storm.flatMap((s) => s.refusals);
    const holding = stormTokenAt.filter((t) => !Number.isNaN(t)).length;
    log(`storm: ${holding} of ${onboarded.credentials.length} controllers hold a token`);

    // The service as the storm left it, then every poll held, nothing else.
    await sleep(o.settleMs);
    const stormKiB = median(await rssSamples(pid, o.settleMs > 0 ? 5 : 1));
    await each('startPolls');
    const rss: number[] = [];
    await until(async () => (await pollsHeld()) >= holding, 30_000, 250);
    let held = 0;
    await phase('polls', async () => {
      const end = now() + o.pollSeconds * 1000;
      while (now() < end) {
        rss.push(rssKiB(pid));
        held = Math.max(held, await pollsHeld());
        await sleep(Math.min(1000, end - now()));
      }
    });
    const heldKiB = median(rss);

    const batchesFor = async (seconds: number, during?: () => Promise<void>) => {
      await each('startBatches', { intervalMs: o.batchIntervalMs });
      const end = now() + seconds * 1000;
      await during?.();
      await sleep(end - now());
      await each('stopBatches');
    };

    // Batches.
    await phase('batches', () => batchesFor(o.batchSeconds));

    // Webhooks: every receiver subscribed to every topic of the account.
    const pmsCall = (path: string, body: unknown) =>
      call(`${server.url}${path}`, { method: 'POST', token: onboarded.pmsToken(), body });
    await onboarded.login(server.url);
    for (const receiver of receivers) {
      const subscription = await pmsCall('/webhooks/subscriptions', {
        url: receiver.url,
        topics: ['gateway.events', 'command.status', 'facility.status'],
        description: 'fleet-scale receiver',
      });
      receiver.verifyWith(subscription.secret);
    }
    const webhookFrom = keys.length;
    let webhookTo = 0;
    /** Whether every receiver has every event of keys[from, to) (each receiver's scan resumes where it stopped). */
    const receiversHave = (from: number, to: number) => {
      const at = receivers.map(() => from);
      return () =>
        receivers.every((r, j) => {
          while (at[j]! < to && r.arrivals.has(keys[at[j]!]!)) at[j]!++;
          return at[j]! >= to;
        });
    };
    await phase('webhooks', async () => {
      await batchesFor(o.webhookSeconds);
      webhookTo = keys.length;
      if (!(await until(receiversHave(webhookFrom, webhookTo), o.drainSeconds * 1000, 250)))
        log('webhooks: the receivers did not catch up within the drain limit');
    });

    // Full: + streams, PMS changes, the status list.
    const streamUrl = `${server.url}/gatewayevents/accounts/${onboarded.accountId}/stream`;
    await streamsWorker.call('open', {
      streams: Array.from({ length: o.streams }, (_, i) => ({
        url: streamUrl,
        token: onboarded.streamTokens[Math.floor(i / 20)]!,
      })),
    });
    const fullFrom = keys.length;
    let fullTo = 0;
    let streamsDrained = false;
    let statusList: { samples: Sample[]; rows: number[] } = { samples: [], rows: [] };
    const tokenHolders = onboarded.credentials.filter((_, i) => !Number.isNaN(stormTokenAt[i]!));
    pms = new PmsDriver(
      server.url,
      onboarded.pmsToken(),
      tokenHolders.map((c) => c.facilityId),
    );
    const driver = pms;
    let fullRss = 0;
    await phase('full', async () => {
      await batchesFor(o.fullSeconds, async () => {
        driver.start(o.pmsPerSecond);
        await probe.call('startStatusList', { everyMs: o.statusEveryMs, token: onboarded.pmsToken() });
        const end = now() + o.fullSeconds * 1000;
        while (now() < end) {
          fullRss = Math.max(fullRss, rssKiB(pid));
          await sleep(Math.min(1000, end - now()));
        }
        await driver.stop();
        statusList = await probe.call('stopStatusList');
        // Every change's command at its controller (and acknowledged) before the batches stop.
        if (!(await until(() => [...driver.changes.keys()].every((m) => marksSeen.has(m)), o.drainSeconds * 1000)))
          log('full: some commands did not reach their controller within the drain limit');
      });
      fullTo = keys.length;
      const expectedStreamEvents = fullTo - fullFrom;
      streamsDrained = await until(
        async () => (await streamsWorker.call<number[]>('progress')).every((n: number) => n >= expectedStreamEvents),
        o.drainSeconds * 1000,
        250,
      );
      if (!streamsDrained) log('full: the streams did not catch up within the drain limit');
      if (!(await until(receiversHave(fullFrom, fullTo), o.drainSeconds * 1000, 250)))
        log('full: the receivers did not catch up within the drain limit');
    });
    const expected: Record<number, number[]> = {};
    for (let i = fullFrom; i < fullTo; i++) {
      const [source, seq] = keys[i]!.slice(1).split('-').map(Number) as [number, number];
      const seqs = expected[source] ?? [];
      seqs.push(seq);
      expected[source] = seqs;
    }
    const streamReports = await streamsWorker.call<StreamReport[]>('report', { expected });
    await streamsWorker.call('close');

    // One facility uploading from several threads, the fleet going on.
    const uploader = onboarded.credentials[0]!;
    const uploadToken = (await call(`${server.url}/auth/token`, { method: 'POST', form: tokenForm(uploader) }))
      .access_token as string;
    let upload: UploadResult | null = null;
    await phase('upload', async () => {
      await each('startBatches', { intervalMs: o.batchIntervalMs });
      upload = await probe.call<UploadResult>('upload', { token: uploadToken, ...o.upload });
      await each('stopBatches');
    });

    // A valid token request during a flood of made-up client ids, the fleet going on.
    const flood: FloodRound[] = [];
    await phase('flood', async () => {
      await each('startBatches', { intervalMs: o.batchIntervalMs });
      for (let round = 0; round < o.floodRounds; round++) {
        flood.push(
          await probe.call<FloodRound>('flood', {
            requests: o.floodRequests,
            block: 60 + round,
            valid: tokenForm(onboarded.spare[round]!),
            cached: tokenForm(onboarded.credentials[1 % onboarded.credentials.length]!),
          }),
        );
        await sleep(1000);
      }
      await each('stopBatches');
    });

    // Every event since the subscriptions, at every receiver.
    const allTo = keys.length;
    const webhooksDrained = await until(receiversHave(webhookFrom, allTo), o.drainSeconds * 1000, 250);
    if (!webhooksDrained) log('drain: the receivers did not get every event within the drain limit');
    // A moment more: a duplicate sent late is still counted.
    await sleep(1000);
    const healthSamples = await probe.call<Sample[]>('stopHealth');

    // ---- Figures ----
    const expectedKeys = new Set(keys.slice(webhookFrom, allTo));
    const receiverResults: ReceiverResult[] = receivers.map((r) => {
      let missing = 0;
      for (const key of expectedKeys) if (!r.arrivals.has(key)) missing++;
      let unexpected = 0;
      for (const key of r.arrivals.keys()) if (!expectedKeys.has(key)) unexpected++;
      return {
        expected: expectedKeys.size,
        missing,
        duplicateEvents: r.duplicateEvents,
        duplicateDeliveries: r.duplicateDeliveries,
        unexpected,
        rejected: r.rejected,
        deliveries: r.deliveredAt.length,
        byType: r.byType,
      };
    });
    const webhookLatency = (from: number, to: number) => {
      const values: number[] = [];
      for (const r of receivers)
        for (let i = from; i < to; i++) {
          const arrived = r.arrivals.get(keys[i]!);
          if (arrived !== undefined) values.push(arrived - commits.get(keys[i]!)!);
        }
      return spread(values);
    };
    const streamLatencies: number[] = [];
    for (const report of streamReports)
      report.sampleKeys.forEach((key, i) => {
        const committed = commits.get(key);
        if (committed !== undefined) streamLatencies.push(report.sampleAt[i]! - committed);
      });
    const pmsLatencies: number[] = [];
    let pmsMissing = 0;
    for (const [mark, change] of driver.changes) {
      const seen = marksSeen.get(mark);
      if (seen === undefined) pmsMissing++;
      else pmsLatencies.push(seen - change.answeredAt);
    }
    const all = mergeCounts(Object.values(counts));
    const healthByPhase = phases.map((p) => ({
      name: p.name,
      spread: spread(healthSamples.filter((s) => s.at >= p.start && s.at < p.end).map((s) => s.ms)),
    }));
    const healthStatuses: Tally = {};
    for (const s of healthSamples) count(healthStatuses, s.status);
    const statusStatuses: Tally = {};
    for (const s of statusList.samples) count(statusStatuses, s.status);
    const stormEnd = Math.max(...stormTokenAt.filter((t) => !Number.isNaN(t)));
    const finishedUpload = upload as UploadResult | null;
    if (!finishedUpload) throw new Error('the upload phase did not run');

    return {
      facilities: o.facilities,
      database: env.DATABASE_URL ? 'PostgreSQL' : 'embedded',
      onboarding: onboarded.timing,
      storm: {
        controllers: onboarded.credentials.length,
        holding,
        seconds: (stormEnd - stormStart) / 1000,
        refusals: stormRefusals.reduce((n, x) => n + x, 0),
        maxRefusals: Math.max(0, ...stormRefusals),
        refusedMoreThanTwice: stormRefusals.filter((n) => n > 2).length,
        statuses: storm.reduce((t, s) => addTallies(t, s.statuses), {} as Tally),
        errors: storm.reduce((n, s) => n + s.errors, 0),
      },
      flood,
      batches: {
        sent: all.batches,
        statuses: all.batchStatuses,
        partial: all.batchPartial,
        errors: all.batchErrors,
        latency: spread(all.batchMs),
      },
      acks: { sent: all.acks, statuses: all.ackStatuses, latency: spread(all.ackMs) },
      polls: { answered: all.polls, statuses: all.pollStatuses, errors: all.pollErrors },
      upload: { ...finishedUpload, latency: spread(finishedUpload.ms) },
      pms: {
        changes: driver.changes.size,
        statuses: driver.statuses,
        refusals: driver.refusals,
        delivered: driver.changes.size - pmsMissing,
        missing: pmsMissing,
        latency: spread(pmsLatencies),
      },
      webhooks: {
        receivers: receiverResults,
        latency: webhookLatency(fullFrom, fullTo),
        webhookPhaseLatency: webhookLatency(webhookFrom, webhookTo),
        drained: webhooksDrained,
      },
      streams: {
        streams: streamReports.length,
        expected: fullTo - fullFrom,
        missing: streamReports.reduce((n, r) => n + r.missing, 0),
        duplicates: streamReports.reduce((n, r) => n + r.duplicates, 0),
        unexpected: streamReports.reduce((n, r) => n + r.unexpected, 0),
        latency: spread(streamLatencies),
        drained: streamsDrained,
      },
      statusList: {
        samples: spread(statusList.samples.map((s) => s.ms)),
        statuses: statusStatuses,
        rows: statusList.rows,
      },
      health: { all: spread(healthSamples.map((s) => s.ms)), statuses: healthStatuses, byPhase: healthByPhase },
      memory: { idleKiB, stormKiB, heldKiB, held, fullMaxKiB: fullRss },
      phases,
      counts,
      serverExit,
    };
  } finally {
    await pms?.close();
    for (const worker of workers.reverse()) await worker.stop().catch(() => {});
    await statsClient?.end().catch(() => {});
    stopping = true;
    await server.kill();
    for (const receiver of receivers) await receiver.close();
  }
}

/**
 * The operator's application (what `gatehouse admin app create --operator` makes), on a migrated
 * database: made here (two command-line processes fewer), or with another tree's command line.
 */
async function operatorApplication(env: Record<string, string>, bin: string | undefined) {
  if (bin) {
    for (const args of [['migrate'], ['admin', 'app', 'create', '--name', 'Fleet operator', '--operator']]) {
      const done = await runCli(args, env, 120_000, bin);
      if (done.code !== 0) throw new Error(`gatehouse ${args.join(' ')}: ${done.stderr}`);
      if (args[0] === 'admin') return JSON.parse(done.stdout) as { clientId: string; clientSecret: string };
    }
  }
  const database = await openDatabase(loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' }), {
    role: 'owner',
    command: 'bench',
  });
  try {
    await migrate(database.pool);
    return await createTenancy(database.db).createApplication({ name: 'Fleet operator', operator: true });
  } finally {
    await database.close();
  }
}

/**
 * The operator's onboarding over the admin API: one account, a PMS with account keys (one for the
 * changes and subscriptions, one per 20 streams), and per facility the facility and its
 * controller's credentials; spare controller credentials of the first facility (never used before
 * the flood: their secrets are not remembered).
 */
async function onboard(
  server: ServerProcess,
  operatorApp: { clientId: string; clientSecret: string },
  o: FleetScaleOptions,
  streamKeys: number,
  log: Log,
) {
  const operator = (await call(`${server.url}/auth/token`, { method: 'POST', form: tokenForm(operatorApp) }))
    .access_token as string;
  const pool = new Pool(server.url, { connections: o.onboardConcurrency, pipelining: 1 });
  const admin = async (path: string, body: unknown) => {
    const response = await pool.request({
      path,
      method: 'POST',
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 201) throw new Error(`${path}: ${response.statusCode} ${text}`);
    return JSON.parse(text);
  };
  try {
    const account = await admin('/admin/accounts', { name: 'Fleet Storage' });
    const pmsApp = await admin('/admin/applications', { name: 'Fleet PMS' });
    const keys: { apiKey: string; apiSecret: string }[] = [];
    for (let i = 0; i <= streamKeys; i++)
      keys.push(await admin('/admin/account-keys', { accountId: account.id, clientId: pmsApp.clientId }));
    log(`onboarding: ${o.facilities} facilities and their controllers over the admin API`);
    const began = now();
    let done = 0;
    const credentials: Credential[] = await inParallel(
      Array.from({ length: o.facilities }),
      o.onboardConcurrency,
      async (_, i) => {
        const facility = await admin('/admin/facilities', {
          accountId: account.id,
          name: `Site ${i + 1}`,
          timeZone: 'America/Denver',
        });
        const gateway = await admin('/admin/gateways', { facilityId: facility.id });
        if (++done % 1000 === 0) log(`onboarding: ${done} facilities`);
        return { facilityId: facility.id, clientId: gateway.clientId, clientSecret: gateway.clientSecret };
      },
    );
    const seconds = (now() - began) / 1000;
    const spare: { clientId: string; clientSecret: string }[] = [];
    for (let i = 0; i < o.floodRounds; i++)
      spare.push(await admin('/admin/gateways', { facilityId: credentials[0]!.facilityId }));
    // Busy sandboxes of the fleet's account, made by the operator for its PMS application.
    const sandboxes: { key: { apiKey: string; apiSecret: string }; facilityId: number }[] = [];
    for (let i = 0; i < o.sandboxes; i++) {
      const created = await admin(`/admin/accounts/${account.id}/sandboxes`, {
        name: `Busy ${i + 1}`,
        clientId: pmsApp.clientId,
        facilities: ['small'],
      });
      sandboxes.push({ key: created.credentials.accountKey, facilityId: created.facilities[0].id });
    }
    const tokens: string[] = [];
    const password = (key: { apiKey: string; apiSecret: string }) => ({
      grant_type: 'password',
      client_id: pmsApp.clientId,
      client_secret: pmsApp.clientSecret,
      username: key.apiKey,
      password: key.apiSecret,
    });
    const result = {
      accountId: account.id as number,
      credentials,
      spare,
      timing: { seconds, perSecond: o.facilities / seconds },
      streamTokens: [] as string[],
      pmsToken: () => tokens[0]!,
      /** Tokens of the PMS's keys from the server of the moment (after the outage). */
      async login(baseUrl: string) {
        tokens.length = 0;
        result.streamTokens.length = 0;
        for (const [i, key] of keys.entries()) {
          const token = (await call(`${baseUrl}/auth/token`, { method: 'POST', form: password(key) }))
            .access_token as string;
          if (i === 0) tokens.push(token);
          else result.streamTokens.push(token);
        }
        // The sandboxes in use (a token each) and busy: their controllers run on this server from its next claim.
        for (const sandbox of sandboxes) {
          const token = (await call(`${baseUrl}/auth/token`, { method: 'POST', form: password(sandbox.key) }))
            .access_token as string;
          await call(`${baseUrl}/sandbox/facilities/${sandbox.facilityId}/controller/activity`, {
            method: 'PUT',
            token,
            body: { activityPerHour: BUSY_SANDBOX_ACTIVITY },
          });
        }
      },
    };
    return result;
  } finally {
    await pool.close();
  }
}
