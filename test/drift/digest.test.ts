// The controller's digest over HTTP (POST /gateway/v1/digest, …/digest/items): in sync costs one
// round trip and no command; a drift is narrowed to its items, recorded, healed by exactly the
// corrective commands, and healed at the next digest; commands in flight are no drift; bad input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EntityId } from '../../src/ids.ts';
import { applyInPlace, digestOf, emptyState, itemsOf, type WritableState } from '../../src/simulator/controller.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { tenantFixture } from '../helpers/tenants.ts';
import { call, pms, polled } from '../access-control/helpers.ts';

const site = tenantFixture({ facilities: 2, controllers: true });
const { t } = site;
const facilityA = () => site.account.facilities[0]!.id;
const gatewayA = () => site.controllers[0]!;

/** A controller of facility A as the simulator keeps it: its copy and the last sequence applied. */
const controller: { state: WritableState; applied: number } = { state: emptyState(), applied: 0 };

/** Polls, applies and acknowledges (event 3) every command after the last applied. */
async function applyAll(): Promise<{ type: string; payload: any }[]> {
  const commands = await polled(t, gatewayA(), { after: controller.applied, limit: 1000 });
  for (const c of commands) {
    applyInPlace(controller.state, c);
    controller.applied = c.sequence;
  }
  if (commands.length > 0) {
    const events = commands.map((c) => ({
      eventId: `ack-${c.id}`,
      eventType: 3,
      occurredAt: new Date().toISOString(),
      data: { commandId: c.id },
    }));
    await ok(gateway().POST('/gateway/v1/events', { body: { events } }), 200);
  }
  return commands as { type: string; payload: any }[];
}

const gateway = () => typedClient(t, gatewayA());
const digest = (state = controller.state, appliedSequence = controller.applied) =>
  ok(gateway().POST('/gateway/v1/digest', { body: { appliedSequence, ...digestOf(state) } }), 200);
const items = (buckets: { units: number[]; visitors: number[] }, appliedSequence = controller.applied) =>
  ok(
    gateway().POST('/gateway/v1/digest/items', { body: { appliedSequence, ...itemsOf(controller.state, buckets) } }),
    200,
  );
const drifts = () =>
  ok(
    typedClient(t, site.account.token).GET('/facilities/{facilityId}/drift', {
      params: { path: { facilityId: facilityA() } },
    }),
    200,
  );
const pmsInterface = async () => {
  const list = await ok(typedClient(t, site.account.token).GET('/facilities/statuslist'), 200);
  return list.find((row) => row.facilityId === facilityA())!;
};
const commandCount = async () => (await pms(t, site.account.token, facilityA()).commands({ limit: 1000 })).length;

describe('a controller’s digest', () => {
  const unitIds: EntityId[] = [];
  const visitorIds: EntityId[] = [];

  it('in sync: one round trip, no command, no drift', async () => {
    const api = pms(t, site.account.token, facilityA());
    for (let i = 0; i < 6; i++) unitIds.push((await api.unit(`D${i}`)).id);
    for (let i = 0; i < 4; i++) visitorIds.push((await api.visitor(unitIds[i]!, `${5000 + i}`)).visitor.id);
    await applyAll();
    assert.equal(controller.state.visitors.size, 4);
    const before = await commandCount();
    assert.deepEqual(await digest(), { status: 'in-sync', nextDigestSeconds: 900 });
    assert.equal(await commandCount(), before);
    assert.deepEqual(await drifts(), []);
  });

  it('a drift is narrowed to its items, recorded, and healed by exactly the corrective commands', async () => {
    // The controller loses a visitor, a unit's status is changed at it, and it gains a visitor the PMS never made.
    const visitors = new Map(controller.state.visitors);
    const lost = visitorIds[1]!;
    visitors.delete(lost);
    const stranger = { ...visitors.get(visitorIds[0]!)!, id: 999_999, accessCode: '7777' };
    visitors.set(stranger.id, stranger);
    const units = new Map(controller.state.units);
    const altered = unitIds[2]!;
    units.set(altered, { ...units.get(altered)!, status: 'Delinquent' });
    controller.state = { ...controller.state, units, visitors };

    const first = await digest();
    assert.equal(first.status, 'differs');
    const buckets = first.buckets!;
    assert.deepEqual(buckets.units, [altered % 64]);
    assert.deepEqual(
      [...buckets.visitors].sort((a, b) => a - b),
      [lost % 64, 999_999 % 64].sort((a, b) => a - b),
    );

    const second = await items(buckets);
    assert.equal(second.status, 'correcting');
    assert.equal(second.corrections, 3);
    assert.deepEqual(
      second.items!.map((i) => `${i.kind} ${i.id} ${i.change} ${i.fields.join(',')}`).sort(),
      [`unit ${altered} altered status`, `visitor ${lost} missing `, 'visitor 999999 unexpected '].sort(),
    );
    const [open] = await drifts();
    assert.equal(open!.status, 'open');
    assert.equal(open!.id, second.driftId);
    assert.equal(open!.healedAt, null);
    assert.equal(JSON.stringify(open).includes('7777'), false);
    // The status list says so while it lasts.
    const during = await pmsInterface();
    assert.deepEqual(
      [during.pmsInterfaceStatus, /differed from the PMS since .* \(3 items\)/.test(during.pmsInterfaceStatusMessage)],
      ['warning', true],
    );

    // Exactly three commands, marked as the heal, then the next digest agrees and the drift is healed.
    const corrections = await applyAll();
    assert.deepEqual(corrections.map((c) => c.type).sort(), ['unit.upsert', 'visitor.remove', 'visitor.upsert']);
    for (const c of corrections) assert.deepEqual([c.payload.action, c.payload.driftId], ['correct', second.driftId]);
    assert.equal((await digest()).status, 'in-sync');
    const [healed] = await drifts();
    assert.equal(healed!.status, 'healed');
    const after = await pmsInterface();
    assert.equal(after.pmsInterfaceStatusMessage.includes('differed'), false, after.pmsInterfaceStatusMessage);
    assert.ok(Date.parse(healed!.healedAt!) >= Date.parse(healed!.foundAt));
  });

  it('a change in flight is no drift: the items step finds nothing and writes no command', async () => {
    const api = pms(t, site.account.token, facilityA());
    await api.unit('IN-FLIGHT');
    const before = await commandCount();
    const first = await digest();
    assert.equal(first.status, 'differs');
    assert.deepEqual(await items(first.buckets!), { status: 'in-sync' });
    assert.equal(await commandCount(), before);
    await applyAll();
    assert.equal((await digest()).status, 'in-sync');
    assert.equal((await drifts()).filter((d) => d.status === 'open').length, 0);
  });
});

