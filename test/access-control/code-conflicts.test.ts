// Learning gate codes through the uniqueness rule (issue 23, item 7): a key without
// accesscontrol:codes sets candidate codes on its own visitor (suppressCommands: nothing reaches the
// controller) and reads ACCESS_CODE_IN_USE. Each such answer is recorded in the code-read audit,
// and a credential gets ACCESS_CODE_CONFLICTS_PER_MINUTE of them a minute; beyond, every change
// that sets a code is refused 429 without running, whether the code is taken or free.
// With REDIS_URL set (the PostgreSQL run) the counts live in Redis and are shared by instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Schemas } from '../../clients/typescript/index.ts';
import type { EntityId } from '../../src/ids.ts';
import { ok, typedClient } from '../helpers/client.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount, requestToken, type ProvisionedAccount, tenantFixture } from '../helpers/tenants.ts';
import { pms } from './helpers.ts';

const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

const site = tenantFixture({ operator: true, env: { ...redis, ACCESS_CODE_CONFLICTS_PER_MINUTE: '5' } });
const { t } = site;

/** Another key of the owner's account (its own credential), and its token. */
async function keyOf(t: TestApp, account: ProvisionedAccount, scopes?: string[]): Promise<string> {
  const key = await t.services.tenancy.createAccountKey({
    accountId: account.accountId,
    clientId: account.pms.clientId,
    scopes,
  });
  const { status, body } = await requestToken(t, {
    grant_type: 'password',
    client_id: account.pms.clientId,
    client_secret: account.pms.clientSecret,
    username: key.apiKey,
    password: key.apiSecret,
  });
  assert.equal(status, 200, JSON.stringify(body));
  return body.access_token;
}

const codeReads = (facilityId: EntityId) =>
  ok(typedClient(t, site.operator).GET('/admin/audit/code-reads', { params: { query: { facilityId } } }), 200);

type Facility = ReturnType<typeof pms>;
interface Answer {
  error?: Schemas['Problem'];
  response: Response;
}

/** A visitor's new details through `at`: the whole answer; `quiet` sends suppressCommands=true. */
const update = (at: Facility, visitorId: EntityId, body: Schemas['UpdateVisitorRequest'], quiet = false) =>
  at.client.POST('/facilities/{facilityId}/visitors/{visitorId}/update', {
    params: { path: { ...at.path, visitorId }, query: quiet ? { suppressCommands: true } : {} },
    body,
  });
const status = async (answer: Promise<Answer>) => (await answer).response.status;

/** The parts of an answer that a caller reads, without what differs per request. */
const shown = ({ error, response }: Answer) => ({
  status: response.status,
  retryAfter: response.headers.has('retry-after'),
  code: error?.code,
  // The seconds left count down between two answers (59 for one, 60 for the other at a second's edge).
  detail: error?.detail?.replace(/\b\d+ seconds\b/, '<n> seconds'),
  errors: error?.errors,
});

