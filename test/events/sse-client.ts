// A small server-sent events client for the stream tests, on node:http (real HTTP): it keeps every
// frame it reads (events with their id, comments), and waits for the ones a test expects.
import http from 'node:http';

export interface SseFrame {
  /** The event type (`event:`), for a named event (the stream's final `end`). */
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
  retry?: number;
  /** When the client read it (Date.now(); set by openStream). */
  at?: number;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body, when the answer is not a stream (an error). */
  body: string;
  frames: SseFrame[];
  /** The events received (unnamed frames with data), parsed. */
  events(): { id: string; event: any }[];
  /** The final `end` events received (normally none, or one), their data parsed. */
  ends(): { code: string; detail: string }[];
  comments(): string[];
  /** Waits until `count` events have arrived (or throws after `ms`). */
  waitForEvents(count: number, ms?: number): Promise<{ id: string; event: any }[]>;
  waitFor(predicate: () => boolean, ms?: number, what?: string): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
}

/** Parses complete frames off the front of `buffer`; returns the frames and what remains. */
export function parseFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const frame: SseFrame = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
        else if (field === 'retry') frame.retry = Number(value);
      }
    }
    frames.push(frame);
  }
  return { frames, rest };
}

export function openStream(url: string, token: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers },
    });
    request.once('error', reject);
    request.once('response', (response) => {
      response.setEncoding('utf8');
      const frames: SseFrame[] = [];
      let buffer = '';
      let body = '';
      let ended = false;
      const isStream = response.statusCode === 200;
      const endedPromise = new Promise<void>((done) => {
        response.once('close', () => {
          ended = true;
          done();
        });
      });
      response.on('data', (chunk: string) => {
        if (!isStream) {
          body += chunk;
          return;
        }
        const parsed = parseFrames(buffer + chunk);
        buffer = parsed.rest;
        const at = Date.now();
        frames.push(...parsed.frames.map((frame) => ({ ...frame, at })));
      });
      response.on('error', () => {});
      request.removeListener('error', reject);
      request.on('error', () => {});
      const events = () =>
        frames
          .filter((f) => f.data !== undefined && f.event === undefined)
          .map((f) => ({ id: f.id!, event: JSON.parse(f.data!) }));
      const waitFor = async (predicate: () => boolean, ms = 5000, what = 'the condition') => {
        const deadline = Date.now() + ms;
        while (!predicate()) {
          if (Date.now() > deadline)
            throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(frames)}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const stream: SseStream = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        get body() {
          return body;
        },
        frames,
        events,
        comments: () => frames.filter((f) => f.comment !== undefined).map((f) => f.comment!),
        ends: () => frames.filter((f) => f.event === 'end').map((f) => JSON.parse(f.data!)),
        async waitForEvents(count, ms = 5000) {
          await waitFor(() => events().length >= count, ms, `${count} events`);
          return events();
        },
        waitFor,
        ended: endedPromise,
        isEnded: () => ended,
        close: () => request.destroy(),
      };
      if (isStream) resolve(stream);
      else response.once('end', () => resolve(stream));
    });
  });
}
