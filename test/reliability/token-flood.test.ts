// Floods of wrong secrets against the real server process (issue 9, item 4). Before the fix: 200
// parallel wrong secrets for one client were all checked (68–200 of them, limit 10); a client id
// attacked from one address was locked out from every address; a valid token request waited
// 12–23 s behind a flood of 400 guesses (every guess queued its scrypt check).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { floodOfWrongSecrets, loopback, postToken } from '../helpers/token-flood.ts';

let database: TestDatabase;
let server: ServerProcess;
type Client = { clientId: string; clientSecret: string };
type Key = { apiKey: string; apiSecret: string };
const clients: Record<'victim' | 'other' | 'warm', Client> = {} as never;
/** PMS applications never used before, with an account key each: one for the quiet measurement, one for the flood. */
const coldPms: { pms: Client; key: Key }[] = [];

before(async () => {
  database = await createTestDatabase();
  // Process memory for the counters (Redis has its own test); limits at their defaults.
  const env = { ...database.env, REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '1000000' };
  const json = async (args: string[]) => {
    const result = await runCli(args, env);
    if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const account = await json(['admin', 'account', 'create', '--name', 'Flooded']);
  for (const name of ['Quiet PMS', 'Cold PMS']) {
    const pms = await json(['admin', 'app', 'create', '--name', name]);
    coldPms.push({
      pms,
      key: await json(['admin', 'account-key', 'create', '--account', account.id, '--app', pms.clientId]),
    });
  }
  clients.victim = await json(['admin', 'app', 'create', '--name', 'Victim', '--operator']);
  clients.other = await json(['admin', 'app', 'create', '--name', 'Other', '--operator']);
  clients.warm = await json(['admin', 'app', 'create', '--name', 'Warm', '--operator']);
  server = await startServerProcess(env);
});
after(async () => {
  await server?.kill();
  await database?.drop();
});

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
        postToken(server.url, clientCredentials(clients.victim, `gh_cs_guess${i}`), from),
      ),
    );
    const checked = answers.filter((a) => a.status === 401);
    const refused = answers.filter((a) => a.status === 429);
    const statuses = JSON.stringify(answers.map((a) => a.status));
    assert.ok(checked.length <= 10, `${checked.length} secrets checked (401): ${statuses}`);
    assert.equal(checked.length + refused.length, 200, statuses);
    for (const answer of refused) {
      assert.equal(answer.body.error, 'invalid_request');
      assert.ok(Number(answer.headers['retry-after']) >= 1);
    }
    const afterwards = await postToken(server.url, clientCredentials(clients.victim), from);
    assert.equal(afterwards.status, 429, 'even the right secret waits for the window at that address');
  });

  it('leaves the attacked client id working from another address', async () => {
    const answer = await postToken(server.url, clientCredentials(clients.victim), loopback(2, 1));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });

  it('answers a valid token request in under a second during a flood of 400 wrong secrets from other addresses and clients', async () => {
    // Cache hits are the usual case for a client that asks often (secrets verified in the last
    // 5 minutes skip scrypt); a first request — or one an hour later — is not: test both. The
    // password grant checks two secrets (the client's and the account key's), both uncached here.
    const passwordForm = ({ pms, key }: { pms: Client; key: Key }) => ({
      grant_type: 'password',
      client_id: pms.clientId,
      client_secret: pms.clientSecret,
      username: key.apiKey,
      password: key.apiSecret,
    });
    // The same requests without a flood: what this machine takes right now.
    const quietUncached = await postToken(server.url, passwordForm(coldPms[0]!), loopback(4, 0));
    const quietCached = await postToken(server.url, clientCredentials(clients.warm), loopback(4, 1));
    assert.equal(quietUncached.status, 200);
    assert.equal(quietCached.status, 200);

    const flood = floodOfWrongSecrets(server.url, {
      requests: 400,
      addresses: 200,
      block: 3,
      knownClientId: clients.other.clientId,
    });
    // The whole flood is on its way before the valid requests: they arrive behind it.
    await flood.sent;
    const [uncached, cached] = await Promise.all([
      postToken(server.url, passwordForm(coldPms[1]!), loopback(4, 2)),
      postToken(server.url, clientCredentials(clients.warm), loopback(4, 3)),
    ]);
    const flooded = await flood.answered;
    const report =
      `uncached ${Math.round(uncached.ms)} ms (quiet ${Math.round(quietUncached.ms)}), cached ${Math.round(cached.ms)} ms (quiet ${Math.round(quietCached.ms)}); ` +
      `flood answers ${JSON.stringify(flooded.statuses)} in ${Math.round(flooded.ms)} ms`;
    assert.equal(uncached.status, 200, `${JSON.stringify(uncached.body)} — ${report}`);
    assert.equal(cached.status, 200, `${JSON.stringify(cached.body)} — ${report}`);
    // Not a speed target (that is measured in docs/BENCHMARKS.md: under a second): a bound that
    // catches starvation on a shared machine. The old code queued the valid request behind the whole
    // flood's scrypt work, 12–30 s here; now it waits for at most a few checks.
    assert.ok(uncached.ms < Math.max(5000, 5 * quietUncached.ms), report);
    assert.ok(cached.ms < Math.max(5000, 5 * quietCached.ms), report);
    // The flood was answered: checked (401) or refused at once (503 + Retry-After), never a 500.
    assert.equal(
      (flooded.statuses[401] ?? 0) + (flooded.statuses[503] ?? 0) + (flooded.statuses[429] ?? 0),
      400,
      report,
    );
    console.log(`# ${report}`);
  });
});
