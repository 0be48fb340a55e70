// The real server as a child process, for end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/gatehouse');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /**
   * The output once it holds `text` `times` times (or after `ms`): a line the server logged
   * before an HTTP answer can reach this process after that answer, through its pipe.
   */
  logged(text: string, times?: number, ms?: number): Promise<string>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `gatehouse serve` and waits until it serves. By default on a free port, found from its
 * "gatehouse is serving" log line. `quiet`: logs at warn (a benchmark must not measure a log
 * pipe), on a port chosen here, ready when /health answers. `bin`: another tree's `bin/gatehouse`
 * (a benchmark comparing two versions).
 */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
  options: { quiet?: boolean; bin?: string } = {},
): Promise<ServerProcess> {
  const bin = options.bin ?? BIN;
  if (options.quiet) return startQuietServer(env, timeoutMs, bin);
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The output is kept (the last 1 MB) for assertions; it is scanned only until the server serves.
  let output = '';
  let serving = false;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output = output.length > 1_000_000 ? output.slice(-500_000) + text : output + text;
      if (serving) return;
      const match = /"port":(\d+),"database"[^\n]*"gatehouse is serving"/.exec(output);
      if (match) {
        serving = true;
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before serving:\n${output}`));
    });
  });
  return serverProcess(child, url, () => output, exited);
}

async function startQuietServer(env: Record<string, string>, timeoutMs: number, bin: string): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000)));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}) before serving:\n${output}`);
    if (
      (await fetch(`${url}/health`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      break;
    if (Date.now() > deadline) throw new Error(`server did not start in ${timeoutMs} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return serverProcess(child, url, () => output, exited);
}

function serverProcess(
  child: ChildProcess,
  url: string,
  output: () => string,
  exited: Promise<number | string>,
): ServerProcess {
  const count = (text: string) => output().split(text).length - 1;
  return {
    child,
    url,
    output,
    async logged(text, times = 1, ms = 5000) {
      const deadline = Date.now() + ms;
      while (count(text) < times && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return output();
    },
    exited,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a program to completion, its output collected; killed after `timeoutMs`. */
export function runProgram(
  file: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<Finished> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Runs a `gatehouse` command to completion (of this tree, or of another tree's `bin`). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000, bin = BIN): Promise<Finished> {
  return runProgram(process.execPath, [bin, ...args], { env, timeoutMs });
}

/** Runs a `gatehouse` command that prints JSON (`admin … create`), and parses it; throws with its stderr when it fails. */
export async function cliJson(args: string[], env: Record<string, string>): Promise<any> {
  const result = await runCli(args, env);
  if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
