// `gatehouse simulate --url <service> …`: simulated gateway controllers against a running service.
import fs from 'node:fs';
import { Command, Option } from 'commander';
import { CliError, printJson } from './support.ts';
import type { Credential } from '../simulator/client.ts';
import { type DriftPlan, parseDriftPlan } from '../simulator/drift.ts';
import { DEFAULT_OPTIONS, Simulator, type SimulatorOptions } from '../simulator/simulator.ts';

function parseCredential(text: string): Credential {
  const at = text.indexOf(':');
  if (at <= 0 || at === text.length - 1)
    throw new CliError(`--gateway needs clientId:clientSecret, got "${text.slice(0, 12)}…"`);
  return { clientId: text.slice(0, at), clientSecret: text.slice(at + 1) };
}

function readCredentialsFile(file: string): Credential[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`--gateways-file ${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : [];
  const credentials = list.filter(
    (c): c is Credential => typeof c?.clientId === 'string' && typeof c?.clientSecret === 'string',
  );
  if (credentials.length === 0 || credentials.length !== list.length)
    throw new CliError(`--gateways-file ${file}: must be a JSON array of {"clientId", "clientSecret"}`);
  return credentials;
}

function number(name: string, min: number, max: number) {
  return (text: string) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || value > max)
      throw new CliError(`${name} must be a number from ${min} to ${max}, got "${text}"`);
    return value;
  };
}

interface Options {
  url: string;
  gateway: Credential[];
  gatewaysFile?: string;
  rate: number;
  wrongCodeShare: number;
  doorAlarms: number;
  deviceDrops: number;
  healthInterval: number;
  batchSize: number;
  flushMs: number;
  wait: number;
  digestInterval: number;
  driftRate: number;
  drift?: DriftPlan;
  failRate: number;
  duration: number;
  seed: number;
  json: boolean;
  quiet: boolean;
}

/**
 * Runs a simulator until `durationSeconds` pass (0: until SIGINT/SIGTERM), or at once when every
 * controller's credential was refused and nothing ever worked; shows progress on stderr, and each
 * kind of failure, in words, on a line of its own the first time it happens.
 */
export async function runSimulator(
  simulator: Simulator,
  options: { durationSeconds: number; quiet: boolean; stream?: NodeJS.WriteStream; onStart?: () => void },
): Promise<ReturnType<Simulator['summary']>> {
  const stream = options.stream ?? process.stderr;
  const live = stream.isTTY === true;
  let lastPrinted = 0;
  simulator.onProblem = (sentence) => {
    if (options.quiet) return;
    stream.write(`${live ? '\r\x1b[K' : ''}gatehouse: ${sentence}\n`);
  };
  simulator.start();
  options.onStart?.();
  const show = (final = false) => {
    if (options.quiet) return;
    const line = simulator.progressLine();
    if (live) stream.write(`\r\x1b[K${line}${final ? '\n' : ''}`);
    else if (final || Date.now() - lastPrinted >= 5000) {
      stream.write(`${line}\n`);
      lastPrinted = Date.now();
    }
  };
  const progress = setInterval(show, live ? 500 : 1000);
  await new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      clearTimeout(timer);
      clearInterval(watch);
      resolve();
    };
    const timer = options.durationSeconds > 0 ? setTimeout(done, options.durationSeconds * 1000) : undefined;
    const watch = setInterval(() => simulator.hopeless && done(), 200);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  const summary = await simulator.stop();
  clearInterval(progress);
  show(true);
  return summary;
}

export function simulatorCommand(): Command {
  return new Command('simulate')
    .description(
      'Simulated gateway controllers: each long-polls its facility’s commands, applies and acknowledges them, and reports keypad, door, device, open-hours and health events.',
    )
    .requiredOption('--url <service>', 'base URL of the service, e.g. http://localhost:8080')
    .addOption(
      new Option('--gateway <clientId:clientSecret>', 'a facility’s gateway credential (repeat for more facilities)')
        .argParser((v: string, all: Credential[] = []) => [...all, parseCredential(v)])
        .default([]),
    )
    .option('--gateways-file <file>', 'JSON array of {"clientId","clientSecret"} (keeps secrets off the command line)')
    .option(
      '--rate <perMinute>',
      'codes typed per minute at each facility',
      number('--rate', 0, 60_000),
      DEFAULT_OPTIONS.entriesPerMinute,
    )
    .option(
      '--wrong-code-share <0-1>',
      'share of attempts with a code nobody has',
      number('--wrong-code-share', 0, 1),
      DEFAULT_OPTIONS.wrongCodeShare,
    )
    .option(
      '--door-alarms <perHour>',
      'unit doors opened without a grant, per hour and facility',
      number('--door-alarms', 0, 36_000),
      DEFAULT_OPTIONS.doorAlarmsPerHour,
    )
    .option(
      '--device-drops <perHour>',
      'devices going offline, per hour and facility',
      number('--device-drops', 0, 36_000),
      DEFAULT_OPTIONS.deviceDropsPerHour,
    )
    .option(
      '--health-interval <seconds>',
      'seconds between health reports (event 5)',
      number('--health-interval', 1, 86_400),
      DEFAULT_OPTIONS.healthIntervalSeconds,
    )
    .option('--batch-size <n>', 'events per batch (1–1000)', number('--batch-size', 1, 1000), DEFAULT_OPTIONS.batchSize)
    .option(
      '--flush-ms <ms>',
      'longest wait before a partial batch is sent',
      number('--flush-ms', 10, 600_000),
      DEFAULT_OPTIONS.flushMs,
    )
    .option('--wait <seconds>', 'long-poll wait (0–30)', number('--wait', 0, 30), DEFAULT_OPTIONS.pollWaitSeconds)
    .option(
      '--digest-interval <seconds>',
      'seconds between digests of what the controller holds, when the service names none',
      number('--digest-interval', 1, 86_400),
      DEFAULT_OPTIONS.digestIntervalSeconds,
    )
    .option(
      '--drift-rate <perHour>',
      'local changes at each controller per hour (a visitor lost, a unit altered, a temporary code added)',
      number('--drift-rate', 0, 36_000),
      DEFAULT_OPTIONS.driftsPerHour,
    )
    .option(
      '--drift <plan>',
      'one drift at each controller once it is in sync, e.g. lose-visitors=5,alter-units=3,add-visitors=1',
      (value: string) => {
        try {
          return parseDriftPlan(value);
        } catch (error) {
          throw new CliError(`--drift: ${(error as Error).message}`);
        }
      },
    )
    .option(
      '--fail-rate <0-1>',
      'share of commands each controller fails to apply (acknowledged as failed, with a reason)',
      number('--fail-rate', 0, 1),
      DEFAULT_OPTIONS.failShare,
    )
    .option(
      '--duration <seconds>',
      'stop after this long (0: run until Ctrl-C)',
      number('--duration', 0, 31_536_000),
      0,
    )
    .option(
      '--seed <n>',
      'seed of the random activity (a run can be repeated)',
      number('--seed', 0, 2 ** 31),
      DEFAULT_OPTIONS.seed,
    )
    .option('--json', 'print a summary as one JSON object on stdout at the end', false)
    .option('--quiet', 'no progress line', false)
    .addHelpText(
      'after',
      `
Each kind of failure is told once on stderr, in words. The command exits 1 when the service
accepted nothing during the run (a refused credential stops it at once), 0 otherwise.

Examples:
  $ gatehouse simulate --url http://localhost:8080 --gateway gwc_…:gh_gs_… --duration 60
  $ gatehouse simulate --url http://localhost:8080 --gateways-file gateways.json --rate 120 --json`,
    )
    .action(async (o: Options) => {
      let url: URL;
      try {
        url = new URL(o.url);
      } catch {
        throw new CliError(`--url is not a URL: "${o.url}"`);
      }
      const credentials = [...o.gateway, ...(o.gatewaysFile ? readCredentialsFile(o.gatewaysFile) : [])];
      if (credentials.length === 0)
        throw new CliError(
          'give at least one gateway credential: --gateway <clientId:clientSecret> or --gateways-file <file>',
        );
      const options: SimulatorOptions = {
        ...DEFAULT_OPTIONS,
        entriesPerMinute: o.rate,
        wrongCodeShare: o.wrongCodeShare,
        doorAlarmsPerHour: o.doorAlarms,
        deviceDropsPerHour: o.deviceDrops,
        healthIntervalSeconds: o.healthInterval,
        batchSize: o.batchSize,
        flushMs: o.flushMs,
        pollWaitSeconds: o.wait,
        digestIntervalSeconds: o.digestInterval,
        driftsPerHour: o.driftRate,
        driftPlan: o.drift ?? null,
        failShare: o.failRate,
        seed: o.seed,
      };
      const simulator = new Simulator(url.origin + url.pathname.replace(/\/+$/, ''), credentials, options);
      const summary = await runSimulator(simulator, { durationSeconds: o.duration, quiet: o.quiet });
      if (o.json) printJson(summary);
      // A run in which the service took nothing — not a token, not a poll, not a batch — failed.
      if (summary.requestsAnswered === 0)
        throw new CliError(
          `the service accepted nothing during the run: ${summary.lastError ?? 'no request was answered'}`,
        );
    });
}
