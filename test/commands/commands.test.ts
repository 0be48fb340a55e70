import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acknowledgeCommands } from '../../src/commands/acknowledge.ts';
import { gatewayToken, tenantFixture } from '../helpers/tenants.ts';
import { pms, poll } from '../access-control/helpers.ts';

const site = tenantFixture({ facilities: 2 });
const { t } = site;
const api = () => pms(t, site.account.token, site.facilityId);

describe('commands', () => {
  it('each change writes one command, sequence increasing per facility, with what the controller needs', async () => {
    const start = (await api().commands('?limit=1000')).length;
    const unit = await api().unit('K1');
    const { visitor } = await api().visitor(unit.id, '1357');
    await api().post(`/units/${unit.id}/disable`);
    await api().post(`/visitors/${visitor.id}/update`, { firstName: 'Kim' });
    await api().post(`/visitors/${visitor.id}/disable`);
    await api().post(`/units/${unit.id}/vacate`);
    const commands = (await api().commands('?limit=1000')).slice(start);
    assert.deepEqual(
      commands.map((c) => c.type),
      ['unit.upsert', 'visitor.upsert', 'unit.upsert', 'visitor.upsert', 'visitor.upsert', 'unit.vacate'],
    );
    assert.deepEqual(
      commands.map((c) => c.payload.action),
      ['create', 'create', 'disable', 'update', 'disable', 'vacate'],
    );
    const sequences = commands.map((c) => c.sequence);
    assert.deepEqual(
      sequences,
      sequences.map((_, i) => sequences[0] + i),
      'consecutive',
    );
    assert.deepEqual(commands[1].payload.unit, { id: unit.id, unitNumber: 'K1', status: 'Rented' });
    const state = commands[1].payload.visitor;
    assert.equal(state.id, visitor.id);
    assert.equal(state.timeGroup.name, '24 Hours');
    assert.equal(state.timeGroup.timeZone, 'America/Denver');
    assert.deepEqual(state.accessProfile, { id: visitor.accessProfileId, name: 'All Access', accessAreas: null });
    assert.equal('accessCode' in state, false);
    assert.deepEqual(commands[5].payload.removedVisitorIds, [visitor.id]);
    for (const c of commands) {
      assert.equal(c.status, 'pending');
      assert.equal(new Date(c.expiresAt).getTime() - new Date(c.createdAt).getTime(), 7 * 86_400_000);
    }
    // The other facility's sequence is its own.
    const other = pms(t, site.account.token, site.account.facilities[1]!.id);
    await other.unit('K1');
    assert.equal((await other.commands()).at(-1).sequence, 1);
  });

  it('a refused change leaves no command (same transaction)', async () => {
    const before = (await api().commands('?limit=1000')).length;
    const unit = await api().unit('K2');
    await api().visitor(unit.id, '2468');
    const refused = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '2468',
      firstName: 'A',
      lastName: 'B',
      isTenant: true,
    });
    assert.equal(refused.status, 400);
    assert.equal((await api().post(`/units/${unit.id}/delete/vacant`)).status, 409);
    assert.equal((await api().commands('?limit=1000')).length, before + 2);
  });

  it('pages by after/limit, filters by status; pending → delivered → acknowledged, expired after 7 days', async () => {
    const gateway = await gatewayToken(t, site.facilityId);
    const unit = await api().unit('K3');
    const all = await api().commands('?limit=1000');
    const mine = all.find((c) => c.payload.unit?.id === unit.id);
    const page = await api().commands(`?after=${mine.sequence - 1}&limit=1`);
    assert.deepEqual(
      page.map((c) => c.id),
      [mine.id],
    );

    const delivered = await poll(t, gateway.token, `?after=${mine.sequence - 1}&limit=1`);
    assert.equal(delivered.body.commands[0].id, mine.id);
    const afterPoll = (await api().commands(`?after=${mine.sequence - 1}&limit=1`))[0];
    assert.equal(afterPoll.status, 'delivered');
    assert.ok(afterPoll.deliveredAt);

    await t.services.database.db.transaction().execute((trx) => acknowledgeCommands(trx, site.facilityId, [mine.id]));
    const acked = (await api().commands(`?after=${mine.sequence - 1}&limit=1`))[0];
    assert.equal(acked.status, 'acknowledged');
    assert.ok(acked.acknowledgedAt);
    assert.ok((await api().commands('?status=acknowledged&limit=1000')).some((c) => c.id === mine.id));
    assert.ok(!(await api().commands('?status=pending&limit=1000')).some((c) => c.id === mine.id));

    const old = await api().unit('K4');
    await t.services.database.pool.query(
      `update commands set created_at = now() - interval '8 days', expires_at = now() - interval '1 day' where payload->'unit'->>'id' = $1`,
      [old.id],
    );
    const expired = (await api().commands('?status=expired&limit=1000')).find((c) => c.payload.unit.id === old.id);
    assert.ok(expired, 'computed as expired');
    const fresh = await poll(t, gateway.token, '?after=0&limit=1000');
    assert.ok(
      !fresh.body.commands.some((c: { id: string }) => c.id === expired.id),
      'an expired command is not delivered',
    );
    assert.equal((await api().get(`/commands/${expired.id}`)).body.status, 'expired');
    assert.equal((await api().get('/commands/00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await api().get('/commands?status=lost')).status, 400);
  });

  it('an acknowledgement for another facility’s command, an unknown or malformed id, is ignored and touches nothing', async () => {
    const other = pms(t, site.account.token, site.account.facilities[1]!.id);
    await other.unit('ACK');
    const theirs = (await other.commands('?limit=1000')).at(-1);
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
    assert.equal((await other.get(`/commands/${theirs.id}`)).body.status, 'pending');
    // Acknowledging twice counts once.
    await api().unit('ACK-OURS');
    const ours = (await api().commands('?status=pending&limit=1000')).at(-1);
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
    const before = (await api().commands('?limit=1000')).length;
    assert.equal(await t.services.commands.purgeOldCommands(), 1);
    assert.equal((await api().commands('?limit=1000')).length, before - 1);
  });
});
