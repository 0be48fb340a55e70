// The other topics' facts reach their subscribers: a command acknowledged or failed (in the ingest
// transaction) or expired, a facility status word that changed, an auction's transitions — each
// from the row its face wrote in the transaction that caused it (the outbox, migration 0009).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { cancelUnit, createList, record, setupPartner } from '../auctions/helpers.ts';
import { event, getJson, postEvents } from '../events/helpers.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { gatewayToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { until } from '../helpers/until.ts';

let t: TestApp;
let account: ProvisionedAccount;
let r: Receiver;
let secret: string;

const ofType = (type: string) =>
  r.received
    .filter((d) => d.json.type === type)
    .map((d) => {
      new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
      return d.json.data;
    });

before(async () => {
  t = await startTestApp({
    runJobs: true,
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_SWEEP_MS: '100' },
  });
  account = await provisionAccount(t, { facilities: 2 });
  r = await startReceiver();
  const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
    token: account.token,
    body: { url: r.url, topics: ['command.status', 'facility.status'], facilityIds: [account.facilities[0]!.id] },
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  secret = answer.body.secret;
});
after(async () => {
  await r.close();
  await t.close();
});

describe('command.status and facility.status', () => {
  it('tells of a command acknowledged by its controller, and of one that expired', async () => {
    const [facility, otherFacility] = account.facilities;
    const unit = (facilityId: number, unitNumber: string) =>
      inject(t.app, 'POST', `/facilities/${facilityId}/units`, { token: account.token, body: { unitNumber } });
    assert.equal((await unit(facility!.id, 'A-1')).status, 201);
    assert.equal((await unit(facility!.id, 'A-2')).status, 201);
    assert.equal((await unit(otherFacility!.id, 'B-1')).status, 201);
    const commands = (await getJson(t, account.token, `/facilities/${facility!.id}/commands`)).body;
    const list: { id: string; status: string }[] = Array.isArray(commands) ? commands : commands.items;
    const [acked, expiring] = list;
    const gateway = (await gatewayToken(t, facility!.id)).token;
    await postEvents(t, gateway, [event({ eventType: 3, data: { commandId: acked!.id } })]);
    const ack = await until(() => ofType('command.status').find((d) => d.commandId === acked!.id));
    assert.equal(ack.status, 'acknowledged');
    assert.equal(ack.facilityId, facility!.id);
    assert.ok(ack.acknowledgedAt);

    await t.services.database.pool.query("update commands set expires_at = now() - interval '1 s' where id = $1", [
      expiring!.id,
    ]);
    // Another facility's command expires too, but this subscription names only the first facility.
    await t.services.database.pool.query(
      "update commands set expires_at = now() - interval '1 s' where facility_id = $1",
      [otherFacility!.id],
    );
    assert.ok((await t.services.commands.recordExpiredCommands()) >= 2);
    const expired = await until(() => ofType('command.status').find((d) => d.commandId === expiring!.id));
    assert.equal(expired.status, 'expired');
    assert.ok(expired.expiredAt);
    assert.equal(
      ofType('command.status').filter((d) => d.facilityId !== facility!.id).length,
      0,
      'filtered to the subscription’s facilities',
    );
    // Recorded once: a second run records nothing more.
    assert.equal(await t.services.commands.recordExpiredCommands(), 0);
  });

  it('tells of a command its controller acknowledged as failed, with the reason', async () => {
    const facility = account.facilities[0]!;
    const created = await inject(t.app, 'POST', `/facilities/${facility.id}/units`, {
      token: account.token,
      body: { unitNumber: 'F-1' },
    });
    assert.equal(created.status, 201);
    const commands = (await getJson(t, account.token, `/facilities/${facility.id}/commands?limit=1000`)).body;
    const failing = commands.at(-1) as { id: string; sequence: number };
    const gateway = (await gatewayToken(t, facility.id)).token;
    await postEvents(t, gateway, [
      event({ eventType: 3, data: { commandId: failing.id, result: 'failed', reason: 'Door 4 relay did not close' } }),
    ]);
    const failed = await until(() => ofType('command.status').find((d) => d.commandId === failing.id));
    assert.deepEqual(Object.keys(failed), [
      'commandId',
      'accountId',
      'facilityId',
      'sequence',
      'commandType',
      'status',
      'createdAt',
      'failedAt',
      'failureReason',
    ]);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failureReason, 'Door 4 relay did not close');
    assert.equal(failed.sequence, failing.sequence);
    assert.ok(failed.failedAt);
  });

  it('tells of each status word that changed colour', async () => {
    await t.services.facilityStatus.recordStatusChanges(Date.now());
    await until(() => ofType('facility.status').length >= 4);
    const changes = ofType('facility.status');
    assert.ok(changes.every((c) => c.facilityId === account.facilities[0]!.id));
    const gateway = changes.find((c) => c.component === 'gateway');
    assert.equal(gateway.status, 'ok', 'its controller reported events: connected');
    assert.equal(gateway.previousStatus, null);
    assert.ok(gateway.message);
  });
});

