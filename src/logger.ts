// JSON logs (pino). Requests are logged once each, by the app, without headers or bodies;
// redaction is the second line of defence should a secret ever reach a log call.
import pino from 'pino';
import type { Config } from './config.ts';

/**
 * Names whose values are secrets, as log fields and as query parameters alike: pino redacts them
 * in a log record's first three levels, and loggableUrl blanks them in a query string, where
 * they are matched without regard to case, `_` or `-` (apiSecret, api_secret, API-SECRET).
 */
export const SECRET_NAMES = [
  'authorization',
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'client_assertion',
  'apiSecret',
  'api_secret',
  'apiKey',
  'api_key',
  'accessCode',
  'access_code',
  'codeEntered',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'token',
  'supportWebhookSecret',
  'SUPPORT_WEBHOOK_SECRET',
] as const;

/**
 * Secrets only in a query string: there `code` is an OAuth authorization code or a gate code;
 * in a log record it is an error's code (ECONNREFUSED, INVALID_TOKEN), which the log needs.
 */
const QUERY_ONLY_SECRET_NAMES = ['code'] as const;

export const REDACT_PATHS = [
  ...SECRET_NAMES,
  ...SECRET_NAMES.map((k) => `*.${k}`),
  ...SECRET_NAMES.map((k) => `*.*.${k}`),
];

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

/** apiSecret, api_secret and Api-Secret alike. */
const normalizedName = (name: string) => name.toLowerCase().replace(/[-_]/g, '');
const SECRET_QUERY_NAMES = new Set([...SECRET_NAMES, ...QUERY_ONLY_SECRET_NAMES].map(normalizedName));

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * A URL fit for a log line: the value of every query parameter with a secret's name blanked.
 * Names are compared as the query parser reads them (percent-decoded: `api%5Fkey` is api_key);
 * `;` separates parameters as well as `&`, as some parsers have it.
 */
export function loggableUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const query = url
    .slice(question + 1)
    .split(/([&;])/)
    .map((part) => {
      const equals = part.indexOf('=');
      if (equals < 0 || !SECRET_QUERY_NAMES.has(normalizedName(decodedName(part.slice(0, equals))))) return part;
      return `${part.slice(0, equals)}=[redacted]`;
    })
    .join('');
  return `${url.slice(0, question)}?${query}`;
}
