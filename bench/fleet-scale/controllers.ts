// The controllers of the fleet-scale benchmark, run in a worker process (several such processes
// share the fleet). Each controller is what a gate controller does after an outage: it gets a
// token (client_credentials; a 503 or 429 is waited out for its Retry-After), holds its long poll
// for commands (GET /gateway/v1/commands?after=…&wait=…), acknowledges what it receives (an event 3
// per command) and, when told, reports a small batch of events every ~interval. Every controller
// connects from an address of its own (127.<block>.x.y), as a fleet does, with one connection
// for its poll and one for the rest.
import { Client } from 'undici';
import { loopback } from '../../test/helpers/token-flood.ts';
import { count, eventKey, now, retryAfterMs, sleep, type Tally } from './clock.ts';
import { CommitReporter, type Handlers, type Notify } from './ipc.ts';

export interface Credential {
  facilityId: number;
  clientId: string;
  clientSecret: string;
}

export interface ControllersInit {
  baseUrl: string;
  /** This process's number among the event sources (an event's key is e<source>-<seq>). */
  source: number;
  credentials: Credential[];
  /** The fleet-wide number of this process's first controller (its source address). */
  firstIndex: number;
  addressBlock: number;
  batchSize: number;
  pollWaitSeconds: number;
  /**
   * Whether a controller keeps its token and batch connection open between requests (two sockets a
   * controller). Off, each such request has a connection of its own, closed after: the server holds
   * one socket per controller (its poll) and those in flight — how 10,000 controllers fit in this
   * sandbox's 20,000 open files.
   */
  keepPostsAlive: boolean;
}

export interface StormResult {
  controllers: number;
  holding: number;
  /** Epoch ms of each controller's token (NaN: none). */
  tokenAt: number[];
  /** 503 answers per controller. */
  refusals: number[];
  statuses: Tally;
  errors: number;
}

export interface ControllerCounts {
  polls: number;
  pollStatuses: Tally;
  pollErrors: number;
  commands: number;
  batches: number;
  batchStatuses: Tally;
  /** Answered 200 but not every event accepted. */
  batchPartial: number;
  batchErrors: number;
  batchMs: number[];
  acks: number;
  ackStatuses: Tally;
  ackMs: number[];
  tokenRequests: number;
  tokenStatuses: Tally;
}

export const freshCounts = (): ControllerCounts => ({
  polls: 0,
  pollStatuses: {},
  pollErrors: 0,
  commands: 0,
  batches: 0,
  batchStatuses: {},
  batchPartial: 0,
  batchErrors: 0,
  batchMs: [],
  acks: 0,
  ackStatuses: {},
  ackMs: [],
  tokenRequests: 0,
  tokenStatuses: {},
});

const TYPES = [18, 18, 18, 15, 33, 34, 18];
const MARK = /pmsk\d+/g;

interface Controller {
  index: number;
  credential: Credential;
  poll: Client;
  post: Client;
  token: string | null;
  /** The last command sequence applied. */
  after: number;
  polling: boolean;
  marks: Set<string>;
}

