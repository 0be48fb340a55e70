// Request ids: a caller's X-Correlation-ID is honoured when it is a sane token, else one is made.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

export const CORRELATION_HEADER = 'x-correlation-id';

export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers[CORRELATION_HEADER];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}