describe('ACCESS_CODE_IN_USE answers', () => {
  it('are recorded in the code-read audit, naming the visitor who holds the code (create, update, enable)', async () => {
    const facility = site.account.facilities[0]!.id;
    const api = pms(t, site.account.token, facility);
    const unit = await api.unit('AUD-1');
    const holder = (await api.visitor(unit.id, '7301')).visitor.id;
    const before = (await codeReads(facility)).length;

    const writeOnly = pms(t, await keyOf(t, site.account), facility);
    const created = await writeOnly.client.POST('/facilities/{facilityId}/visitors', {
      params: { path: writeOnly.path, query: { suppressCommands: true } },
      body: { unitId: unit.id, accessCode: '7301', firstName: 'Probe', lastName: 'One', isTenant: true },
    });
    assert.equal(created.response.status, 400);
    assert.equal(created.error?.code, 'ACCESS_CODE_IN_USE');
    const [record, ...older] = await codeReads(facility);
    assert.equal(older.length, before);
    assert.equal(record?.route, 'POST /facilities/:facilityId/visitors');
    assert.deepEqual(record?.visitorIds, [holder]);
    assert.equal(record?.accountId, site.account.accountId);
    assert.equal(record?.requestId, created.response.headers.get('x-correlation-id'));
    assert.ok(!JSON.stringify(record).includes('7301'), 'never the code');

    const own = (await writeOnly.visitor(unit.id, '7302')).visitor.id;
    const updated = await update(writeOnly, own, { accessCode: '7301' }, true);
    assert.equal(updated.response.status, 400);
    assert.equal(updated.error?.code, 'ACCESS_CODE_IN_USE');
    const [afterUpdate] = await codeReads(facility);
    assert.equal(afterUpdate?.route, 'POST /facilities/:facilityId/visitors/:visitorId/update');
    assert.deepEqual(afterUpdate?.visitorIds, [holder]);

    // A disabled visitor's code is free for others; enabling it again meets it in use.
    const holderAt = { params: { path: { ...api.path, visitorId: holder } } };
    await ok(api.client.POST('/facilities/{facilityId}/visitors/{visitorId}/disable', holderAt), 200);
    const taker = (await api.visitor(unit.id, '7301')).visitor.id;
    const enabled = await writeOnly.client.POST('/facilities/{facilityId}/visitors/{visitorId}/enable', {
      params: { path: { ...writeOnly.path, visitorId: holder }, query: { suppressCommands: true } },
    });
    assert.equal(enabled.response.status, 409);
    assert.equal(enabled.error?.code, 'ACCESS_CODE_IN_USE');
    const [afterEnable] = await codeReads(facility);
    assert.equal(afterEnable?.route, 'POST /facilities/:facilityId/visitors/:visitorId/enable');
    assert.deepEqual(afterEnable?.visitorIds, [taker]);

    // Changes that met no code in use leave no record.
    await ok(update(writeOnly, own, { accessCode: '7303' }), 200);
    assert.equal((await codeReads(facility)).length, before + 3);
  });
});

