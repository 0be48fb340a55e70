// Failed commands (issue 28, SPEC §4 and §5): a controller acknowledges a command as failed with a
// reason in its event 3 (data.result "failed", data.reason); the command is settled as failed — read
// by the PMS with its reason, listed by ?status=failed, never delivered again, out of the pending
// counts — and the controller's first word on a command stands. Through the real app and the
// controller's own routes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { acknowledgementOf } from '../../src/commands/acknowledge.ts';
import type { AcceptedEvent } from '../../src/events/index.ts';
import { storeEvents } from '../events/helpers.ts';
import { ok } from '../helpers/client.ts';
import { tenantFixture } from '../helpers/tenants.ts';
import { pms, polled } from '../access-control/helpers.ts';

const site = tenantFixture({ facilities: 2, controllers: true });
const { t } = site;
const api = () => pms(t, site.account.token, site.facilityId);
const other = () => pms(t, site.account.token, site.account.facilities[1]!.id);
const controller = () => site.controllers[0]!;

/** An event 3 of the controller: `result`/`reason` as given (absent when undefined). */
const received = (commandId: unknown, extra: Record<string, unknown> = {}) => ({
  eventId: randomUUID(),
  eventType: 3,
  occurredAt: new Date().toISOString(),
  data: { commandId, ...extra },
});

/** A new command of the facility (a unit's), read back by id. */
async function newCommand(at = api()) {
  await at.unit(`U-${randomUUID().slice(0, 8)}`);
  const command = (await at.commands({ limit: 1000 })).at(-1);
  assert.ok(command);
  return command;
}
const read = (commandId: string, at = api()) =>
  ok(
    at.client.GET('/facilities/{facilityId}/commands/{commandId}', { params: { path: { ...at.path, commandId } } }),
    200,
  );
const pending = async () =>
  (
    await ok(
      api().client.GET('/facilities/{facilityId}/status', { params: { path: { facilityId: site.facilityId } } }),
      200,
    )
  ).commands.pending;

describe('a command acknowledged as failed', () => {
  it('is failed with its reason, listed by status=failed, out of the pending count, and not delivered again', async () => {
    const before = await pending();
    const command = await newCommand();
    assert.equal(await pending(), before + 1);
    assert.equal((await polled(t, controller(), { after: command.sequence - 1 }))[0]?.id, command.id);

    const answer = await storeEvents(t, controller(), [
      received(command.id, { result: 'failed', reason: 'Keypad 2 did not answer within 5 s' }),
    ]);
    assert.deepEqual(answer, { accepted: 1, duplicates: 0, rejected: [], warnings: [] });
    const failed = await read(command.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failureReason, 'Keypad 2 did not answer within 5 s');
    assert.ok(failed.failedAt);
    assert.equal(failed.acknowledgedAt, null, 'failed is not applied');
    assert.equal(await pending(), before, 'a failed command waits for nothing');
    const listed = await api().commands({ status: 'failed', limit: 1000 });
    assert.ok(listed.some((c) => c.id === command.id));
    assert.ok(!(await api().commands({ status: 'acknowledged', limit: 1000 })).some((c) => c.id === command.id));
    assert.ok(!(await api().commands({ status: 'delivered', limit: 1000 })).some((c) => c.id === command.id));
    const again = await polled(t, controller(), { after: 0, limit: 1000 });
    assert.ok(!again.some((c) => c.id === command.id), 'a failed command is not delivered again');

    // Its first word stands: a later "applied" does not turn it acknowledged, nor does its expiry record it.
    await storeEvents(t, controller(), [received(command.id)]);
    assert.equal((await read(command.id)).status, 'failed');
    await t.services.database.pool.query("update commands set expires_at = now() - interval '1 s' where id = $1", [
      command.id,
    ]);
    await t.services.commands.recordExpiredCommands();
    const settled = await t.services.database.pool.query('select expiry_recorded_at from commands where id = $1', [
      command.id,
    ]);
    assert.equal(settled.rows[0].expiry_recorded_at, null, 'a failed command does not expire');
    assert.equal((await read(command.id)).status, 'failed');
  });

  it('a reason is optional; "applied" (or no result) acknowledges as before, and an acknowledged command is never failed', async () => {
    const [silent, applied, plain] = [await newCommand(), await newCommand(), await newCommand()];
    await storeEvents(t, controller(), [
      received(silent.id, { result: 'failed' }),
      received(applied.id, { result: 'applied' }),
      received(plain.id, { result: null, reason: 'ignored: not failed' }),
    ]);
    const failed = await read(silent.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failureReason, null);
    for (const c of [applied, plain]) {
      const acknowledged = await read(c.id);
      assert.equal(acknowledged.status, 'acknowledged');
      assert.equal(acknowledged.failureReason, null);
    }
    // Acknowledged first: a failure reported afterwards changes nothing, and is no unknown command.
    const answer = await storeEvents(t, controller(), [
      received(applied.id.toUpperCase(), { result: 'failed', reason: 'late' }),
    ]);
    assert.deepEqual(answer.warnings, []);
    assert.equal((await read(applied.id)).status, 'acknowledged');
  });

  it('within one batch the first event naming a command decides', async () => {
    const [failedFirst, appliedFirst] = [await newCommand(), await newCommand()];
    await storeEvents(t, controller(), [
      received(failedFirst.id, { result: 'failed', reason: 'first' }),
      received(failedFirst.id),
      received(appliedFirst.id),
      received(appliedFirst.id, { result: 'failed', reason: 'second' }),
    ]);
    assert.equal((await read(failedFirst.id)).status, 'failed');
    assert.equal((await read(failedFirst.id)).failureReason, 'first');
    assert.equal((await read(appliedFirst.id)).status, 'acknowledged');
  });

  it('a retried batch stores nothing twice and warns of nothing', async () => {
    const command = await newCommand();
    const batch = [received(command.id, { result: 'failed', reason: 'Relay 1 stuck' })];
    await storeEvents(t, controller(), batch);
    const retried = await storeEvents(t, controller(), batch);
    assert.deepEqual(retried, { accepted: 0, duplicates: 1, rejected: [], warnings: [] });
    assert.equal((await read(command.id)).failureReason, 'Relay 1 stuck');
  });
});

