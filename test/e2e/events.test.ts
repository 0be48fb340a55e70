// End to end, with the real server process: an operator provisions with `gatehouse admin`, a
// gateway controller posts events (a retried batch, a bad event, a clock ahead), and a PMS reads
// them back by cursor and exports them as CSV.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { clientFor, ok, tokenFor } from '../helpers/e2e.ts';
import { runCli } from '../helpers/process.ts';
import { realServer } from '../helpers/server.ts';

const served = realServer();

async function admin(...args: string[]): Promise<Record<string, string>> {
  const result = await runCli(['admin', ...args], served.database.env);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

const token = (grant: Parameters<typeof tokenFor>[1]) => tokenFor(served.url, grant);

it('a controller reports events and a PMS pages and exports them', async () => {
  // Provisioning, through the running server's database.
  const account = await admin('account', 'create', '--name', 'End To End Storage');
  const facility = await admin(
    'facility',
    'create',
    '--account',
    account.id!,
    '--name',
    'Main Street',
    '--time-zone',
    'America/Chicago',
  );
  const pms = await admin('app', 'create', '--name', 'E2E PMS');
  const key = await admin('account-key', 'create', '--account', account.id!, '--app', pms.clientId!);
  const gatewayCredential = await admin('gateway', 'create', '--facility', facility.id!);
  const gateway = await token({
    grant_type: 'client_credentials',
    client_id: gatewayCredential.clientId!,
    client_secret: gatewayCredential.clientSecret!,
  });
  const reader = await token({
    grant_type: 'password',
    client_id: pms.clientId!,
    client_secret: pms.clientSecret!,
    username: key.apiKey!,
    password: key.apiSecret!,
  });

  // The controller posts 3 batches of 40; the second is sent twice (a retry after a lost answer).
  const controller = clientFor(served.url, gateway);
  const post = (events: unknown[]) => ok(controller.POST('/gateway/v1/events', { body: { events } }), 200);
  const batches = [0, 1, 2].map((b) =>
    Array.from({ length: 40 }, (_, i) => ({
      eventId: `e2e-${b}-${i}`,
      eventType: [18, 15, 33, 10][i % 4],
      occurredAt: new Date(Date.now() - (b * 40 + i + 1) * 60_000).toISOString(),
      deviceName: i % 5 === 0 ? '=cmd|calc' : `Keypad ${i % 3}`,
      codeEntered: i % 4 === 1 ? '918273' : undefined,
    })),
  );
  batches[2]![7] = { ...batches[2]![7]!, eventType: 404 };
  batches[2]![8] = { ...batches[2]![8]!, occurredAt: new Date(Date.now() + 3600_000).toISOString() };
  assert.deepEqual(await post(batches[0]!), { accepted: 40, duplicates: 0, rejected: [], warnings: [] });
  assert.equal((await post(batches[1]!)).accepted, 40);
  const retry = await post(batches[1]!);
  assert.deepEqual([retry.accepted, retry.duplicates], [0, 40]);
  const third = await post(batches[2]!);
  assert.deepEqual(
    [third.accepted, third.rejected.map((r) => r.index), third.warnings.map((w) => w.index)],
    [39, [7], [8]],
  );

  // The PMS walks the account by cursor, 25 at a time.
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  const pmsClient = clientFor(served.url, reader);
  do {
    const { data, response }: { data?: unknown; response: Response } = await pmsClient.GET(
      '/gatewayevents/accounts/{accountId}',
      {
        params: { path: { accountId: Number(account.id) }, query: { pageSize: 25, ...(cursor ? { cursor } : {}) } },
      },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('api-supported-versions'), '1.0, 2.0, 3.0');
    // (Typed here: the loop on the cursor is more than the inference follows.)
    const page = data as {
      metadata: { nextCursor: string | null; totalResults: number };
      items: { id: string; occurredAtLocal: string; facilityName: string; codeEntered: string | null }[];
    };
    assert.equal(page.metadata.totalResults, 119);
    for (const item of page.items) {
      assert.equal(item.facilityName, 'Main Street');
      assert.match(item.occurredAtLocal, /-0[56]:00$/);
      assert.ok(item.codeEntered === null || item.codeEntered === '****73');
    }
    ids.push(...page.items.map((i) => i.id));
    cursor = page.metadata.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 5);
  assert.equal(ids.length, 119);
  assert.equal(new Set(ids).size, 119);

  // And exports them.
  const { data: csv, response: exported } = await pmsClient.GET('/gatewayevents/facilities/{facilityId}/export', {
    params: { path: { facilityId: Number(facility.id) } },
    parseAs: 'text',
  });
  assert.equal(exported.status, 200);
  assert.match(exported.headers.get('content-disposition') ?? '', /^attachment; filename=".+\.csv"$/);
  const lines = (csv ?? '').split('\r\n').filter(Boolean);
  assert.equal(lines.length, 120);
  assert.ok(
    lines[0]!.startsWith('id,occurredAt,occurredAtLocal,receivedAt,accountId,facilityId,facilityName,eventType'),
  );
  assert.equal(lines.filter((line) => line.includes(",'=cmd|calc,")).length, 24);
  assert.equal(
    lines.some((line) => line.includes(',=cmd')),
    false,
  );

  // The code never reached the log in clear.
  assert.equal(served.server.output().includes('918273'), false);
});
