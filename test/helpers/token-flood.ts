// Token requests over real HTTP from chosen source addresses, and a flood of wrong secrets: for the
// reliability tests and bench/token-flood.ts. Linux routes all of 127.0.0.0/8 to loopback, so a
// client socket bound to 127.0.x.y reaches a server on 127.0.0.1 and is seen as coming from
// 127.0.x.y — many "addresses" from one test process.
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
  ms: number;
}

/** POST /auth/token, form-encoded, from `fromAddress` (a loopback address). */
export function postToken(
  baseUrl: string,
  form: Record<string, string>,
  fromAddress = '127.0.0.1',
): Promise<TokenAnswer> {
  const url = new URL('/auth/token', baseUrl);
  const payload = new URLSearchParams(form).toString();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: fromAddress,
        // A fresh connection per request: a pooled one would keep the address of its first request.
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text);
          } catch {
            body = { text };
          }
          resolve({
            status: response.statusCode ?? 0,
            body,
            headers: response.headers,
            ms: performance.now() - started,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Loopback address number `n` (0-based) of a /16 block: 127.<block>.x.y, never .0 or .255. */
export const loopback = (block: number, n: number) => `127.${block}.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;

export interface FloodResult {
  /** Answers by status code (0: no answer). */
  statuses: Record<number, number>;
  ms: number;
}

/**
 * `requests` wrong-secret token requests at once, from `addresses` source addresses (127.<block>.…):
 * half for made-up client ids, half for `knownClientId` (a real client, wrong secret). Sent by a
 * child process at the lowest CPU priority (token-flood-client.mjs); `sent` resolves once every
 * request is on its way, `answered` with the outcome.
 */
export function floodOfWrongSecrets(
  baseUrl: string,
  options: { requests: number; addresses: number; block: number; knownClientId: string },
): { sent: Promise<void>; answered: Promise<FloodResult> } {
  const client = spawn(
    process.execPath,
    [fileURLToPath(new URL('./token-flood-client.mjs', import.meta.url)), JSON.stringify({ baseUrl, ...options })],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (client.pid !== undefined) os.setPriority(client.pid, 19);
  let onSent: () => void = () => {};
  let failedBeforeSent: (error: Error) => void = () => {};
  const sent = new Promise<void>((resolve, reject) => {
    onSent = resolve;
    failedBeforeSent = reject;
  });
  const answered = new Promise<FloodResult>((resolve, reject) => {
    let buffered = '';
    client.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as { sent: true } | FloodResult;
        buffered = buffered.slice(end + 1);
        if ('sent' in message) onSent();
        else resolve(message);
      }
    });
    const fail = (error: Error) => {
      failedBeforeSent(error);
      reject(error);
    };
    client.once('error', fail);
    client.once('exit', (code) => fail(new Error(`flood client exited (${code})`)));
  });
  return { sent, answered };
}