describe('a controller that fails its corrections', () => {
  /** The controller fails the command: an event 3 with result "failed". */
  const fail = async (commandId: string) => {
    const events = [
      {
        eventId: `fail-${commandId}`,
        eventType: 3,
        occurredAt: new Date().toISOString(),
        data: { commandId, result: 'failed', reason: 'Keypad memory full' },
      },
    ];
    const answer = await ok(gateway().POST('/gateway/v1/events', { body: { events } }), 200);
    assert.equal(answer.accepted, 1);
  };

  it('is sent an item’s correction again once a digest interval has passed, not after every digest; a controller restarted empty at once', async () => {
    await applyAll();
    const visitorId = [...controller.state.visitors.keys()][0]!;
    controller.state.visitors.delete(visitorId);
    const first = await digest();
    const found = await items(first.buckets!);
    assert.equal(found.corrections, 1);
    // It fails the correction, and still differs.
    const [correction] = await polled(t, gatewayA(), { after: controller.applied });
    assert.equal((correction!.payload as { driftId?: string }).driftId, found.driftId);
    await fail(correction!.id);
    controller.applied = correction!.sequence;
    const before = await commandCount();
    const again = await items(first.buckets!);
    assert.deepEqual([again.status, again.corrections, again.driftId], ['correcting', 0, found.driftId]);
    assert.equal(await commandCount(), before);

    // A controller that has not seen that round (restarted empty: it reports an older sequence) is sent it at once.
    const restarted = await items(first.buckets!, 0);
    assert.deepEqual([restarted.corrections, restarted.driftId], [1, found.driftId]);
    const [second] = await polled(t, gatewayA(), { after: controller.applied });
    await fail(second!.id);
    controller.applied = second!.sequence;
    assert.equal((await items(first.buckets!)).corrections, 0);

    // A digest interval later (the drift's last round set back), it is corrected again.
    await t.services.database.pool.query(
      `update drifts set corrected_at = now() - interval '16 minutes' where id = $1`,
      [found.driftId],
    );
    const later = await items(first.buckets!);
    assert.deepEqual([later.corrections, later.driftId], [1, found.driftId]);
    assert.equal(await commandCount(), before + 2);
    const [open] = await drifts();
    assert.deepEqual([open!.corrections, open!.items.length], [3, 1]);
    await applyAll();
    assert.equal((await digest()).status, 'in-sync');
    assert.equal((await drifts())[0]!.status, 'healed');
  });
});

describe('bad input', () => {
  it('a malformed digest is a 400 naming each bad field', async () => {
    const good = digestOf(controller.state);
    const r = await refused(
      gateway().POST('/gateway/v1/digest', {
        body: {
          appliedSequence: -1,
          units: { count: 1, buckets: good.units.buckets.slice(1) },
          visitors: { count: 0, buckets: [...good.visitors.buckets.slice(1), 'NOT-HEX'] },
        },
      }),
      400,
    );
    assert.deepEqual(r.errors?.map((e) => e.path).sort(), ['appliedSequence', 'units.buckets', 'visitors.buckets[63]']);
    const missing = await call(t, gatewayA(), 'POST', '/gateway/v1/digest', { appliedSequence: 0 });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.errors.map((e: { path: string }) => e.path).sort(), ['units', 'visitors']);
  });

  it('items outside the buckets they claim are a 400 naming them', async () => {
    const r = await refused(
      gateway().POST('/gateway/v1/digest/items', {
        body: {
          appliedSequence: 0,
          buckets: { units: [1], visitors: [] },
          units: [{ id: 2, hash: '0123456789abcdef', unitNumber: 'X', status: 'Vacant' }],
          visitors: [],
        },
      }),
      400,
    );
    assert.deepEqual(
      r.errors?.map((e) => e.path),
      ['units[0].id'],
    );
  });

  it('another facility’s digest is 404; a PMS token is 403; no token is 401', async () => {
    const body = { appliedSequence: 0, ...digestOf(emptyState()) };
    const other = site.account.facilities[1]!.id;
    await refused(gateway().POST('/gateway/v1/digest', { body: { ...body, facilityId: other } }), 404);
    await refused(
      gateway().POST('/gateway/v1/digest/items', {
        body: { appliedSequence: 0, buckets: { units: [], visitors: [] }, units: [], visitors: [], facilityId: other },
      }),
      404,
    );
    await refused(typedClient(t, site.account.token).POST('/gateway/v1/digest', { body }), 403);
    await refused(typedClient(t).POST('/gateway/v1/digest', { body }), 401);
    // Nothing was recorded for facility B.
    const b = await typedClient(t, site.account.token).GET('/facilities/{facilityId}/drift', {
      params: { path: { facilityId: other } },
    });
    assert.deepEqual(b.data, []);
  });
});
