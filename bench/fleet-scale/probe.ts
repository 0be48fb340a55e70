// The probe of the fleet-scale benchmark, in a worker process of its own (its latencies must not
// wait behind the orchestrator's work): /health sampled all along, the status list of all
// facilities sampled while the fleet is busy, one facility uploading from several threads at once,
// and a valid token request during a flood of made-up client ids.
import { Client } from 'undici';
import { floodOfWrongSecrets, loopback, postToken } from '../../test/helpers/token-flood.ts';
import { count, eventKey, now, sleep, type Tally } from './clock.ts';
import { CommitReporter, type Handlers, type Notify } from './ipc.ts';

export interface ProbeInit {
  baseUrl: string;
  /** The uploader's number among the event sources. */
  source: number;
}

export interface Sample {
  at: number;
  ms: number;
  status: number;
}

export interface UploadResult {
  batches: number;
  statuses: Tally;
  /** Answered 200 with fewer events accepted than sent. */
  partial: number;
  errors: number;
  ms: number[];
  /** The first few refusals' bodies. */
  refusals: string[];
}

export interface FloodRound {
  valid: { status: number; ms: number };
  cached: { status: number; ms: number };
  flood: { statuses: Record<number, number>; ms: number };
}

/** A sampler: `probe` every `everyMs` (the next after the last answered), until stopped. */
function sampler(everyMs: number, probe: () => Promise<number>) {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = now();
      let status = 0;
      try {
        status = await probe();
      } catch {
        status = 0;
      }
      const at = now();
      samples.push({ at: started, ms: at - started, status });
      await sleep(everyMs - (at - started));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return samples;
  };
}

export function probeWorker(notify: Notify): Handlers {
  let settings: ProbeInit;
  let client: Client;
  let commits: CommitReporter;
  let stopHealth: (() => Promise<Sample[]>) | null = null;
  let stopStatus: (() => Promise<Sample[]>) | null = null;
  let statusRows: number[] = [];

  return {
    init(init: ProbeInit) {
      settings = init;
      client = new Client(init.baseUrl, { pipelining: 1, keepAliveTimeout: 60_000 });
      commits = new CommitReporter(notify, init.source);
    },

    startHealth({ everyMs }: { everyMs: number }) {
      stopHealth = sampler(everyMs, async () => {
        const response = await client.request({ path: '/health', method: 'GET' });
        await response.body.dump();
        return response.statusCode;
      });
    },
    async stopHealth() {
      const stop = stopHealth;
      stopHealth = null;
      return (await stop?.()) ?? [];
    },

    /** GET /facilities/statuslist every `everyMs` (its own connection); the rows of each answer are counted. */
    startStatusList({ everyMs, token }: { everyMs: number; token: string }) {
      const own = new Client(settings.baseUrl, { pipelining: 1, keepAliveTimeout: 60_000 });
      statusRows = [];
      const stop = sampler(everyMs, async () => {
        const response = await own.request({
          path: '/facilities/statuslist',
          method: 'GET',
          headers: { authorization: `Bearer ${token}` },
        });
        const text = await response.body.text();
        if (response.statusCode === 200) statusRows.push((JSON.parse(text) as unknown[]).length);
        return response.statusCode;
      });
      stopStatus = async () => {
        const samples = await stop();
        await own.close();
        return samples;
      };
    },
    async stopStatusList() {
      const stop = stopStatus;
      stopStatus = null;
      const samples = (await stop?.()) ?? [];
      return { samples, rows: statusRows };
    },

    /**
     * One facility's controller uploading from `senders` threads at once: each posts `batches`
     * batches of `events` events, one after another, from the same 3 devices, with door alarms
     * appearing and clearing and devices going offline and online (the reported state's rows that
     * concurrent batches of one facility share).
     */
    async upload({
      token,
      senders,
      batches,
      events,
    }: {
      token: string;
      senders: number;
      batches: number;
      events: number;
    }): Promise<UploadResult> {
      const result: UploadResult = { batches: 0, statuses: {}, partial: 0, errors: 0, ms: [], refusals: [] };
      await Promise.all(
        Array.from({ length: senders }, async (_, sender) => {
          const own = new Client(settings.baseUrl, { pipelining: 1, keepAliveTimeout: 60_000 });
          try {
            for (let b = 0; b < batches; b++) {
              const at = Date.now();
              const seqs = Array.from({ length: events }, () => commits.seq());
              const batch = seqs.map((seq, j) => {
                const device = (j + sender) % 3;
                const step = Math.floor(j / 3) % 6;
                const base = {
                  eventId: eventKey(settings.source, seq),
                  occurredAt: new Date(at - (events - j) * 5).toISOString(),
                  deviceId: `upload-${device}`,
                  deviceName: `Upload device ${device}`,
                  details: eventKey(settings.source, seq),
                };
                if (step === 1) return { ...base, eventType: 10, data: { active: true } };
                if (step === 2) return { ...base, eventType: 10, data: { active: false } };
                if (step === 3) return { ...base, eventType: 11 };
                if (step === 4) return { ...base, eventType: 12 };
                return { ...base, eventType: 18 };
              });
              const sent = now();
              try {
                const response = await own.request({
                  path: '/gateway/v1/events',
                  method: 'POST',
                  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ events: batch }),
                });
                const text = await response.body.text();
                const answered = now();
                result.batches++;
                result.ms.push(answered - sent);
                count(result.statuses, response.statusCode);
                if (response.statusCode === 200) {
                  const accepted = (JSON.parse(text) as { accepted: number }).accepted;
                  if (accepted === events) for (const seq of seqs) commits.add(seq, answered);
                  else result.partial++;
                } else if (result.refusals.length < 5) result.refusals.push(`${response.statusCode} ${text}`);
              } catch {
                result.errors++;
              }
            }
          } finally {
            await own.close();
          }
        }),
      );
      commits.flush();
      return result;
    },

    /**
     * `requests` token requests with made-up client ids from 200 addresses (test/helpers/
     * token-flood.ts, in a process of its own at the lowest priority); once they are all on their
     * way, a valid request of a controller never seen (its secret not remembered) and one of a
     * controller that got a token before.
     */
    async flood({
      requests,
      block,
      valid,
      cached,
    }: {
      requests: number;
      block: number;
      valid: Record<string, string>;
      cached: Record<string, string>;
    }): Promise<FloodRound> {
      const flood = floodOfWrongSecrets(settings.baseUrl, {
        requests,
        addresses: 200,
        block,
        knownClientId: `gh_ci_madeup_fleet_${block}`,
      });
      await flood.sent;
      // A connection the overloaded server reset is an answer too (status 0), not the end of the run.
      const answer = (form: Record<string, string>, host: number) => {
        const started = performance.now();
        return postToken(settings.baseUrl, form, loopback(block, host)).catch(() => ({
          status: 0,
          ms: performance.now() - started,
        }));
      };
      const [validAnswer, cachedAnswer] = await Promise.all([answer(valid, 240), answer(cached, 241)]);
      const flooded = await flood.answered;
      return {
        valid: { status: validAnswer.status, ms: validAnswer.ms },
        cached: { status: cachedAnswer.status, ms: cachedAnswer.ms },
        flood: flooded,
      };
    },

    async close() {
      await stopHealth?.();
      stopHealth = null;
      await stopStatus?.();
      stopStatus = null;
      commits?.close();
      await client?.close();
    },
  };
}