export function controllersWorker(notify: Notify): Handlers {
  let settings: ControllersInit;
  let commits: CommitReporter;
  let controllers: Controller[] = [];
  let counts = freshCounts();
  let closed = false;
  let pollsInFlight = 0;
  const pollLoops: Promise<void>[] = [];
  const inFlight = new Set<Promise<unknown>>();
  let batching: { generation: number; stop: Promise<void>; end(): void; loops: Promise<void>[] } | null = null;
  let generation = 0;

  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => {});
    return work;
  };

  async function requestToken(c: Controller): Promise<{ status: number; retryMs: number }> {
    counts.tokenRequests++;
    const response = await c.post.request({
      reset: !settings.keepPostsAlive,
      path: '/auth/token',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: c.credential.clientId,
        client_secret: c.credential.clientSecret,
      }).toString(),
    });
    const text = await response.body.text();
    count(counts.tokenStatuses, response.statusCode);
    if (response.statusCode === 200) c.token = (JSON.parse(text) as { access_token: string }).access_token;
    return { status: response.statusCode, retryMs: retryAfterMs(response.headers['retry-after']) };
  }

  /** Events to /gateway/v1/events; recorded as commits when every one was accepted. */
  async function postEvents(
    c: Controller,
    events: Record<string, unknown>[],
    seqs: number[],
    kind: 'batch' | 'ack',
  ): Promise<void> {
    const sent = now();
    let status = 0;
    let accepted = -1;
    try {
      const response = await c.post.request({
        reset: !settings.keepPostsAlive,
        path: '/gateway/v1/events',
        method: 'POST',
        headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      status = response.statusCode;
      const text = await response.body.text();
      if (status === 200) accepted = (JSON.parse(text) as { accepted: number; duplicates: number }).accepted;
    } catch {
      if (kind === 'batch') counts.batchErrors++;
      return;
    }
    const at = now();
    if (kind === 'batch') {
      counts.batches++;
      count(counts.batchStatuses, status);
      counts.batchMs.push(at - sent);
      if (status === 200 && accepted !== events.length) counts.batchPartial++;
    } else {
      counts.acks++;
      count(counts.ackStatuses, status);
      counts.ackMs.push(at - sent);
    }
    if (status === 200 && accepted === events.length) for (const seq of seqs) commits.add(seq, at);
  }

  async function postBatch(c: Controller) {
    const at = Date.now();
    const seqs = Array.from({ length: settings.batchSize }, () => commits.seq());
    const events = seqs.map((seq, j) => ({
      eventId: eventKey(settings.source, seq),
      eventType: TYPES[seq % TYPES.length],
      occurredAt: new Date(at - (seqs.length - j) * 1000).toISOString(),
      deviceId: `kp-${c.index % 4}`,
      deviceName: 'Front gate keypad',
      details: eventKey(settings.source, seq),
    }));
    await postEvents(c, events, seqs, 'batch');
  }

  /** Event 3 for each command received. */
  function acknowledge(c: Controller, commands: { id: string; sequence: number; type: string }[]) {
    const at = new Date().toISOString();
    const seqs = commands.map(() => commits.seq());
    const events = commands.map((command, j) => ({
      eventId: eventKey(settings.source, seqs[j]!),
      eventType: 3,
      occurredAt: at,
      details: eventKey(settings.source, seqs[j]!),
      data: { commandId: command.id, sequence: command.sequence, type: command.type },
    }));
    void track(postEvents(c, events, seqs, 'ack'));
  }

  async function pollLoop(c: Controller) {
    while (!closed) {
      if (!c.token) {
        try {
          const answer = await requestToken(c);
          if (answer.status !== 200) await sleep(answer.retryMs);
        } catch {
          await sleep(1000);
        }
        continue;
      }
      pollsInFlight++;
      let status = 0;
      let text = '';
      let retryMs = 1000;
      try {
        const response = await c.poll.request({
          path: `/gateway/v1/commands?after=${c.after}&wait=${settings.pollWaitSeconds}`,
          method: 'GET',
          headers: { authorization: `Bearer ${c.token}` },
        });
        status = response.statusCode;
        retryMs = retryAfterMs(response.headers['retry-after']);
        text = await response.body.text();
      } catch {
        pollsInFlight--;
        if (closed) return;
        counts.pollErrors++;
        await sleep(1000);
        continue;
      }
      pollsInFlight--;
      const at = now();
      counts.polls++;
      count(counts.pollStatuses, status);
      if (status === 200) {
        const { commands } = JSON.parse(text) as {
          commands: { id: string; sequence: number; type: string; payload: unknown }[];
        };
        if (commands.length === 0) continue;
        counts.commands += commands.length;
        const fresh: string[] = [];
        for (const command of commands) {
          for (const mark of JSON.stringify(command.payload).match(MARK) ?? [])
            if (!c.marks.has(mark)) {
              c.marks.add(mark);
              fresh.push(mark);
            }
          c.after = Math.max(c.after, command.sequence);
        }
        if (fresh.length > 0) notify({ type: 'marks', marks: fresh, at: fresh.map(() => at) });
        acknowledge(c, commands);
      } else if (status === 401) c.token = null;
      else await sleep(status === 429 || status === 503 ? retryMs : 1000);
    }
  }

  function startPolling(c: Controller) {
    if (c.polling) return;
    c.polling = true;
    pollLoops.push(pollLoop(c));
  }

  return {
    init(init: ControllersInit) {
      settings = init;
      commits = new CommitReporter(notify, init.source);
      controllers = init.credentials.map((credential, i) => {
        const localAddress = loopback(init.addressBlock, init.firstIndex + i);
        return {
          index: init.firstIndex + i,
          credential,
          poll: new Client(init.baseUrl, { localAddress, pipelining: 1, keepAliveTimeout: 60_000 }),
          post: new Client(init.baseUrl, { localAddress, pipelining: 1, keepAliveTimeout: 60_000 }),
          token: null,
          after: 0,
          polling: false,
          marks: new Set(),
        };
      });
    },

    /**
     * Every controller asks for a token at `startAt` (epoch ms), waiting out each refusal's
     * Retry-After (× 1–1.25, the jitter a fleet has), until it holds one or `deadline` passes.
     * The polls start after (startPolls): the storm's CPU is the tokens', and the memory that
     * the polls hold is measured from the service as the storm left it.
     */
    async storm({ startAt, deadline }: { startAt: number; deadline: number }): Promise<StormResult> {
      await sleep(startAt - now());
      const statuses: Tally = {};
      let errors = 0;
      const tokenAt = controllers.map(() => Number.NaN);
      const refusals = controllers.map(() => 0);
      await Promise.all(
        controllers.map(async (c, i) => {
          while (now() < deadline && !closed) {
            try {
              const answer = await requestToken(c);
              count(statuses, answer.status);
              if (answer.status === 200) {
                tokenAt[i] = now();
                return;
              }
              if (answer.status === 503) refusals[i]!++;
              await sleep(answer.retryMs * (1 + Math.random() * 0.25));
            } catch {
              errors++;
              await sleep(1000);
            }
          }
        }),
      );
      return {
        controllers: controllers.length,
        holding: tokenAt.filter((t) => !Number.isNaN(t)).length,
        tokenAt,
        refusals,
        statuses,
        errors,
      };
    },

    /** Every controller holding a token starts its long poll. */
    startPolls() {
      for (const c of controllers) if (c.token) startPolling(c);
    },

    /** How many long polls are on their way or held by the server right now. */
    pollsHeld: () => pollsInFlight,

    /** Every controller holding a token reports a batch every ~intervalMs (±10 %), from a random start. */
    startBatches({ intervalMs }: { intervalMs: number }) {
      if (batching) return;
      let end: () => void = () => {};
      const stop = new Promise<void>((resolve) => {
        end = resolve;
      });
      const mine = ++generation;
      const state = { generation: mine, stop, end, loops: [] as Promise<void>[] };
      batching = state;
      state.loops = controllers
        .filter((c) => c.token)
        .map(async (c) => {
          let next = now() + Math.random() * intervalMs;
          while (batching?.generation === mine) {
            await Promise.race([sleep(next - now()), stop]);
            if (batching?.generation !== mine) return;
            await track(postBatch(c));
            next = Math.max(now(), next + intervalMs * (0.9 + Math.random() * 0.2));
          }
        });
    },

    /** Stops the batches; resolves once every batch and acknowledgement on its way is answered. */
    async stopBatches() {
      const state = batching;
      batching = null;
      state?.end();
      await Promise.all(state?.loops ?? []);
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      commits.flush();
    },

    /** The counts since the last call (a phase's), and a fresh start. */
    counts() {
      commits.flush();
      const taken = counts;
      counts = freshCounts();
      return taken;
    },

    async close() {
      closed = true;
      batching?.end();
      batching = null;
      commits?.close();
      await Promise.all(controllers.flatMap((c) => [c.poll.destroy(), c.post.destroy()]));
      await Promise.allSettled(pollLoops);
    },
  };
}