describe('a credential probing codes', () => {
  it('gets 5 ACCESS_CODE_IN_USE answers a minute; the 6th change that sets a code is 429 whether the code is taken or free', async () => {
    const account = await provisionAccount(t, { facilities: 1 });
    const facility = account.facilities[0]!.id;
    const api = pms(t, account.token, facility);
    const unit = await api.unit('PROBE-1');
    const taken = ['8001', '8002', '8003', '8004', '8005', '8006'];
    for (const code of taken) await api.visitor(unit.id, code);
    const probe = pms(t, await keyOf(t, account), facility);
    const own = (await probe.visitor(unit.id, '9000')).visitor.id;
    const tryCode = (code: string) => update(probe, own, { accessCode: code }, true);

    for (const code of taken.slice(0, 5)) {
      const answer = await tryCode(code);
      assert.equal(answer.response.status, 400, JSON.stringify(answer.error));
      assert.equal(answer.error?.code, 'ACCESS_CODE_IN_USE');
    }
    const readsBefore = (await codeReads(facility)).length;
    const onTaken = await tryCode('8006');
    const onFree = await tryCode('8999');
    assert.equal(onTaken.response.status, 429, JSON.stringify(onTaken.error));
    assert.deepEqual(shown(onTaken), shown(onFree), 'the refusal is the same for a taken and a free code');
    const retryAfter = Number(onTaken.response.headers.get('retry-after'));
    assert.ok(retryAfter > 1 && retryAfter <= 60);
    assert.doesNotMatch(JSON.stringify(onTaken.error), /8006|in use at this facility/);
    // Nothing ran: the free code was not set, and the refusals are not code reads.
    const ownAt = { params: { path: { ...probe.path, visitorId: own } } };
    await ok(probe.client.GET('/facilities/{facilityId}/visitors/{visitorId}', ownAt), 200);
    const newVisitor = (at: Facility, accessCode: string, firstName: string, lastName: string) =>
      at.client.POST('/facilities/{facilityId}/visitors', {
        params: { path: at.path },
        body: { unitId: unit.id, accessCode, firstName, lastName, isTenant: true },
      });
    const reuse = await newVisitor(api, '8999', 'Free', 'Still');
    assert.equal(reuse.response.status, 201, '8999 was never given to the probing visitor');
    assert.equal((await codeReads(facility)).length, readsBefore);
    // A create is refused alike; changes that set no code go on.
    assert.equal(await status(newVisitor(probe, '8001', 'P', 'Q')), 429);
    await ok(update(probe, own, { firstName: 'Renamed' }), 200);
    // The throttle is the credential's: the account's other key still gets its answers.
    const other = await update(api, own, { accessCode: '8001' }, true);
    assert.equal(other.response.status, 400);
    assert.equal(other.error?.code, 'ACCESS_CODE_IN_USE');
  });

  it('holds a key with accesscontrol:codes to the same rule', async () => {
    const account = await provisionAccount(t, { facilities: 1 });
    const facility = account.facilities[0]!.id;
    const api = pms(t, account.token, facility);
    const unit = await api.unit('CODES-1');
    await api.visitor(unit.id, '6100');
    const support = pms(t, await keyOf(t, account, [...DEFAULT_SCOPES, 'accesscontrol:codes']), facility);
    const own = (await support.visitor(unit.id, '6200')).visitor.id;
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push(await status(update(support, own, { accessCode: '6100' })));
    assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
  });

  it('learns at most 5 answers from 60 probes sent at once; successes never use up the allowance', async () => {
    const account = await provisionAccount(t, { facilities: 1 });
    const facility = account.facilities[0]!.id;
    const api = pms(t, account.token, facility);
    const unit = await api.unit('BURST-1');
    await api.visitor(unit.id, '5100');
    const probe = pms(t, await keyOf(t, account), facility);
    const own = (await probe.visitor(unit.id, '5200')).visitor.id;
    // Twelve code changes that meet no code in use, some at once: none is refused.
    const changes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => update(probe, own, { accessCode: `52${10 + i}` })),
    );
    assert.deepEqual(
      changes.map((c) => c.response.status),
      Array(12).fill(200),
    );
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => update(probe, own, { accessCode: '5100' }, true)),
    );
    const count = (status: number) => answers.filter((a) => a.response.status === status).length;
    assert.equal(count(400), 5, JSON.stringify(answers.map((a) => a.response.status)));
    assert.equal(count(429), 55);
  });
});

// Two instances on one database need PostgreSQL (the embedded one belongs to one process).
if (process.env.REDIS_URL && onPostgres) {
  describe('across instances (Redis)', () => {
    let two: TestApp;
    before(async () => {
      // The second instance on the first one's database and data directory (its signing keys).
      two = await startTestApp({
        env: {
          ...redis,
          ACCESS_CODE_CONFLICTS_PER_MINUTE: '5',
          DATABASE_URL: t.config.databaseUrl!,
          DATA_DIR: t.config.dataDir,
        },
      });
    });
    after(() => two.close());

    it('conflicts met on one instance throttle the credential on another', async () => {
      const account = await provisionAccount(t, { facilities: 1 });
      const facility = account.facilities[0]!.id;
      const api = pms(t, account.token, facility);
      const unit = await api.unit('SHARED-1');
      await api.visitor(unit.id, '4100');
      const token = await keyOf(t, account);
      const own = (await pms(t, token, facility).visitor(unit.id, '4200')).visitor.id;
      for (let i = 0; i < 5; i++)
        assert.equal(await status(update(pms(t, token, facility), own, { accessCode: '4100' })), 400);
      const there = await update(pms(two, token, facility), own, { accessCode: '4100' });
      assert.equal(there.response.status, 429, JSON.stringify(there.error));
    });
  });
}

const DEFAULT_SCOPES = ['accesscontrol:read', 'accesscontrol:write', 'accessevent:read', 'webhooks'];
