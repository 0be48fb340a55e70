// The one way tests make a request and read its answer: through app.inject (an app in the test's
// process) or through real HTTP (a server process). JSON bodies are sent as JSON, forms as forms,
// strings as they are; the answer's body is parsed when it is JSON.
import type { App } from '../../src/http/app-type.ts';
import { runCli } from './process.ts';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, the text when it is not JSON, or null when empty. */
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  /** An object is sent as JSON, a string as it is (set its content-type in headers). */
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

function requestParts(options: RequestOptions): { headers: Record<string, string>; payload: string | undefined } {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(options.form).toString();
  } else if (typeof options.body === 'string') {
    payload = options.body;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(options.body);
  }
  return { headers: { ...headers, ...options.headers }, payload };
}

function parsed(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A request to an app in this process. */
export async function inject(app: App, method: Method, url: string, options: RequestOptions = {}): Promise<Answer> {
  const { headers, payload } = requestParts(options);
  const response = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return {
    status: response.statusCode,
    headers: response.headers as Answer['headers'],
    text: response.body,
    body: parsed(response.body),
  };
}

/** A request over real HTTP, to a server process. */
export async function request(
  baseUrl: string,
  method: Method,
  path: string,
  options: RequestOptions = {},
): Promise<Answer> {
  const { headers, payload } = requestParts(options);
  const response = await fetch(baseUrl + path, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), text, body: parsed(text) };
}

/** A token from the token endpoint of a server process; fails the test when refused. */
export async function tokenFrom(baseUrl: string, form: Record<string, string>): Promise<string> {
  const answer = await request(baseUrl, 'POST', '/auth/token', { form });
  if (answer.status !== 200) throw new Error(`token request failed: ${answer.status} ${answer.text}`);
  return answer.body.access_token;
}

/** An operator application made with the command line, and its token (scope admin). */
export async function operatorToken(
  baseUrl: string,
  env: Record<string, string>,
  name = 'Test operator',
): Promise<string> {
  const created = await runCli(['admin', 'app', 'create', '--name', name, '--operator'], env);
  if (created.code !== 0) throw new Error(`admin app create failed: ${created.stderr}`);
  const { clientId, clientSecret } = JSON.parse(created.stdout);
  return tokenFrom(baseUrl, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
}
