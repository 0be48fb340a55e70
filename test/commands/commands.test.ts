import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acknowledgeCommands } from '../../src/commands/acknowledge.ts';
import type { EntityId } from '../../src/ids.ts';
import { ok, refused } from '../helpers/client.ts';
import { gatewayToken, tenantFixture } from '../helpers/tenants.ts';
import { call, pms, polled } from '../access-control/helpers.ts';

const site = tenantFixture({ facilities: 2 });
const { t } = site;
const api = () => pms(t, site.account.token, site.facilityId);
const other = () => pms(t, site.account.token, site.account.facilities[1]!.id);

/** What these tests read of a command's payload (the document leaves payloads open). */
interface Payload {
  action?: string;
  unit?: { id: EntityId; unitNumber: string; status: string };
  visitor?: {
    id: EntityId;
    timeGroup: { name: string; timeZone: string };
    accessProfile: { id: EntityId; name: string; accessAreas: string[] | null };
  };
  removedVisitorIds?: EntityId[];
}
const payloadOf = (command: { payload?: unknown }) => command.payload as Payload;

/** One command of the facility, read by id. */
const command = (commandId: string, at = api()) =>
  at.client.GET('/facilities/{facilityId}/commands/{commandId}', { params: { path: { ...at.path, commandId } } });
const unitAt = (unitId: EntityId) => ({ params: { path: { ...api().path, unitId } } });
const visitorAt = (visitorId: EntityId) => ({ params: { path: { ...api().path, visitorId } } });

