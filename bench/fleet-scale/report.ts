// The fleet-scale benchmark's figures as Markdown: each beside issue 25's target, then the CPU of
// each phase and the service's CPU per request kind (a kind's phase less the kinds under it).
import { type Spread, spread, type Tally } from './clock.ts';
import type { FleetScaleOptions, FleetScaleResult, PhaseCpu } from './scenario.ts';

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const ms = (n: number) =>
  !Number.isFinite(n) ? '—' : n < 10 ? `${n.toFixed(1)} ms` : n < 10_000 ? `${f0(n)} ms` : `${(n / 1000).toFixed(1)} s`;
const tally = (t: Tally) =>
  Object.entries(t)
    .map(([key, n]) => `${f0(n)}× ${key}`)
    .join(', ') || 'none';
/** A cost per request: none when there were no requests; below zero, within the noise of the subtraction. */
const cost = (n: number) => (!Number.isFinite(n) ? '—' : n < 0 ? '≈ 0 (below the noise)' : n.toFixed(2));
const verdict = (met: boolean) => (met ? 'met' : '**not met**');
const p50p99 = (s: Spread) => `p50 ${ms(s.p50)}, p99 ${ms(s.p99)} (n ${f0(s.n)})`;

export interface KindCost {
  kind: string;
  phase: string;
  requests: number;
  serverMs: number;
  databaseMs: number;
  how: string;
}

/** The service's CPU per request of each kind, from the phases where it dominates. */
export function costPerKind(r: FleetScaleResult): KindCost[] {
  const phase = (name: string) => r.phases.find((p) => p.name === name) as PhaseCpu;
  const c = r.counts;
  const storm = phase('storm');
  const polls = phase('polls');
  const batches = phase('batches');
  const webhooks = phase('webhooks');
  const full = phase('full');
  const pollRate = { server: polls.serverMs / polls.seconds, database: polls.databaseMs / polls.seconds };
  const tokens = c.storm!.tokenRequests;
  const perBatch = {
    server: (batches.serverMs - pollRate.server * batches.seconds) / c.batches!.batches,
    database: (batches.databaseMs - pollRate.database * batches.seconds) / c.batches!.batches,
  };
  const posts = (name: string) => c[name]!.batches + c[name]!.acks;
  const perDelivery = {
    server:
      (webhooks.serverMs - pollRate.server * webhooks.seconds - perBatch.server * posts('webhooks')) /
      c.webhooks!.deliveries,
    database:
      (webhooks.databaseMs - pollRate.database * webhooks.seconds - perBatch.database * posts('webhooks')) /
      c.webhooks!.deliveries,
  };
  const rest = {
    server:
      full.serverMs -
      pollRate.server * full.seconds -
      perBatch.server * posts('full') -
      perDelivery.server * c.full!.deliveries,
    database:
      full.databaseMs -
      pollRate.database * full.seconds -
      perBatch.database * posts('full') -
      perDelivery.database * c.full!.deliveries,
  };
  const issued = c.storm!.tokenStatuses['200'] ?? 0;
  return [
    {
      kind: 'token issued (client_credentials, secret not remembered)',
      phase: 'storm',
      requests: issued,
      serverMs: storm.serverMs / issued,
      databaseMs: storm.databaseMs / issued,
      how: "the storm's CPU / tokens issued (the refusals' CPU included)",
    },
    {
      kind: 'token request (any answer)',
      phase: 'storm',
      requests: tokens,
      serverMs: storm.serverMs / tokens,
      databaseMs: storm.databaseMs / tokens,
      how: "the storm's CPU / token requests (200, 503…)",
    },
    {
      kind: 'long poll (answered empty at its wait, or with commands)',
      phase: 'polls',
      requests: c.polls!.polls,
      serverMs: polls.serverMs / c.polls!.polls,
      databaseMs: polls.databaseMs / c.polls!.polls,
      how: `the phase's CPU / polls answered; holding ${f0(r.memory.held)} polls costs ${f0(pollRate.server)} ms/s of server CPU`,
    },
    {
      kind: `batch (${'POST /gateway/v1/events'})`,
      phase: 'batches',
      requests: c.batches!.batches,
      serverMs: perBatch.server,
      databaseMs: perBatch.database,
      how: "(the phase's CPU − the polls' rate × its seconds) / batches",
    },
    {
      kind: 'webhook delivery (one POST to a receiver)',
      phase: 'webhooks',
      requests: c.webhooks!.deliveries,
      serverMs: perDelivery.server,
      databaseMs: perDelivery.database,
      how: "(the phase's CPU − polls − its batches and acknowledgements × the batch's cost) / deliveries received",
    },
    {
      kind: 'stream event (+ PMS changes and status lists of the phase)',
      phase: 'full',
      requests: c.full!.streamEvents,
      serverMs: rest.server / c.full!.streamEvents,
      databaseMs: rest.database / c.full!.streamEvents,
      how: `what the full phase costs beyond polls, batches and deliveries (${f0(rest.server / full.seconds)} ms/s of server CPU), / events streamed`,
    },
  ];
}

