// Requests node refuses before fastify sees them — headers over 16 KiB (431), bytes that are not
// HTTP (400), headers not received in time (408) — answered in the face's shape on the socket
// itself (fastify's `clientErrorHandler`; its own answer was plain JSON, node's none at all).
// The face is chosen by the request line when the packet that failed holds it (a request sent
// at once, as clients do); otherwise — headers that arrived in many packets — problem+json.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.ts';
import { normalizeError } from './errors.ts';
import { rendererFor, type FaceErrorRenderer } from './problem.ts';
import { CORRELATION_HEADER } from './request-id.ts';

/** Node's limit on a request's headers (its `maxHeaderSize`, not changed here). */
export const MAX_HEADER_KIB = 16;

/** A client error as node gives it: a code, and the packet it could not parse (a Buffer). */
type ClientError = Error & { code?: string; rawPacket?: unknown };

/** What a client error of node's HTTP parser means to the client. */
export function clientFault(error: ClientError): AppError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new AppError(
      431,
      'HEADERS_TOO_LARGE',
      `The request headers are larger than ${MAX_HEADER_KIB} KiB (all of them, with the request line).`,
    );
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError(408, 'REQUEST_TIMEOUT', 'The request was not received in time; the connection is closed.');
  return new AppError(400, 'BAD_HTTP_REQUEST', 'The request is not valid HTTP/1.1; the connection is closed.');
}

/** The path of the request line at the start of a packet (no query), or null. */
export function requestPathOf(packet: unknown): string | null {
  if (!Buffer.isBuffer(packet)) return null;
  const line = /^[A-Z]+ (\/[^\s?]*)/.exec(packet.subarray(0, 2048).toString('latin1'));
  return line ? line[1]! : null;
}

/** The HTTP/1.1 answer, whole: status line, headers, body; the connection closes after it. */
export function clientErrorAnswer(renderers: readonly FaceErrorRenderer[], error: ClientError): string {
  const traceId = randomUUID();
  const path = requestPathOf(error.rawPacket) ?? '/';
  const answer = rendererFor(renderers, path).answer(normalizeError(clientFault(error)), traceId);
  const body = JSON.stringify(answer.body);
  const headers: Record<string, string> = {
    ...answer.headers,
    'content-type': answer.contentType,
    'content-length': String(Buffer.byteLength(body)),
    [CORRELATION_HEADER]: traceId,
    connection: 'close',
  };
  return [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    body,
  ].join('\r\n');
}

/** Fastify's `clientErrorHandler`: the renderers are read when an error happens (faces register theirs later). */
export function clientErrorHandler(renderers: readonly FaceErrorRenderer[], logger: FastifyBaseLogger) {
  return (error: ClientError, socket: Socket): void => {
    // A connection reset: there is no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    logger.debug({ code: error.code }, 'client error: the request was refused before it was routed');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // Closed once the answer is written (the client may still be sending what will never be read).
    socket.end(clientErrorAnswer(renderers, error), () => socket.destroy());
  };
}
