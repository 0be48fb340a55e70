// Sandboxes (issue 30 part A): created by an account (or the operator for one), seeded, listed, read,
// marked in tokens and views, refused past five, deleted with every row (the tables derived from the
// schema), and deleted by the daily job 30 days after their last use (the clock moved).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../helpers/harness.ts';
import { sandboxRowsLeft } from '../helpers/sandboxes.ts';
import { bearer, provisionAccount, requestToken, tenantFixture } from '../helpers/tenants.ts';
import type { EntityId } from '../../src/ids.ts';

const clock = new ManualClock();
const site = tenantFixture({ operator: true, clock, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
const { t } = site;
const DAY_MS = 86_400_000;

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/** A new production account of its own (each test has its own five sandboxes). */
const owner = () => provisionAccount(t, { name: 'Owner Storage' });

async function createSandbox(token: string, body: object = { name: 'Tests' }) {
  const answer = await call('POST', '/sandboxes', token, body);
  assert.equal(answer.statusCode, 201, answer.body);
  return answer.json();
}

/** The sandbox's account key's token (password grant through the owner's application). */
async function sandboxToken(pms: { clientId: string; clientSecret: string }, sandbox: any) {
  const { status, body } = await requestToken(t, {
    grant_type: 'password',
    client_id: pms.clientId,
    client_secret: pms.clientSecret,
    username: sandbox.credentials.accountKey.apiKey,
    password: sandbox.credentials.accountKey.apiSecret,
  });
  assert.equal(status, 200, JSON.stringify(body));
  return body as { access_token: string; refresh_token: string };
}

async function gatewayTokenOf(gateway: { clientId: string; clientSecret: string }) {
  const { status, body } = await requestToken(t, {
    grant_type: 'client_credentials',
    client_id: gateway.clientId,
    client_secret: gateway.clientSecret,
  });
  assert.equal(status, 200, JSON.stringify(body));
  return body.access_token as string;
}

const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
  Number((await query.execute(t.services.database.db)).rows[0]!.n);

describe('creating sandboxes', () => {
  it('seeds a small, a medium and a 5,000-unit facility set-based: sealed codes by the rules, no command per row', async () => {
    const account = await owner();
    const started = performance.now();
    const sandbox = await createSandbox(account.token, { name: ' Seeded ', facilities: ['small', 'medium', 'large'] });
    console.log(
      `# a sandbox with small, medium and large facilities (5,220 units, 3,160 visitors) created in ${Math.round(performance.now() - started)} ms`,
    );
    assert.equal(sandbox.name, 'Seeded');
    assert.equal(sandbox.ownerAccountId, account.accountId);
    assert.equal(Date.parse(sandbox.expiresAt) - Date.parse(sandbox.lastUsedAt), 30 * DAY_MS);
    assert.deepEqual(
      sandbox.facilities.map((f: any) => [f.size, f.units, f.visitors]),
      [
        ['small', 20, 10],
        ['medium', 200, 150],
        ['large', 5000, 3000],
      ],
    );
    const { accountKey, gateways } = sandbox.credentials;
    assert.match(accountKey.apiKey, /^sbkey_/);
    assert.match(accountKey.apiSecret, /^gh_sbs_/);
    assert.equal(accountKey.clientId, account.pms.clientId);
    assert.deepEqual(
      gateways.map((g: any) => g.facilityId),
      sandbox.facilities.map((f: any) => f.id),
    );
    for (const gateway of gateways) {
      assert.match(gateway.clientId, /^sbgwc_/);
      assert.match(gateway.clientSecret, /^gh_sbgs_/);
    }
    const large = sandbox.facilities[2];
    const facilityIds = sandbox.facilities.map((f: any) => f.id);
    // The rows themselves: counted, no command written for them, every code distinct, sealed to its visitor.
    assert.equal(await count(sql`select count(*)::int as n from units where facility_id = ${large.id}::int8`), 5000);
    assert.equal(
      await count(sql`select count(*)::int as n from commands where facility_id = any(${facilityIds}::int8[])`),
      0,
    );
    const visitors = await sql<{ id: EntityId; access_code_sealed: Buffer; status: string; unit_id: EntityId }>`
      select v.id, v.access_code_sealed, u.status, v.unit_id from visitors v join units u on u.id = v.unit_id
       where v.facility_id = ${large.id}::int8`.execute(t.services.database.db);
    assert.equal(visitors.rows.length, 3000);
    const codes = visitors.rows.map((v) => t.services.accessControl.vault.unseal(Number(v.id), v.access_code_sealed));
    assert.equal(new Set(codes).size, 3000, 'every code distinct');
    for (const code of codes) assert.match(code, /^[0-9]{4,10}$/, 'the facility’s rules: 4 to 10 digits');
    assert.ok(visitors.rows.every((v) => v.status === 'Rented'));
    assert.equal(new Set(visitors.rows.map((v) => v.unit_id)).size, 3000, 'one tenant per unit');

    // The sandbox's key works, and its view of its facilities is its own.
    const token = (await sandboxToken(account.pms, sandbox)).access_token;
    const facilities = await call('GET', '/facilities', token);
    assert.deepEqual(
      facilities
        .json()
        .map((f: any) => f.id)
        .sort((x: number, y: number) => x - y),
      facilityIds,
    );
    const units = await call('GET', `/facilities/${sandbox.facilities[0].id}/units`, token);
    assert.equal(units.json().length, 20);
  });

  it('lists newest first and reads one; another owner’s sandbox and a production account are 404', async () => {
    const [a, b] = [await owner(), await owner()];
    const first = await createSandbox(a.token, { name: 'First' });
    const second = await createSandbox(a.token, { name: 'Second', facilities: ['small'] });
    const list = await call('GET', '/sandboxes', a.token);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().map((s: any) => s.id),
      [second.id, first.id],
    );
    assert.equal(list.json()[0].credentials, undefined, 'no secret after the creation');
    const one = await call('GET', `/sandboxes/${second.id}`, a.token);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json().facilities[0].size, 'small');
    const { credentials: _, ...created } = second;
    assert.deepEqual(one.json(), created);

    const notFound = await call('GET', '/sandboxes/987654321', a.token);
    assert.equal(notFound.statusCode, 404);
    for (const [method, url] of [
      ['GET', `/sandboxes/${first.id}`],
      ['DELETE', `/sandboxes/${first.id}`],
    ] as const) {
      const answer = await call(method, url, b.token);
      assert.equal(answer.statusCode, 404, `${method} ${url} by another owner`);
      assert.equal(answer.json().code, notFound.json().code);
      assert.equal(
        answer.json().detail,
        notFound.json().detail,
        'indistinguishable from a sandbox that does not exist',
      );
    }
    assert.deepEqual((await call('GET', '/sandboxes', b.token)).json(), []);
    // A production account's id (the owner's own, another's) is no sandbox.
    assert.equal((await call('GET', `/sandboxes/${a.accountId}`, a.token)).statusCode, 404);
    assert.equal((await call('DELETE', `/sandboxes/${b.accountId}`, a.token)).statusCode, 404);
    assert.equal((await call('GET', `/sandboxes/${first.id}`, a.token)).statusCode, 200, 'still there');
  });

  it('the operator creates, lists and deletes an account’s sandboxes for one of its applications', async () => {
    const a = await owner();
    const base = `/admin/accounts/${a.accountId}/sandboxes`;
    const created = await call('POST', base, site.operator, {
      name: 'Certification',
      facilities: ['small'],
      clientId: a.pms.clientId,
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.match(created.json().credentials.accountKey.apiKey, /^sbkey_/);
    await sandboxToken(a.pms, created.json());
    const listed = await call('GET', base, site.operator);
    assert.deepEqual(
      listed.json().map((s: any) => s.id),
      [created.json().id],
    );
    assert.equal((await call('GET', `${base}/${created.json().id}`, site.operator)).statusCode, 200);
    // The operator's account list marks it, with its owner.
    const accounts = (await call('GET', '/admin/accounts', site.operator)).json();
    assert.deepEqual(
      accounts.find((x: any) => x.id === created.json().id),
      {
        id: created.json().id,
        name: 'Certification',
        createdAt: created.json().createdAt,
        sandbox: true,
        ownerAccountId: a.accountId,
      },
    );
    assert.deepEqual(
      [
        accounts.find((x: any) => x.id === a.accountId).sandbox,
        accounts.find((x: any) => x.id === a.accountId).ownerAccountId,
      ],
      [false, null],
    );
    const unknownApp = await call('POST', base, site.operator, { name: 'X', clientId: 'app_nothing' });
    assert.equal(unknownApp.statusCode, 404);
    assert.equal((await call('DELETE', `${base}/${created.json().id}`, site.operator)).statusCode, 204);
    assert.equal((await call('GET', `${base}/${created.json().id}`, site.operator)).statusCode, 404);
    // An account key's token cannot use the operator's routes, nor the operator's token the account's.
    assert.equal((await call('GET', base, a.token)).statusCode, 403);
    assert.equal((await call('POST', '/sandboxes', site.operator, { name: 'X' })).statusCode, 403);
  });
});

describe('refusals', () => {
  it('a sixth sandbox is 409 SANDBOX_LIMIT; of two at once at four, one is refused', async () => {
    const a = await owner();
    for (let i = 0; i < 4; i++) await createSandbox(a.token, { name: `S${i}` });
    const both = await Promise.all([
      call('POST', '/sandboxes', a.token, { name: 'Fifth' }),
      call('POST', '/sandboxes', a.token, { name: 'Sixth' }),
    ]);
    assert.deepEqual(both.map((r) => r.statusCode).sort(), [201, 409]);
    const refused = both.find((r) => r.statusCode === 409)!;
    assert.equal(refused.json().code, 'SANDBOX_LIMIT');
    const again = await call('POST', '/sandboxes', a.token, { name: 'Seventh' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'SANDBOX_LIMIT');
    assert.equal((await call('GET', '/sandboxes', a.token)).json().length, 5);
  });

  it('bad input is 400 naming every bad field', async () => {
    const a = await owner();
    const unknownSize = await call('POST', '/sandboxes', a.token, { name: 'X', facilities: ['small', 'huge'] });
    assert.equal(unknownSize.statusCode, 400, unknownSize.body);
    assert.ok(
      unknownSize.json().errors.some((e: any) => /^facilities(\[1\]|\/1)/.test(e.path)),
      unknownSize.body,
    );
    const empty = await call('POST', '/sandboxes', a.token, { name: '' });
    assert.equal(empty.statusCode, 400);
    assert.ok(empty.json().errors.some((e: any) => e.path === 'name'));
    const blank = await call('POST', '/sandboxes', a.token, { name: '   ' });
    assert.equal(blank.statusCode, 400);
    assert.ok(blank.json().errors.some((e: any) => e.path === 'name'));
    const both = await call('POST', '/sandboxes', a.token, { name: '', facilities: ['tiny'] });
    assert.deepEqual(
      both
        .json()
        .errors.map((e: any) => e.path.split(/[[/]/)[0])
        .sort(),
      ['facilities', 'name'],
    );
    assert.deepEqual((await call('GET', '/sandboxes', a.token)).json(), [], 'nothing made');
  });

  it('a sandbox cannot create sandboxes: 403 SANDBOX_CANNOT_OWN_SANDBOXES (the route exists, its token is valid)', async () => {
    const a = await owner();
    const sandbox = await createSandbox(a.token);
    const token = (await sandboxToken(a.pms, sandbox)).access_token;
    const answer = await call('POST', '/sandboxes', token, { name: 'Nested' });
    assert.equal(answer.statusCode, 403);
    assert.equal(answer.json().code, 'SANDBOX_CANNOT_OWN_SANDBOXES');
    // Nor list or read any: the sandbox routes are a production account's.
    assert.equal((await call('GET', '/sandboxes', token)).statusCode, 403);
    assert.equal((await call('GET', `/sandboxes/${sandbox.id}`, token)).statusCode, 403);
    // The operator cannot make one for a sandbox either.
    const admin = await call('POST', `/admin/accounts/${sandbox.id}/sandboxes`, site.operator, {
      name: 'Nested',
      clientId: a.pms.clientId,
    });
    assert.equal(admin.statusCode, 403);
    assert.equal(admin.json().code, 'SANDBOX_CANNOT_OWN_SANDBOXES');
  });

  it('a production credential reading a sandbox facility, and a sandbox’s reading its owner’s, are 404', async () => {
    const a = await owner();
    const sandbox = await createSandbox(a.token, { name: 'Iso', facilities: ['small'] });
    const token = (await sandboxToken(a.pms, sandbox)).access_token;
    const sandboxFacility = sandbox.facilities[0].id;
    const ownerFacility = a.facilities[0]!.id;
    for (const [who, tokenOf, facility] of [
      ['the owner', a.token, sandboxFacility],
      ['another account', site.account.token, sandboxFacility],
      ['the sandbox', token, ownerFacility],
      ['the sandbox', token, site.facilityId],
    ] as const) {
      for (const path of ['', '/units', '/visitors']) {
        const answer = await call('GET', `/facilities/${facility}${path}`, tokenOf);
        assert.equal(answer.statusCode, 404, `${who}: /facilities/${facility}${path}`);
      }
    }
    const events = await t.app.inject({
      method: 'GET',
      url: `/gatewayevents/accounts/${a.accountId}`,
      headers: { ...bearer(token), 'api-version': '3.0' },
    });
    assert.equal(events.statusCode, 404, 'the owner’s account events');
  });
});

describe('marked as a sandbox', () => {
  it('the sandbox claim is in the tokens of its key and its controllers, absent from production ones; whoami shows it', async () => {
    const a = await owner();
    const sandbox = await createSandbox(a.token, { name: 'Claims', facilities: ['small'] });
    const account = await sandboxToken(a.pms, sandbox);
    const gateway = await gatewayTokenOf(sandbox.credentials.gateways[0]);
    assert.equal(claimsOf(account.access_token).sandbox, true);
    assert.equal(claimsOf(account.access_token).account_id, sandbox.id);
    assert.equal(claimsOf(gateway).sandbox, true);
    assert.equal(claimsOf(gateway).facility_id, sandbox.facilities[0].id);
    // Refreshed, still a sandbox's.
    const refreshed = await requestToken(t, {
      grant_type: 'refresh_token',
      client_id: a.pms.clientId,
      client_secret: a.pms.clientSecret,
      refresh_token: account.refresh_token,
    });
    assert.equal(refreshed.status, 200);
    assert.equal(claimsOf(refreshed.body.access_token).sandbox, true);
    const whoami = await call('GET', '/auth/whoami', account.access_token);
    assert.equal(whoami.json().sandbox, true);
    assert.equal(whoami.json().accountId, sandbox.id);
    assert.equal((await call('GET', '/auth/whoami', gateway)).json().sandbox, true);

    // Production: no claim at all, and no mark.
    assert.equal('sandbox' in claimsOf(a.token), false);
    const productionGateway = await t.services.tenancy.createGatewayCredential({ facilityId: a.facilities[0]!.id });
    assert.match(productionGateway.clientId, /^gwc_/);
    assert.match(productionGateway.clientSecret, /^gh_gs_/);
    assert.equal('sandbox' in claimsOf(await gatewayTokenOf(productionGateway)), false);
    assert.equal('sandbox' in (await call('GET', '/auth/whoami', a.token)).json(), false);
    assert.match(a.key.apiKey, /^key_/);
    assert.match(a.key.apiSecret, /^gh_as_/);
  });

  it('the status list marks a sandbox’s facilities: to the sandbox, to the operator; production ones unmarked', async () => {
    const a = await owner();
    const sandbox = await createSandbox(a.token, { name: 'Status', facilities: ['small'] });
    const account = await sandboxToken(a.pms, sandbox);
    const mine = (await call('GET', '/facilities/statuslist', account.access_token)).json();
    assert.deepEqual(
      mine.map((row: { facilityId: number; sandbox: boolean }) => [row.facilityId, row.sandbox]),
      [[sandbox.facilities[0].id, true]],
    );
    const production = (await call('GET', '/facilities/statuslist', a.token)).json();
    assert.ok(production.length > 0);
    assert.ok(production.every((row: { sandbox: boolean }) => row.sandbox === false));
    const everyone = (await call('GET', '/facilities/statuslist', site.operator)).json();
    const marked = (id: number) => everyone.find((row: { facilityId: number }) => row.facilityId === id)?.sandbox;
    assert.equal(marked(sandbox.facilities[0].id), true);
    assert.equal(marked(a.facilities[0]!.id), false);
  });
});

describe('deleting a sandbox', () => {
  it('DELETE /sandboxes/{id} → 204, every row of it gone (in every table that names an account or facility), its tokens refused', async () => {
    const a = await owner();
    const keep = await createSandbox(a.token, { name: 'Kept', facilities: ['small'] });
    const sandbox = await createSandbox(a.token, { name: 'Doomed', facilities: ['small', 'medium'] });
    const { access_token: token } = await sandboxToken(a.pms, sandbox);
    const facility = sandbox.facilities[0].id;
    // Activity of every kind: a unit and a visitor (commands), a controller's events (and reported state),
    // a webhook subscription, a refresh token, a status read.
    const unit = await call('POST', `/facilities/${facility}/units`, token, { unitNumber: 'Z-1' });
    assert.equal(unit.statusCode, 201, unit.body);
    const visitor = await call('POST', `/facilities/${facility}/visitors`, token, {
      unitId: unit.json().id,
      firstName: 'Zed',
      lastName: 'Zero',
      isTenant: true,
      accessCode: '4455667',
    });
    assert.equal(visitor.statusCode, 201, visitor.body);
    const gateway = await gatewayTokenOf(sandbox.credentials.gateways[0]);
    const batch = await t.app.inject({
      method: 'POST',
      url: '/gateway/v1/events',
      headers: bearer(gateway),
      payload: {
        events: [
          { eventId: 'sb-1', eventType: 18, occurredAt: new Date().toISOString(), unitId: unit.json().id },
          { eventId: 'sb-2', eventType: 10, occurredAt: new Date().toISOString(), deviceId: 'gate-1' },
        ],
      },
    });
    assert.ok(batch.statusCode < 300, batch.body);
    const subscription = await call('POST', '/webhooks/subscriptions', token, {
      url: 'https://receiver.example.com/hooks',
      topics: ['gateway.events'],
    });
    assert.equal(subscription.statusCode, 201, subscription.body);
    assert.equal((await call('GET', `/facilities/${facility}/status`, token)).statusCode, 200);

    const facilities = sandbox.facilities.map((f: any) => f.id);
    const credentials = (
      await sql<{ id: string }>`
        select id::text from account_credentials where account_id = ${sandbox.id}::int8
        union all select id::text from gateway_credentials where facility_id = any(${facilities}::int8[])`.execute(
        t.services.database.db,
      )
    ).rows.map((r) => r.id);
    const ids = { account: sandbox.id, facilities, credentials };
    const before = await sandboxRowsLeft(t, ids);
    // So that the test can fail: the sandbox has rows in the tables of every face it touched.
    for (const table of [
      'accounts.id',
      'facilities.account_id',
      'units.facility_id',
      'visitors.facility_id',
      'commands.facility_id',
      'gateway_events.account_id',
      'gateway_event_ids.facility_id',
      'webhook_subscriptions.account_id',
      'account_credentials.account_id',
      'gateway_credentials.facility_id',
      'refresh_tokens.credential_id',
      'time_groups.facility_id',
      'sandbox_facilities.account_id',
    ])
      assert.ok(
        (before[table] ?? 0) > 0,
        `before the deletion, ${table} holds the sandbox's rows: ${JSON.stringify(before)}`,
      );

    const ownerFacilityEvents = await count(
      sql`select count(*)::int as n from facilities where account_id = ${a.accountId}::int8`,
    );
    const deleted = await call('DELETE', `/sandboxes/${sandbox.id}`, a.token);
    assert.equal(deleted.statusCode, 204);
    assert.deepEqual(await sandboxRowsLeft(t, ids), {}, 'every row of the sandbox is gone');
    // Its owner, and its owner's other sandbox, untouched.
    assert.equal(
      await count(sql`select count(*)::int as n from facilities where account_id = ${a.accountId}::int8`),
      ownerFacilityEvents,
    );
    assert.equal((await call('GET', `/sandboxes/${keep.id}`, a.token)).json().facilities[0].units, 20);
    assert.equal((await call('GET', `/sandboxes/${sandbox.id}`, a.token)).statusCode, 404);
    // Its credentials are refused: a new token at once, and its tokens as a revoked credential's (the guard's next read).
    const refused = await requestToken(t, {
      grant_type: 'password',
      client_id: a.pms.clientId,
      client_secret: a.pms.clientSecret,
      username: sandbox.credentials.accountKey.apiKey,
      password: sandbox.credentials.accountKey.apiSecret,
    });
    assert.equal(refused.status, 400);
    clock.advance(10_000);
    assert.equal((await call('GET', '/facilities', token)).statusCode, 401);
    assert.equal((await call('GET', '/gateway/v1/commands?wait=0', gateway)).statusCode, 401);
    // A production account's events stay append-only.
    const production = await gatewayTokenOf(
      await t.services.tenancy.createGatewayCredential({ facilityId: a.facilities[0]!.id }),
    );
    const reported = await t.app.inject({
      method: 'POST',
      url: '/gateway/v1/events',
      headers: bearer(production),
      payload: {
        events: [{ eventId: 'prod-1', eventType: 10, occurredAt: new Date().toISOString(), deviceId: 'gate-1' }],
      },
    });
    assert.ok(reported.statusCode < 300, reported.body);
    await assert.rejects(
      sql`delete from gateway_events where account_id = ${a.accountId}::int8`.execute(t.services.database.db),
      /append-only/,
    );
  });
});

describe('last use and expiry', () => {
  it('a token marks the sandbox used (once a minute at most); the daily job deletes one unused for 31 days, keeps one unused for 29', async () => {
    const a = await owner();
    const old = await createSandbox(a.token, { name: 'Old', facilities: ['small'] });
    const bornAt = clock.now();
    clock.advance(2 * DAY_MS);
    const recent = await createSandbox(a.token, { name: 'Recent', facilities: ['small'] });
    assert.equal(Date.parse(recent.lastUsedAt) - Date.parse(old.lastUsedAt), 2 * DAY_MS);
    const lastUseOf = async (id: EntityId) => (await call('GET', `/sandboxes/${id}`, a.token)).json().lastUsedAt;

    // A token within the minute of the last use writes nothing; two minutes later it moves the last use to now,
    // and a second token within the minute after writes nothing again.
    await sandboxToken(a.pms, recent);
    assert.equal(await lastUseOf(recent.id), recent.lastUsedAt);
    clock.advance(120_000);
    await sandboxToken(a.pms, recent);
    const usedAt = clock.now();
    assert.equal(await lastUseOf(recent.id), new Date(usedAt).toISOString());
    assert.equal(
      Date.parse((await call('GET', `/sandboxes/${recent.id}`, a.token)).json().expiresAt),
      usedAt + 30 * DAY_MS,
    );
    clock.advance(30_000);
    await sandboxToken(a.pms, recent);
    assert.equal(await lastUseOf(recent.id), new Date(usedAt).toISOString());

    // 31 days after the old one's last use: the recent one was last used 29 days ago (less two minutes).
    clock.advance(bornAt + 31 * DAY_MS - clock.now());
    assert.equal(Math.round((clock.now() - usedAt) / DAY_MS), 29);
    const job = t.services.sandboxes.jobs.find((j) => j.name === 'sandbox.delete-expired-sandboxes')!;
    assert.ok(job.schedule, 'a scheduled job');
    await job.handle([]);
    assert.equal((await call('GET', `/sandboxes/${old.id}`, a.token)).statusCode, 404);
    assert.equal((await call('GET', `/sandboxes/${recent.id}`, a.token)).statusCode, 200);
    assert.deepEqual(
      await sandboxRowsLeft(t, { account: old.id, facilities: old.facilities.map((f: any) => f.id), credentials: [] }),
      {},
    );
  });
});
