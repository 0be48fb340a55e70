// Server-sent events framing (the WHATWG HTML standard, "server-sent events"), pure: a frame is
// lines of `field: value` ended by a blank line; a line that starts with a colon is a comment,
// which a client ignores (a heartbeat). A value must not hold a line break, or the client would
// read the rest as another field: ids are cursors (base64url) and data is one line of JSON
// (JSON.stringify and render.ts escape line breaks inside strings), and both are checked.

const LINE_BREAK = /[\r\n]/;

/** One event: its id (what the client sends back as Last-Event-ID) and its data, one line of JSON. */
export function sseEvent(id: string, json: string): string {
  return sseId(id) + sseData(json);
}

/** An event's data field and the blank line that ends the event: one line of JSON. */
export function sseData(json: string): string {
  if (LINE_BREAK.test(json)) throw new Error('an SSE field cannot hold a line break');
  return `data: ${json}\n\n`;
}

/** An event's id field, to be followed by its sseData (which many streams' events may share). */
export function sseId(id: string): string {
  if (LINE_BREAK.test(id)) throw new Error('an SSE field cannot hold a line break');
  return `id: ${id}\n`;
}

/** A comment: kept off the event stream by the client, but it keeps proxies from closing an idle connection. */
export const sseComment = (text: string): string => `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;

/** How long a client waits before it reconnects after the stream ends (milliseconds). */
export const sseRetry = (ms: number): string => `retry: ${Math.max(0, Math.round(ms))}\n\n`;

/**
 * A named event (`event: <type>`), with no `id:`: a client's last event id stays the last event's
 * (the stream's final `end` event, routes/stream.ts).
 */
export function sseNamedEvent(type: string, json: string): string {
  if (!/^[a-z][a-z0-9._-]*$/.test(type) || LINE_BREAK.test(json))
    throw new Error('an SSE field cannot hold a line break');
  return `event: ${type}\ndata: ${json}\n\n`;
}