describe('bad failed acknowledgements', () => {
  it('one for another facility’s command, an unknown or malformed id is stored, touches nothing, and is warned of', async () => {
    const theirs = await newCommand(other());
    const unknown = '00000000-0000-4000-8000-000000000000';
    const events = [
      received(theirs.id, { result: 'failed', reason: 'not mine' }),
      received(unknown, { result: 'failed' }),
      { ...received('not-a-uuid', { result: 'failed' }) },
      // An applied acknowledgement of an unknown id stays ignored without a trace (as before issue 28).
      received(randomUUID()),
    ];
    const answer = await storeEvents(t, controller(), events);
    assert.equal(answer.accepted, 4);
    assert.deepEqual(answer.rejected, []);
    assert.deepEqual(
      answer.warnings.map((w) => [w.index, w.eventId, w.path, w.code]),
      [
        [0, events[0]!.eventId, 'events[0].data.commandId', 'UNKNOWN_COMMAND'],
        [1, events[1]!.eventId, 'events[1].data.commandId', 'UNKNOWN_COMMAND'],
        [2, events[2]!.eventId, 'events[2].data.commandId', 'UNKNOWN_COMMAND'],
      ],
    );
    assert.match(answer.warnings[0]!.message, /names no command of this facility/);
    assert.equal((await read(theirs.id, other())).status, 'pending', 'another facility’s command is untouched');
  });

  it('warnings of the ingest and of acknowledgements come in the order of the events', async () => {
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    const answer = await storeEvents(t, controller(), [
      received(randomUUID(), { result: 'failed' }),
      { eventId: randomUUID(), eventType: 18, occurredAt: ahead },
    ]);
    assert.deepEqual(
      answer.warnings.map((w) => [w.index, w.code]),
      [
        [0, 'UNKNOWN_COMMAND'],
        [1, 'CLOCK_AHEAD'],
      ],
    );
  });

  it('rejects a reason over 500 characters, a reason that is not a string, and an unknown result, naming the field', async () => {
    const command = await newCommand();
    const events = [
      received(command.id, { result: 'failed', reason: 'x'.repeat(501) }),
      received(command.id, { result: 'failed', reason: 42 }),
      received(command.id, { result: 'broken' }),
      received(command.id, { result: 'failed', reason: 'y'.repeat(500) }),
    ];
    const answer = await storeEvents(t, controller(), events);
    assert.equal(answer.accepted, 1, 'the rest of the batch is stored');
    assert.deepEqual(
      answer.rejected.map((r) => [r.index, r.path, r.reason]),
      [
        [0, 'events[0].data.reason', 'must be at most 500 characters (got 501)'],
        [1, 'events[1].data.reason', 'must be a string'],
        [2, 'events[2].data.result', 'must be "applied" or "failed"'],
      ],
    );
    const failed = await read(command.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failureReason, 'y'.repeat(500), 'a reason of exactly 500 characters is kept whole');
  });

  it('a batch without acknowledgements asks nothing of the commands (no part, no warning)', async () => {
    const answer = await storeEvents(t, controller(), [
      { eventId: randomUUID(), eventType: 18, occurredAt: new Date().toISOString() },
    ]);
    assert.deepEqual(answer, { accepted: 1, duplicates: 0, rejected: [], warnings: [] });
  });
});

describe('the parts of a batch’s statement', () => {
  const accepted = (index: number, commandResult: AcceptedEvent['commandResult'], commandId: string | null) =>
    ({
      index,
      eventId: `e${index}`,
      eventType: commandId === null ? 18 : 3,
      commandId,
      commandResult,
    }) as AcceptedEvent;
  const batch = (...events: AcceptedEvent[]) => ({ facilityId: 1, receivedAt: Date.now(), events });
  const id = randomUUID();

  it('none without event 3; applied acknowledgements return nothing to the answer; only failed ones ask which matched', () => {
    assert.deepEqual(acknowledgementOf(batch(accepted(0, null, null))), []);
    const applied = acknowledgementOf(batch(accepted(0, { result: 'applied' }, id)));
    assert.deepEqual(
      applied.map((p) => [p.name, p.warn !== undefined]),
      [['commands_acknowledged', false]],
    );
    const failed = acknowledgementOf(batch(accepted(0, { result: 'failed', reason: null }, id)));
    assert.deepEqual(
      failed.map((p) => [p.name, p.warn !== undefined]),
      [
        ['commands_failed', false],
        ['commands_failure_known', true],
      ],
    );
    // No UUID among them: nothing to mark, every one warned of.
    const [known] = acknowledgementOf(batch(accepted(3, { result: 'failed', reason: null }, 'nope')));
    assert.equal(known?.name, 'commands_failure_known');
    assert.deepEqual(
      known.warn!([]).map((w) => [w.index, w.code]),
      [[3, 'UNKNOWN_COMMAND']],
    );
  });
});
