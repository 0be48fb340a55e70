// JSON logs (pino). Requests are logged once each, by the app, without headers or bodies;
// redaction is the second line of defence should a secret ever reach a log call.
import pino from 'pino';
import type { Config } from './config.ts';

const SECRET_KEYS = [
  'authorization',
  'password',
  'client_secret',
  'clientSecret',
  'apiSecret',
  'secret',
  'accessCode',
  'codeEntered',
  'access_token',
  'refresh_token',
  'token',
];

export const REDACT_PATHS = [...SECRET_KEYS, ...SECRET_KEYS.map((k) => `*.${k}`), ...SECRET_KEYS.map((k) => `*.*.${k}`)];

/** The service's logger (pino), handed to every part that logs. */
export type Logger = pino.Logger;

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): pino.Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'gatehouse' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
    },
    destination,
  );
}

/**
 * Errors as pino logs them, less what a database error can quote from the row: its `detail`
 * ("Key (code)=(1234) already exists") and `where` may carry values such as gate codes.
 */
function serializeError(error: unknown) {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  delete serialized.detail;
  delete serialized.where;
  delete serialized.parameters;
  return serialized;
}

const SECRET_QUERY = /([?&](?:access_token|refresh_token|client_secret|password|accessCode|token)=)[^&]*/gi;

/** A URL fit for a log line: secret-looking query values blanked. */
export const loggableUrl = (url: string) => url.replace(SECRET_QUERY, '$1[redacted]');
