// Floods of wrong secrets against the real server process (issue 9, item 4). Before the fix: 200
// parallel wrong secrets for one client were all checked (68–200 of them, limit 10); a client id
// attacked from one address was locked out from every address; a valid token request waited
// 12–23 s behind a flood of 400 guesses (every guess queued its scrypt check).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/harness.ts';
import { cliJson } from '../helpers/process.ts';
import { floodOfWrongSecrets, loopback, postToken } from '../helpers/token-flood.ts';
import { realServer } from '../helpers/server.ts';

type Client = { clientId: string; clientSecret: string };
const clients: Record<'victim' | 'other' | 'warm', Client> = {} as never;

/** Password grants of PMS applications never used before (two scrypt checks each, nothing remembered): one quiet, one per round. */
const coldPasswordForms: Record<string, string>[] = [];
/** Well above the valid requests' time with the fix (under a second), well below it without (8–30 s). */
const STARVED_MS = 5000;

// Process memory for the counters (Redis has its own test); limits at their defaults.
const served = realServer(
  { REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '1000000' },
  { prepare: provision, signal: 'SIGTERM' },
);

/** The applications of the flood, made with the command line before the server starts. */
async function provision(database: TestDatabase) {
  const json = (args: string[]) => cliJson(args, database.env);
  const account = await json(['admin', 'account', 'create', '--name', 'Flooded']);
  for (let i = 0; i < 4; i++) {
    const pms = await json(['admin', 'app', 'create', '--name', `Cold PMS ${i}`]);
    const key = await json(['admin', 'account-key', 'create', '--account', account.id, '--app', pms.clientId]);
    coldPasswordForms.push({
      grant_type: 'password',
      client_id: pms.clientId,
      client_secret: pms.clientSecret,
      username: key.apiKey,
      password: key.apiSecret,
    });
  }
  clients.victim = await json(['admin', 'app', 'create', '--name', 'Victim', '--operator']);
  clients.other = await json(['admin', 'app', 'create', '--name', 'Other', '--operator']);
  clients.warm = await json(['admin', 'app', 'create', '--name', 'Warm', '--operator']);
  return undefined;
}

const clientCredentials = (client: { clientId: string; clientSecret: string }, secret = client.clientSecret) => ({
  grant_type: 'client_credentials',
  client_id: client.clientId,
  client_secret: secret,
});

describe('a flood of wrong secrets', () => {
  it('checks at most 10 of 200 parallel wrong secrets for one client from one address; the rest get 429 unchecked', async () => {
    const from = loopback(2, 0);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postToken(served.url, clientCredentials(clients.victim, `gh_cs_guess${i}`), from),
      ),
    );
    const checked = answers.filter((a) => a.status === 400);
    const refused = answers.filter((a) => a.status === 429);
    const statuses = JSON.stringify(answers.map((a) => a.status));
    assert.ok(checked.length <= 10, `${checked.length} secrets checked (400 invalid_client): ${statuses}`);
    assert.equal(checked.length + refused.length, 200, statuses);
    for (const answer of refused) {
      assert.equal(answer.body.error, 'invalid_request');
      assert.ok(Number(answer.headers['retry-after']) >= 1);
    }
    const afterwards = await postToken(served.url, clientCredentials(clients.victim), from);
    assert.equal(afterwards.status, 429, 'even the right secret waits for the window at that address');
  });

  it('leaves the attacked client id working from another address', async () => {
    const answer = await postToken(served.url, clientCredentials(clients.victim), loopback(2, 1));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });

  it('answers a valid token request in under a second during a flood of 400 wrong secrets from other addresses and clients', async () => {
    // Cache hits are the usual case for a client that asks often (secrets verified in the last
    // 5 minutes skip scrypt); a first request — or one an hour later — is not: test both. The
    // password grant checks two secrets (the client's and the account key's), both uncached here.
    const quiet = await postToken(served.url, coldPasswordForms[0]!, loopback(4, 0));
    assert.equal(quiet.status, 200);
    assert.equal(
      (await postToken(served.url, clientCredentials(clients.warm), loopback(4, 1))).status,
      200,
      'the warm client is remembered',
    );
    // Not a speed target (measured in docs/BENCHMARKS.md: under a second): a bound that catches
    // starvation. Before the fix every round took 8–30 s (the valid request queued behind the whole
    // flood's scrypt work). Other test files run beside this one on a 2-core machine and can slow
    // one round; the flood cannot slow every round. Up to 3 rounds, each with a PMS never seen
    // before and the flood from new addresses.
    const rounds: string[] = [];
    for (let round = 1; round <= 3; round++) {
      const cold = coldPasswordForms[round]!;
      const flood = floodOfWrongSecrets(served.url, {
        requests: 400,
        addresses: 200,
        block: 10 + round,
        knownClientId: clients.other.clientId,
      });
      // The whole flood is on its way before the valid requests: they arrive behind it.
      await flood.sent;
      const [uncached, cached] = await Promise.all([
        postToken(served.url, cold, loopback(4, 2 * round)),
        postToken(served.url, clientCredentials(clients.warm), loopback(4, 2 * round + 1)),
      ]);
      const flooded = await flood.answered;
      const report = `uncached ${Math.round(uncached.ms)} ms, cached ${Math.round(cached.ms)} ms; flood answers ${JSON.stringify(flooded.statuses)} in ${Math.round(flooded.ms)} ms`;
      rounds.push(report);
      console.log(`# round ${round}: ${report} (no flood: ${Math.round(quiet.ms)} ms uncached)`);
      assert.equal(uncached.status, 200, `${JSON.stringify(uncached.body)} — ${report}`);
      assert.equal(cached.status, 200, `${JSON.stringify(cached.body)} — ${report}`);
      // The flood was answered: checked (400 invalid_client) or refused at once (503 + Retry-After), never a 500.
      assert.equal(
        (flooded.statuses[400] ?? 0) + (flooded.statuses[503] ?? 0) + (flooded.statuses[429] ?? 0),
        400,
        report,
      );
      if (uncached.ms < STARVED_MS && cached.ms < STARVED_MS) return;
    }
    assert.fail(`no round answered both valid requests within ${STARVED_MS} ms:\n${rounds.join('\n')}`);
  });
});
