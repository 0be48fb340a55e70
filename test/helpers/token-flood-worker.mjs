// A flood of wrong-secret token requests, sent from a worker thread so that the flood's own
// client work (400 connections, their answers) does not sit in the measuring thread's event loop:
// an attacker's CPU is not the victim's. Plain .mjs: workers do not inherit the tsx loader on
// Node 20. Used by token-flood.ts (floodOfWrongSecrets).
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, requests, addresses, block, knownClientId } = workerData;
const url = new URL('/auth/token', baseUrl);
const loopback = (n) => `127.${block}.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;

function post(form, localAddress) {
  const payload = new URLSearchParams(form).toString();
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(0));
      },
    );
    request.on('error', () => resolve(0));
    request.end(payload);
  });
}

const started = performance.now();
const answers = Array.from({ length: requests }, (_, i) => {
  const clientId = i % 2 === 0 ? `gh_ci_madeup${i}` : knownClientId;
  return post({ grant_type: 'client_credentials', client_id: clientId, client_secret: `gh_cs_wrong${i}` }, loopback(i % addresses));
});
parentPort.postMessage({ sent: true });
const statuses = {};
for (const status of await Promise.all(answers)) statuses[status] = (statuses[status] ?? 0) + 1;
parentPort.postMessage({ statuses, ms: performance.now() - started });