export function renderFleetScale(r: FleetScaleResult, o: FleetScaleOptions, machineLine: string): string {
  const pg = r.database === 'PostgreSQL';
  const stormTarget = pg ? (r.facilities <= 2000 ? 10 : 30) : 20;
  const flooded = r.flood.map((round) => round.valid.ms).sort((a, b) => a - b);
  const floodMedian = flooded[Math.floor(flooded.length / 2)] ?? Number.NaN;
  const floodOk = r.flood.every((round) => round.valid.status === 200);
  const ok = (t: Tally) => t['200'] ?? 0;
  const batchesOk = ok(r.batches.statuses) - r.batches.partial;
  const uploadsOk = ok(r.upload.statuses) - r.upload.partial;
  const allBatchesOk =
    batchesOk === r.batches.sent &&
    r.batches.errors === 0 &&
    uploadsOk === r.upload.batches &&
    r.upload.errors === 0 &&
    ok(r.acks.statuses) === r.acks.sent;
  const receivers = r.webhooks.receivers;
  const missing = receivers.reduce((n, x) => n + x.missing, 0);
  const dupEvents = receivers.reduce((n, x) => n + x.duplicateEvents, 0);
  const dupDeliveries = receivers.reduce((n, x) => n + x.duplicateDeliveries, 0);
  const exactlyOnce = missing === 0 && dupEvents === 0 && dupDeliveries === 0;
  const memoryPerPoll = ((r.memory.heldKiB - r.memory.stormKiB) * 1024) / Math.max(1, r.memory.held);
  const worstHealth = [...r.health.byPhase].sort((a, b) => (b.spread.p99 || 0) - (a.spread.p99 || 0))[0];
  const rows = [
    [
      'onboarding over the admin API',
      '—',
      `${r.onboarding.perSecond.toFixed(1)} facilities+controllers/s (${f0(r.facilities)} in ${r.onboarding.seconds.toFixed(0)} s)`,
      '',
    ],
    [
      'reconnect storm: every controller holds a token',
      `≤ ${stormTarget} s, no controller refused more than twice`,
      `${f0(r.storm.holding)} of ${f0(r.storm.controllers)} after ${r.storm.seconds.toFixed(1)} s; ${f0(r.storm.refusals)} refusals (503), at most ${r.storm.maxRefusals} for one controller, ${f0(r.storm.refusedMoreThanTwice)} refused more than twice; never: ${f0(r.storm.controllers - r.storm.holding)} (answers: ${tally(r.storm.statuses)}; connection errors ${r.storm.errors})`,
      verdict(
        r.storm.holding === r.storm.controllers && r.storm.seconds <= stormTarget && r.storm.refusedMoreThanTwice === 0,
      ),
    ],
    [
      `a valid token during a ${o.floodRequests}-request flood of made-up client ids`,
      '< 1 s',
      `median ${ms(floodMedian)}, max ${ms(Math.max(...flooded))} over ${r.flood.length} rounds (${r.flood.map((x) => x.valid.status).join(', ')}); a remembered controller: ${r.flood.map((x) => ms(x.cached.ms)).join(', ')}; floods answered ${r.flood.map((x) => tally(x.flood.statuses)).join(' / ')}`,
      verdict(floodOk && Math.max(...flooded) < 1000),
    ],
    [
      'valid batches answered 200',
      `100 %, including ${o.upload.senders} concurrent senders on one facility`,
      `fleet ${f0(batchesOk)} of ${f0(r.batches.sent)} (${tally(r.batches.statuses)}; partial ${r.batches.partial}, connection errors ${r.batches.errors}); acknowledgements ${f0(ok(r.acks.statuses))} of ${f0(r.acks.sent)}; ${o.upload.senders} senders × ${o.upload.batches} batches of ${o.upload.events} on one facility: ${f0(uploadsOk)} of ${f0(r.upload.batches)} (${tally(r.upload.statuses)}; ${ms(r.upload.latency.p50)} / ${ms(r.upload.latency.p99)})${r.upload.refusals.length ? `; refused: ${r.upload.refusals.map((x) => `\`${x.slice(0, 160)}\``).join('; ')}` : ''}`,
      verdict(allBatchesOk),
    ],
    ['batch acknowledged, p99', '≤ 250 ms', p50p99(r.batches.latency), verdict(r.batches.latency.p99 <= 250)],
    [
      'PMS change → the controller has the command',
      'p99 ≤ 1 s',
      `${p50p99(r.pms.latency)}, from the change's answer to the poll's answer at the controller; ${f0(r.pms.changes)} changes at ${o.pmsPerSecond}/s (${tally(r.pms.statuses)}), ${f0(r.pms.missing)} never seen`,
      verdict(r.pms.latency.p99 <= 1000 && r.pms.missing === 0),
    ],
    [
      `webhook commit → receiver (${receivers.length} receivers)`,
      '≤ 100 ms / ≤ 500 ms, every event exactly once to every receiver',
      `${p50p99(r.webhooks.latency)} (the webhooks phase, without streams and PMS changes: ${p50p99(r.webhooks.webhookPhaseLatency)}); ${f0(receivers[0]?.expected ?? 0)} events × ${receivers.length}: missing ${f0(missing)}, repeated events ${f0(dupEvents)}, repeated webhook-ids ${f0(dupDeliveries)}; deliveries ${receivers.map((x) => f0(x.deliveries)).join(' / ')} (${tally(receivers[0]?.byType ?? {})} at the first)`,
      verdict(r.webhooks.latency.p50 <= 100 && r.webhooks.latency.p99 <= 500 && exactlyOnce),
    ],
    [
      `live stream commit → event (${r.streams.streams} streams)`,
      'p99 ≤ 250 ms',
      `${p50p99(r.streams.latency)} (one event in ${o.streamSample} timed); ${f0(r.streams.expected)} events × ${r.streams.streams}: missing ${f0(r.streams.missing)}, repeated ${f0(r.streams.duplicates)}`,
      verdict(r.streams.latency.p99 <= 250 && r.streams.missing === 0 && r.streams.duplicates === 0),
    ],
    [
      `status list of all ${f0(r.facilities)} facilities`,
      'p50 ≤ 500 ms',
      `${p50p99(r.statusList.samples)} (${tally(r.statusList.statuses)}; rows ${[...new Set(r.statusList.rows)].join(', ')})`,
      verdict(r.statusList.samples.p50 <= 500),
    ],
    [
      '`/health` throughout',
      'p99 ≤ 100 ms',
      `p50 ${ms(r.health.all.p50)}, p99 ${ms(r.health.all.p99)}, max ${ms(r.health.all.max)} (n ${f0(r.health.all.n)}; worst phase: ${worstHealth?.name} p99 ${ms(worstHealth?.spread.p99 ?? Number.NaN)})`,
      verdict(r.health.all.p99 <= 100),
    ],
    [
      'memory per held long poll',
      '≤ 25 KB above the idle service',
      `${(memoryPerPoll / 1024).toFixed(1)} KiB (RSS: ${f0(r.memory.idleKiB / 1024)} MiB fresh, ${f0(r.memory.stormKiB / 1024)} MiB after the storm with no poll, ${f0(r.memory.heldKiB / 1024)} MiB with ${f0(r.memory.held)} polls held; ${f0(r.memory.fullMaxKiB / 1024)} MiB at most in the full phase)`,
      verdict(memoryPerPoll <= 25 * 1000),
    ],
  ];
  const phaseRows = r.phases.map((p) => {
    const c = r.counts[p.name]!;
    const health = r.health.byPhase.find((h) => h.name === p.name)!.spread;
    const batch = spread(c.batchMs);
    const other = p.machineMs - p.serverMs - p.databaseMs - p.loadMs;
    return `| ${p.name} | ${p.seconds.toFixed(1)} | ${f0(p.serverMs / p.seconds)} | ${pg ? f0(p.databaseMs / p.seconds) : 'in the server'} | ${f0(p.loadMs / p.seconds)} | ${f0(other / p.seconds)} | ${f0(c.tokenRequests)} | ${f0(c.polls)} | ${f0(c.batches)} | ${batch.n ? `${ms(batch.p50)} / ${ms(batch.p99)}` : '—'} | ${f0(c.acks)} | ${f0(c.deliveries)} | ${f0(c.streamEvents)} | ${ms(health.p99)} |`;
  });
  const kindRows = costPerKind(r).map(
    (k) =>
      `| ${k.kind} | ${k.phase} | ${f0(k.requests)} | ${cost(k.serverMs)} | ${pg ? cost(k.databaseMs) : 'in the server'} | ${k.how} |`,
  );
  return `Fleet at scale (issue 25), ${r.database}, ${f0(r.facilities)} facilities of one account; the server a real process, the load from ${o.workers} controller processes, a stream process and a probe process (${machineLine}). Each controller from an address of its own, a batch of ${o.batchSize} events every ~${o.batchIntervalMs / 1000} s, long polls of ${o.pollWaitSeconds} s; phases of ${o.pollSeconds} / ${o.batchSeconds} / ${o.webhookSeconds} / ${o.fullSeconds} s (polls / batches / webhooks / full).${o.sandboxes > 0 ? ` Beside the fleet, ${o.sandboxes} busy sandboxes of its account (each a small facility whose controller the service simulates at an entry a second).` : ''}${r.serverExit !== null ? ` **The server exited (${r.serverExit}) during the run.**` : ''}

| measure | target (issue 25) | measured | |
|---|---|---|---|
${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}

CPU by phase (ms of CPU per second of the phase; 1,000 = one core; "load" is the benchmark's own processes, "other" everything else on the machine — other work on a shared machine):

| phase | s | server | database | load | other | token requests | polls answered | batches | batch p50 / p99 | acks | webhook deliveries | stream events | /health p99 |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${phaseRows.join('\n')}

The service's CPU per request kind:

| kind | phase | requests | server CPU ms / request | database CPU ms / request | how |
|---|---|---|---|---|---|
${kindRows.join('\n')}`;
}
