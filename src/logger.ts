// Logs (pino): JSON lines, or the same records as readable lines at a terminal (LOG_FORMAT).
// Requests are logged once each, by the app, without headers or bodies; redaction is the second line
// of defence should a secret ever reach a log call.
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

/** Where the lines go: stdout unless a destination is given (a test's capture, the command line's stderr). */
type Destination = pino.DestinationStream & { isTTY?: boolean };

/**
 * The logger. LOG_FORMAT `auto` (the default) writes readable lines when the destination is a
 * terminal and JSON otherwise (a pipe, a file, a collector); `json` and `pretty` force one. Either way
 * the record is redacted first: the readable line is made from the JSON line pino wrote.
 */
export function createLogger(
  config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat'>>,
  destination?: Destination,
): pino.Logger {
  const format = config.logFormat ?? 'auto';
  const isTerminal = destination ? destination.isTTY === true : process.stdout.isTTY === true;
  const readable = format === 'pretty' || (format === 'auto' && isTerminal);
  const target: Destination | undefined = readable ? readableLines(destination ?? pino.destination(1)) : destination;
  return pino(
    {
      level: config.logLevel,
      base: { service: 'gatehouse' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
    },
    target,
  );
}

/**
 * A destination that writes each of pino's JSON lines to `to` as a readable line, formatted in this
 * thread as it is written (no transport worker whose last lines an exit could lose).
 */
function readableLines(to: pino.DestinationStream): pino.DestinationStream {
  return { write: (line: string) => void to.write(readableLine(line)) };
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** What every line of the service carries, and so what a readable line leaves out. */
const ALWAYS = new Set(['level', 'time', 'msg', 'service']);

/**
 * One JSON log line as a person reads it: `time LEVEL message key=value…`, the fields in the
 * record's order; an error's stack on the lines below, indented. A line that is not a JSON object is
 * written as it is.
 */
export function readableLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return `${json.trimEnd()}\n`;
  const level = LEVEL_NAMES[record.level as number] ?? String(record.level);
  const parts = [String(record.time ?? ''), level.padEnd(5), String(record.msg ?? '')];
  let stack = '';
  for (const [key, value] of Object.entries(record)) {
    if (ALWAYS.has(key) || value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const { stack: trace, ...rest } = value as Record<string, unknown>;
      parts.push(`err=${fieldValue(rest)}`);
      if (typeof trace === 'string') stack = `\n${trace.replace(/^/gm, '    ')}`;
      continue;
    }
    parts.push(`${key}=${fieldValue(value)}`);
  }
  return `${parts.filter((part) => part !== '').join(' ')}${stack}\n`;
}

/** A value as written after `key=`: plain when it cannot be misread, else JSON (quoted, escaped). */
function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
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
