// Request bodies, bounded in time and shape before any route sees them:
// - the upload deadline: a body not received in full BODY_UPLOAD_TIMEOUT_MS after the service
//   starts reading it is answered 408 in the face's shape, and the connection is closed (a client
//   that sends headers and half a body, then nothing, held its connection for minutes). Node's own
//   `requestTimeout` would answer a bare 408 with no body, and counts the headers and the time the
//   guard spends on the database too; this one is the face's answer, and counts the upload only.
//   An answer given before the body was read (the guard's 401) closes the connection as well.
// - form bodies (application/x-www-form-urlencoded): their fields are counted before they are
//   parsed (100,000 fields cost a second of the event loop), and the declared charset is honoured
//   (utf-8 by default; iso-8859-1 and any other ASCII-compatible WHATWG encoding; else 415).
// - JSON bodies: a `__proto__` or `constructor.prototype` key is refused naming the key, rather
//   than as "not valid JSON" (fastify's parser refuses both but says only that).
// The keys of each object of a parsed body are bounded with its depth, in http/validation.ts.
import { PassThrough } from 'node:stream';
import { TextDecoder } from 'node:util';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { App } from './app-type.ts';
import { fieldCountOfForm, tooManyFields } from './validation.ts';

// ---- the upload deadline ----

export function bodyTimedOut(afterMs: number): AppError {
  return new AppError(
    408,
    'BODY_TIMEOUT',
    `The request body was not received within ${Math.round(afterMs / 100) / 10} s of the service starting to read it; the connection is closed. Send the body without pauses, or a smaller one.`,
    [],
    { connection: 'close' },
  );
}

/** Whether the request announces a body (a length above 0, or a chunked one). */
const announcesBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/**
 * Starts the upload deadline when the service starts reading a body that has not arrived in full
 * (a small body has, with its headers: nothing is added to its way). The body then flows through a
 * stream of ours, which is failed at the deadline: fastify answers the error through the face's
 * renderer, with `Connection: close`, and node closes the connection once the answer is written.
 */
export function registerBodyDeadline(app: App, uploadTimeoutMs: number): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.raw.complete || !announcesBody(request)) return done(null, payload);
    const body = new PassThrough();
    const timer = setTimeout(() => {
      payload.unpipe(body);
      // Already answered without the whole body (413 at the first bytes over the limit): no one reads it.
      if (reply.sent || reply.raw.headersSent) body.destroy();
      else body.destroy(bodyTimedOut(uploadTimeoutMs));
    }, uploadTimeoutMs);
    const stop = () => clearTimeout(timer);
    payload.once('end', stop);
    payload.once('close', stop);
    reply.raw.once('finish', stop);
    payload.once('error', (error) => {
      stop();
      body.destroy(error);
    });
    body.once('close', stop);
    payload.pipe(body);
    done(null, body);
  });
  // An answer sent before the body arrived in full (a 401 of the guard, a 413) closes the connection:
  // kept open, it would wait for the rest of a body no one reads, for as long as the client stalls.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && announcesBody(request)) reply.header('connection', 'close');
    done(null, payload);
  });
}

// ---- JSON ----

// The key secure-json-parse refuses, in any spelling JSON allows (escapes included).
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

export const forbiddenKey = (key: string) => new AppError(400, 'FORBIDDEN_KEY', `body: the key ${key} is not allowed.`);

