// HAProxy (Debian's package) as a child process, for the reference deployment's test: the real
// balancer with deploy/haproxy.cfg, its addresses from the environment, and its runtime API (the
// stats socket) read for each server's state, as an operator reads it with socat.
import { spawn } from 'node:child_process';
import net from 'node:net';

export const HAPROXY = '/usr/sbin/haproxy';

export interface Haproxy {
  output(): string;
  /** A runtime API command's answer (`show stat`). */
  command(line: string): Promise<string>;
  /** Each server of `backend` and its state (UP, DOWN, MAINT, or a transition such as "UP 1/2"). */
  states(backend: string): Promise<Map<string, string>>;
  /** Resolves when `server` of `backend` is in `state` (exactly: UP is not "UP 1/2"), with when it was seen. */
  waitFor(backend: string, server: string, state: string, ms?: number): Promise<number>;
  stop(): Promise<void>;
}

/** The answer of one runtime API command on the stats socket at `socket`. */
export function runtimeCommand(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = net.createConnection(socket);
    let text = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (text += chunk));
    client.once('error', reject);
    client.once('end', () => resolve(text));
    client.once('connect', () => client.write(`${line}\n`));
  });
}

/** Starts `haproxy -f config` in the foreground with `env` added to its environment; resolves once its socket answers. */
export async function startHaproxy(config: string, env: Record<string, string>, socket: string): Promise<Haproxy> {
  const child = spawn(HAPROXY, ['-f', config, '-db'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-200_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const command = (line: string) => runtimeCommand(socket, line);
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${output}`);
    if ((await command('show info').catch(() => '')).includes('Name: HAProxy')) break;
    if (Date.now() > deadline) throw new Error(`haproxy's socket did not answer:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const states = async (backend: string) => {
    const [header, ...rows] = (await command('show stat')).trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const [px, sv, status] = ['pxname', 'svname', 'status'].map((c) => columns.indexOf(c));
    const result = new Map<string, string>();
    for (const row of rows) {
      const cells = row.split(',');
      if (cells[px!] === backend && cells[sv!] !== 'BACKEND') result.set(cells[sv!]!, cells[status!]!);
    }
    return result;
  };
  return {
    output: () => output,
    command,
    states,
    async waitFor(backend, server, state, ms = 30_000) {
      const end = Date.now() + ms;
      for (;;) {
        const now = (await states(backend)).get(server);
        if (now === state) return Date.now();
        if (Date.now() > end)
          throw new Error(`${backend}/${server} is ${now}, not ${state}, after ${ms} ms:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