describe('commands', () => {
  it('each change writes one command, sequence increasing per facility, with what the controller needs', async () => {
    const { client } = api();
    const start = (await api().commands({ limit: 1000 })).length;
    const unit = await api().unit('K1');
    const { visitor } = await api().visitor(unit.id, '1357');
    await ok(client.POST('/facilities/{facilityId}/units/{unitId}/disable', unitAt(unit.id)), 200);
    await ok(
      client.POST('/facilities/{facilityId}/visitors/{visitorId}/update', {
        ...visitorAt(visitor.id),
        body: { firstName: 'Kim' },
      }),
      200,
    );
    await ok(client.POST('/facilities/{facilityId}/visitors/{visitorId}/disable', visitorAt(visitor.id)), 200);
    await ok(client.POST('/facilities/{facilityId}/units/{unitId}/vacate', unitAt(unit.id)), 200);
    const commands = (await api().commands({ limit: 1000 })).slice(start);
    assert.deepEqual(
      commands.map((c) => c.type),
      ['unit.upsert', 'visitor.upsert', 'unit.upsert', 'visitor.upsert', 'visitor.upsert', 'unit.vacate'],
    );
    assert.deepEqual(
      commands.map((c) => payloadOf(c).action),
      ['create', 'create', 'disable', 'update', 'disable', 'vacate'],
    );
    const sequences = commands.map((c) => c.sequence);
    assert.deepEqual(
      sequences,
      sequences.map((_, i) => sequences[0]! + i),
      'consecutive',
    );
    assert.deepEqual(payloadOf(commands[1]!).unit, { id: unit.id, unitNumber: 'K1', status: 'Rented' });
    const state = payloadOf(commands[1]!).visitor!;
    assert.equal(state.id, visitor.id);
    assert.equal(state.timeGroup.name, '24 Hours');
    assert.equal(state.timeGroup.timeZone, 'America/Denver');
    assert.deepEqual(state.accessProfile, { id: visitor.accessProfileId, name: 'All Access', accessAreas: null });
    assert.equal('accessCode' in state, false);
    assert.deepEqual(payloadOf(commands[5]!).removedVisitorIds, [visitor.id]);
    for (const c of commands) {
      assert.equal(c.status, 'pending');
      assert.equal(new Date(c.expiresAt).getTime() - new Date(c.createdAt).getTime(), 7 * 86_400_000);
    }
    // The other facility's sequence is its own.
    await other().unit('K1');
    assert.equal((await other().commands()).at(-1)?.sequence, 1);
  });

  it('a refused change leaves no command (same transaction)', async () => {
    const { client, path } = api();
    const before = (await api().commands({ limit: 1000 })).length;
    const unit = await api().unit('K2');
    await api().visitor(unit.id, '2468');
    await refused(
      client.POST('/facilities/{facilityId}/visitors', {
        params: { path },
        body: { unitId: unit.id, accessCode: '2468', firstName: 'A', lastName: 'B', isTenant: true },
      }),
      400,
    );
    await refused(client.POST('/facilities/{facilityId}/units/{unitId}/delete/vacant', unitAt(unit.id)), 409);
    assert.equal((await api().commands({ limit: 1000 })).length, before + 2);
  });

  it('pages by after/limit, filters by status; pending → delivered → acknowledged, expired after 7 days', async () => {
    const gateway = await gatewayToken(t, site.facilityId);
    const unit = await api().unit('K3');
    const all = await api().commands({ limit: 1000 });
    const mine = all.find((c) => payloadOf(c).unit?.id === unit.id);
    assert.ok(mine);
    const justMine = { after: mine.sequence - 1, limit: 1 };
    const page = await api().commands(justMine);
    assert.deepEqual(
      page.map((c) => c.id),
      [mine.id],
    );

    const delivered = await polled(t, gateway.token, justMine);
    assert.equal(delivered[0]?.id, mine.id);
    const [afterPoll] = await api().commands(justMine);
    assert.equal(afterPoll?.status, 'delivered');
    assert.ok(afterPoll.deliveredAt);

    await t.services.database.db.transaction().execute((trx) => acknowledgeCommands(trx, site.facilityId, [mine.id]));
    const [acked] = await api().commands(justMine);
    assert.equal(acked?.status, 'acknowledged');
    assert.ok(acked.acknowledgedAt);
    assert.ok((await api().commands({ status: 'acknowledged', limit: 1000 })).some((c) => c.id === mine.id));
    assert.ok(!(await api().commands({ status: 'pending', limit: 1000 })).some((c) => c.id === mine.id));

    const old = await api().unit('K4');
    await t.services.database.pool.query(
      `update commands set created_at = now() - interval '8 days', expires_at = now() - interval '1 day' where payload->'unit'->>'id' = $1`,
      [old.id],
    );
    const expired = (await api().commands({ status: 'expired', limit: 1000 })).find(
      (c) => payloadOf(c).unit?.id === old.id,
    );
    assert.ok(expired, 'computed as expired');
    const fresh = await polled(t, gateway.token, { after: 0, limit: 1000 });
    assert.ok(!fresh.some((c) => c.id === expired.id), 'an expired command is not delivered');
    assert.equal((await ok(command(expired.id), 200)).status, 'expired');
    await refused(command('00000000-0000-4000-8000-000000000000'), 404);
    // A status the document does not name: raw, as the typed client sends only the named ones.
    const lost = await call(t, site.account.token, 'GET', `/facilities/${site.facilityId}/commands?status=lost`);
    assert.equal(lost.status, 400);
  });

  it('an acknowledgement for another facility’s command, an unknown or malformed id, is ignored and touches nothing', async () => {
    await other().unit('ACK');
    const theirs = (await other().commands({ limit: 1000 })).at(-1);
    assert.ok(theirs);
    const n = await t.services.database.db
      .transaction()
      .execute((trx) =>
        acknowledgeCommands(trx, site.facilityId, [
          theirs.id,
          '00000000-0000-4000-8000-000000000000',
          'not-a-uuid',
          "'; drop table commands; --",
        ]),
      );
    assert.equal(n, 0);
    assert.equal((await ok(command(theirs.id, other()), 200)).status, 'pending');
    // Acknowledging twice counts once.
    await api().unit('ACK-OURS');
    const ours = (await api().commands({ status: 'pending', limit: 1000 })).at(-1);
    assert.ok(ours);
    assert.equal(
      await t.services.database.db
        .transaction()
        .execute((trx) => acknowledgeCommands(trx, site.facilityId, [ours.id, ours.id.toUpperCase()])),
      1,
    );
    assert.equal(
      await t.services.database.db.transaction().execute((trx) => acknowledgeCommands(trx, site.facilityId, [ours.id])),
      0,
    );
  });

  it('commands older than 30 days are purged; younger ones stay', async () => {
    const unit = await api().unit('OLD');
    await t.services.database.pool.query(
      `update commands set created_at = now() - interval '31 days' where payload->'unit'->>'id' = $1`,
      [unit.id],
    );
    const before = (await api().commands({ limit: 1000 })).length;
    assert.equal(await t.services.commands.purgeOldCommands(), 1);
    assert.equal((await api().commands({ limit: 1000 })).length, before - 1);
  });
});