describe('auction.status', () => {
  it('tells a partner of its auctions created and cancelled (with the reason)', async () => {
    const partner = await setupPartner(t);
    const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
      token: partner.token,
      body: { url: r.url, topics: ['auction.status'] },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const partnerSecret = answer.body.secret as string;
    assert.equal((await createList(t, partner, [record('P-1'), record('P-2')])).statusCode, 200);
    assert.equal((await cancelUnit(t, partner, [{ unitId: 'P-1', reason: 'Tenant paid' }])).statusCode, 200);
    const auctions = () =>
      r.received
        .filter((d) => d.json.type === 'auction.status')
        .map((d) => {
          new Webhook(partnerSecret).verify(d.body, d.headers as Record<string, string>);
          return d.json.data;
        });
    await until(() => auctions().length >= 3);
    const p1 = auctions().filter((a) => a.unitId === 'P-1');
    assert.deepEqual(
      p1.map((a) => [a.previousStatus, a.status]),
      [
        [null, 'Active'],
        ['Active', 'Cancelled'],
      ],
    );
    assert.equal(p1[1].reason, 'CANCEL_REQUESTED');
    assert.equal(p1[1].note, 'Tenant paid');
    assert.equal(p1[1].guid, partner.guid);
  });

  it('tells a partner whose subscription names facilityIds of those facilities’ auctions only', async () => {
    const partner = await setupPartner(t);
    const own = await startReceiver();
    try {
      const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
        token: partner.token,
        body: { url: own.url, topics: ['auction.status'], facilityIds: [partner.otherFacilityId] },
      });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.facilityIds, [partner.otherFacilityId]);
      // First an auction at the facility the subscription leaves out, then one at the one it names:
      // the lane delivers in commit order, so the second arriving means the first was filtered out.
      assert.equal((await createList(t, partner, [record('F-A')])).statusCode, 200);
      assert.equal((await createList(t, partner, [record('F-B')], { guid: partner.otherGuid })).statusCode, 200);
      const auctions = () => own.received.filter((d) => d.json.type === 'auction.status').map((d) => d.json.data);
      await until(() => auctions().some((a) => a.unitId === 'F-B'));
      assert.deepEqual(
        auctions().map((a) => [a.unitId, a.facilityId, a.guid]),
        [['F-B', partner.otherFacilityId, partner.otherGuid]],
      );
      // Another partner's facility is refused by name.
      const stranger = await setupPartner(t);
      const refused = await inject(t.app, 'POST', '/webhooks/subscriptions', {
        token: partner.token,
        body: { url: own.url, topics: ['auction.status'], facilityIds: [stranger.facilityId] },
      });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(JSON.stringify(refused.body), /facilityIds\[0\]/);
    } finally {
      await own.close();
    }
  });
});
