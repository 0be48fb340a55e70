#!/usr/bin/env node
// A flood of wrong-secret token requests, sent from a process of its own that runs at the lowest
// CPU priority: an attacker's CPU is not the victim's, so the flood's client work (400
// connections, their answers) must not compete with the server or with the request being
// measured. Plain .mjs (no TypeScript loader needed). Used by token-flood.ts (floodOfWrongSecrets).
//   node token-flood-client.mjs '{"baseUrl":…,"requests":400,"addresses":200,"block":3,"knownClientId":…}'
// prints {"sent":true} once every request has been handed to the network (so that a request sent
// after that arrives behind the whole flood), then {"statuses":{…},"ms":…}.
import http from 'node:http';

const { baseUrl, requests, addresses, block, knownClientId } = JSON.parse(process.argv[2]);
const url = new URL('/auth/token', baseUrl);
const loopback = (n) => `127.${block}.${1 + Math.floor(n / 250)}.${1 + (n % 250)}`;

let flushed = 0;
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
    let handedOver = false;
    const handOver = () => {
      if (handedOver) return;
      handedOver = true;
      flushed += 1;
      if (flushed === requests) process.stdout.write(`${JSON.stringify({ sent: true })}\n`);
    };
    request.on('finish', handOver);
    request.on('error', () => {
      handOver();
      resolve(0);
    });
    request.end(payload);
  });
}

const started = performance.now();
const answers = Array.from({ length: requests }, (_, i) => {
  const clientId = i % 2 === 0 ? `gh_ci_madeup${i}` : knownClientId;
  return post(
    { grant_type: 'client_credentials', client_id: clientId, client_secret: `gh_cs_wrong${i}` },
    loopback(i % addresses),
  );
});
const statuses = {};
for (const status of await Promise.all(answers)) statuses[status] = (statuses[status] ?? 0) + 1;
process.stdout.write(`${JSON.stringify({ statuses, ms: performance.now() - started })}\n`);
