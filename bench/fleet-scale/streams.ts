// The live streams of the fleet-scale benchmark (GET /gatewayevents/accounts/{id}/stream), run in
// a worker process: at thousands of events a second, 100 streams are hundreds of thousands of
// frames a second to read, which must not be the orchestrator's (or the server's) CPU. Per stream:
// which events arrived (a bitmap per source: exactly once is checked exactly) and, for the events
// whose sequence number is a multiple of `sampleEvery`, when (commit → event latency).
import http from 'node:http';
import { now } from './clock.ts';
import type { Handlers } from './ipc.ts';

export interface StreamsInit {
  /** Epoch ms resolution of arrivals is kept for events with seq % sampleEvery === 0. */
  sampleEvery: number;
}

export interface StreamReport {
  received: number;
  duplicates: number;
  /** Expected events that never arrived. */
  missing: number;
  /** Events that arrived and were not expected (stored by a batch whose answer was not a success). */
  unexpected: number;
  /** Sampled arrivals: event key and epoch ms. */
  sampleKeys: string[];
  sampleAt: number[];
}

interface Stream {
  request: http.ClientRequest;
  seen: Map<number, Uint8Array>;
  received: number;
  duplicates: number;
  sampleKeys: string[];
  sampleAt: number[];
  ended: boolean;
}

const DETAILS = '"details":"e';

export function streamsWorker(): Handlers {
  let sampleEvery = 10;
  const streams: Stream[] = [];

  function record(stream: Stream, source: number, seq: number, at: number) {
    let bits = stream.seen.get(source);
    if (!bits || bits.length <= seq) {
      const grown = new Uint8Array(Math.max(1024, (seq + 1) * 2));
      if (bits) grown.set(bits);
      bits = grown;
      stream.seen.set(source, bits);
    }
    stream.received++;
    if (bits[seq]) {
      stream.duplicates++;
      return;
    }
    bits[seq] = 1;
    if (seq % sampleEvery === 0) {
      stream.sampleKeys.push(`e${source}-${seq}`);
      stream.sampleAt.push(at);
    }
  }

  function open(url: string, token: string): Promise<Stream> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
      const stream: Stream = {
        request,
        seen: new Map(),
        received: 0,
        duplicates: 0,
        sampleKeys: [],
        sampleAt: [],
        ended: false,
      };
      request.once('error', reject);
      request.once('response', (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`stream answered ${response.statusCode}`));
          return;
        }
        response.setEncoding('utf8');
        let buffer = '';
        response.on('data', (chunk: string) => {
          const at = now();
          buffer += chunk;
          const end = buffer.lastIndexOf('\n\n');
          if (end < 0) return;
          const frames = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frames.includes(': stream open')) resolve(stream);
          // Only the key is read (the `details` the sender set), not the whole event: a stream
          // reader's parse must not be what is measured.
          for (let i = frames.indexOf(DETAILS); i >= 0; i = frames.indexOf(DETAILS, i + 1)) {
            const dash = frames.indexOf('-', i + DETAILS.length);
            const quote = frames.indexOf('"', dash);
            record(stream, Number(frames.slice(i + DETAILS.length, dash)), Number(frames.slice(dash + 1, quote)), at);
          }
        });
        response.on('end', () => {
          stream.ended = true;
        });
        response.on('error', () => {
          stream.ended = true;
        });
      });
    });
  }

  return {
    init(init: StreamsInit) {
      sampleEvery = init.sampleEvery;
    },

    /** Opens every stream (one after another); resolves once all are open. */
    async open({ streams: wanted }: { streams: { url: string; token: string }[] }) {
      for (const { url, token } of wanted) streams.push(await open(url, token));
      return streams.length;
    },

    /** Distinct events each stream has received so far (to wait for a drain). */
    progress: () => streams.map((s) => s.received - s.duplicates),

    /** Per stream, against the events expected (sequence numbers by source). */
    report({ expected }: { expected: Record<number, number[]> }): StreamReport[] {
      let total = 0;
      for (const seqs of Object.values(expected)) total += seqs.length;
      return streams.map((s) => {
        let found = 0;
        for (const [source, seqs] of Object.entries(expected)) {
          const bits = s.seen.get(Number(source));
          if (bits) for (const seq of seqs) if (bits[seq]) found++;
        }
        const distinct = s.received - s.duplicates;
        return {
          received: s.received,
          duplicates: s.duplicates,
          missing: total - found,
          unexpected: distinct - found,
          sampleKeys: s.sampleKeys,
          sampleAt: s.sampleAt,
        };
      });
    },

    /** Streams that ended (the server closed them). */
    ended: () => streams.filter((s) => s.ended).length,

    close() {
      for (const s of streams) s.request.destroy();
      streams.length = 0;
    },
  };
}