type JsonParser = (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => void;

/**
 * Fastify's JSON parser (secure-json-parse: `__proto__` and `constructor.prototype` refused), with
 * its refusal of such a key said as such. Its own error is "not valid JSON" whatever the cause:
 * when the text is valid JSON after all, the cause was the key.
 */
export function jsonBodyParser(app: App): JsonParser {
  const json = app.getDefaultJsonParser('error', 'error') as unknown as JsonParser;
  return (request, body, done) =>
    json(request, body, (error, value) => {
      if (error && (error as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body))
        return done(forbiddenKey(PROTO_KEY.test(body) ? '__proto__' : 'constructor.prototype'));
      done(error, value);
    });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The app-wide JSON parser (a face with parsers of its own uses `jsonBodyParser` too). Fastify's
 * text/plain parser goes: no route takes text, and a body read as a string reached validation as
 * "body must be an object" — it is refused 415, saying to send JSON.
 */
export function registerJsonBodies(app: App): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
  app.removeContentTypeParser('text/plain');
}

// ---- forms ----

export const FORM_TYPE = 'application/x-www-form-urlencoded';

const unsupportedCharset = (charset: string, why: string) =>
  new AppError(
    415,
    'UNSUPPORTED_CHARSET',
    `The form body's charset ${charset} ${why}: send it as utf-8 (the default) or iso-8859-1.`,
  );

/** The decoder of a form's declared charset (utf-8 when none is declared); refuses one it cannot read. */
export function formDecoder(contentType: string | undefined): TextDecoder {
  const declared = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  const charset = declared ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    throw unsupportedCharset(charset, 'is not one the service reads');
  }
  // Fields are split on the bytes of '&' and '=': only an encoding that keeps ASCII as it is can be read so.
  if (decoder.encoding.startsWith('utf-16')) throw unsupportedCharset(charset, 'is not ASCII-compatible');
  return decoder;
}

const notInCharset = (field: string, decoder: TextDecoder) =>
  new AppError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', [
    {
      path: field || 'body',
      message: `is not valid ${decoder.encoding} (declare the form's charset, e.g. charset=iso-8859-1)`,
    },
  ]);

const HEX = /^[0-9A-Fa-f]{2}$/;

/** The bytes a form's name or value stands for (text of one byte per character): `+` a space, `%XX` a byte. */
export function formBytes(part: string): Buffer {
  const bytes = Buffer.allocUnsafe(part.length);
  let length = 0;
  for (let i = 0; i < part.length; i++) {
    const code = part.charCodeAt(i);
    if (code === 0x2b) bytes[length++] = 0x20;
    else if (code === 0x25 && HEX.test(part.slice(i + 1, i + 3))) {
      bytes[length++] = Number.parseInt(part.slice(i + 1, i + 3), 16);
      i += 2;
    } else bytes[length++] = code; // a '%' not followed by two hex digits stays as it is
  }
  return bytes.subarray(0, length);
}

/**
 * A form body, as fields: `+` is a space, `%XX` a byte, and the bytes of each name and value are
 * read in the declared charset. A name given twice has an array of its values; a field without `=`
 * has the value ''. The fields are counted, from the `&`s, before anything is built.
 */
export function parseForm(bytes: Buffer, decoder: TextDecoder, fieldLimit: number): Record<string, string | string[]> {
  // Latin-1 keeps each byte as one character: the split below works on bytes, whatever the charset.
  const text = bytes.toString('latin1');
  if (fieldCountOfForm(text) > fieldLimit) throw tooManyFields('', fieldLimit, true);
  const fields: Record<string, string | string[]> = Object.create(null);
  if (text === '') return fields;
  const decode = (part: string, field: string) => {
    if (!/[%+\x80-\xff]/.test(part)) return part;
    try {
      return decoder.decode(formBytes(part));
    } catch {
      throw notInCharset(field, decoder);
    }
  };
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decode(equals < 0 ? pair : pair.slice(0, equals), 'body');
    const value = equals < 0 ? '' : decode(pair.slice(equals + 1), name);
    const existing = fields[name];
    if (existing === undefined) fields[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else fields[name] = [existing, value];
  }
  return fields;
}

export const jsonSentAsForm = () =>
  new AppError(
    415,
    'JSON_SENT_AS_FORM',
    'The body is JSON, but its Content-Type says application/x-www-form-urlencoded (what `curl -d` sends): send it with Content-Type: application/json.',
  );

/** Whether a form body is in fact a JSON object or array (`curl -d '{…}'` without a content type). */
export function isJsonNotForm(bytes: Buffer): boolean {
  const text = bytes.toString('utf8').trim();
  return (text.startsWith('{') || text.startsWith('[')) && isJson(text);
}

/** Form bodies for the whole app (every field a string; an empty body is no fields; JSON refused, saying so). */
export function registerFormBodies(app: App, fieldLimit: number): void {
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'buffer' }, (request, body, done) => {
    if (isJsonNotForm(body as Buffer)) return done(jsonSentAsForm());
    done(null, parseForm(body as Buffer, formDecoder(request.headers['content-type']), fieldLimit));
  });
}
