// The load of the fleet-scale benchmark runs in processes of its own (bench/fleet-scale/worker.ts),
// so that the server's CPU is measured apart from its clients'. This is the line between the
// orchestrating process and one of them: calls (a command with arguments, answered once) and
// notices (what a worker reports as it happens: commits, commands seen).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type Role = 'controllers' | 'streams' | 'probe';

/** Orchestrator → worker. */
export interface CallMessage {
  id: number;
  command: string;
  args: unknown;
}

/** Worker → orchestrator. */
export type WorkerMessage =
  | { ready: true }
  | { id: number; result: unknown }
  | { id: number; error: string }
  | { notice: Notice };

export type Notice =
  /** Events stored (their batch answered 200 with every event accepted): sequence numbers of `source`, and when. */
  | { type: 'commits'; source: number; seqs: number[]; at: number[] }
  /** Change marks (pmsk…) that a controller found in its commands for the first time, and when. */
  | { type: 'marks'; marks: string[]; at: number[] };

export interface WorkerHandle {
  role: Role;
  pid: number;
  call<T = unknown>(command: string, args?: unknown): Promise<T>;
  onNotice(handler: (notice: Notice) => void): void;
  /** Asks the worker to end, then waits for its exit (killed after 10 s). */
  stop(): Promise<void>;
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** A worker process of `role`, set up with `init` (its role's settings); resolves once it is ready. */
export async function startWorker(role: Role, init: unknown): Promise<WorkerHandle> {
  const child: ChildProcess = fork(WORKER, [role], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const noticeHandlers: ((notice: Notice) => void)[] = [];
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the ${role} worker exited before it was ready`)));
    child.on('message', (raw) => {
      const message = raw as WorkerMessage;
      if ('ready' in message) resolve();
      else if ('notice' in message) for (const handler of noticeHandlers) handler(message.notice);
      else {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if ('error' in message) waiting?.reject(new Error(`${role} worker: ${message.error}`));
        else waiting?.resolve(message.result);
      }
    });
  });
  void exited.then(() => {
    for (const waiting of pending.values()) waiting.reject(new Error(`the ${role} worker exited`));
    pending.clear();
  });
  const handle: WorkerHandle = {
    role,
    pid: child.pid!,
    call<T>(command: string, args?: unknown) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, command, args } satisfies CallMessage);
      });
    },
    onNotice(handler) {
      noticeHandlers.push(handler);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await handle.call('exit').catch(() => {});
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  await ready;
  await handle.call('init', init);
  return handle;
}

export type Notify = (notice: Notice) => void;

/** What a worker role answers to: `init` first, `close` (if any) before it exits. */
export type Handlers = Record<string, (args: any) => unknown>;

/**
 * A worker's commits, sent to the orchestrator every 200 ms rather than one message each (at
 * thousands of events a second, a message per event would cost the load process more than it).
 */
export class CommitReporter {
  private seqs: number[] = [];
  private at: number[] = [];
  private next = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly notify: Notify,
    readonly source: number,
  ) {
    this.timer = setInterval(() => this.flush(), 200);
  }

  /** The next event's sequence number (its key: eventKey(source, seq)). */
  seq(): number {
    return this.next++;
  }

  add(seq: number, at: number) {
    this.seqs.push(seq);
    this.at.push(at);
  }

  flush() {
    if (this.seqs.length === 0) return;
    this.notify({ type: 'commits', source: this.source, seqs: this.seqs, at: this.at });
    this.seqs = [];
    this.at = [];
  }

  close() {
    clearInterval(this.timer);
    this.flush();
  }
}
