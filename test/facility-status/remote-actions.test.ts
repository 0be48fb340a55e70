// Remote actions accounted for (issue 28, SPEC §4.1) through the real app: emergency, lockdown and
// action-group requests take an optional reason and are recorded — who asked, when, why, their
// command — and read back newest first with the command's status as their result; the answer says
// when the controller has not been heard lately; the bodies existing clients send (none, "", null,
// a form) still work, and a bad reason is a 400 naming it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EntityId } from '../../src/ids.ts';
import { storeEvents } from '../events/helpers.ts';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { gatewayToken, operatorToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { call, pms, poll } from '../access-control/helpers.ts';

let t: TestApp;
let clock: ManualClock;
let account: ProvisionedAccount;
let other: ProvisionedAccount;
let facilityId: EntityId;
let gateway: string;
let operator: string;
let api: ReturnType<typeof pms>;
let gate: EntityId;

before(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock });
  account = await provisionAccount(t, { facilities: 2 });
  other = await provisionAccount(t, { name: 'Another Storage Co' });
  facilityId = account.facilities[0]!.id;
  gateway = (await gatewayToken(t, facilityId)).token;
  operator = await operatorToken(t);
  api = pms(t, account.token, facilityId);
  const groups = await ok(
    api.client.GET('/facilities/{facilityId}/actiongroups/manual', { params: { path: api.path } }),
    200,
  );
  gate = groups[0]!.id;
});
after(() => t.close());

const at = (id = facilityId) => ({ params: { path: { facilityId: id } } });
const remoteActions = (query: { limit?: number; before?: string } = {}, token = account.token, id = facilityId) =>
  ok(
    typedClient(t, token).GET('/facilities/{facilityId}/remote-actions', {
      params: { path: { facilityId: id }, query },
    }),
    200,
  );
const setSwitch = (name: 'emergency' | 'lockdown', to: 'enable' | 'disable', reason?: string) =>
  api.client.POST(`/facilities/{facilityId}/${name}/${to}`, { ...at(), body: reason === undefined ? {} : { reason } });
const runGroup = (action: 'open' | 'hold' | 'close', reason?: string, token = account.token) =>
  typedClient(t, token).POST(`/facilities/{facilityId}/actiongroups/{actionGroupId}/${action}`, {
    params: { path: { facilityId, actionGroupId: gate } },
    body: reason === undefined ? undefined : { reason },
  });
/** The token's credential id (its cid claim): who asked, as recorded. */
const credentialOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).cid;

describe('a remote action is recorded', () => {
  it('with its action, reason, who asked, when, and its command; listed newest first', async () => {
    const opened = await ok(runGroup('open', 'Tenant stuck at the gate, unit 114'), 200);
    assert.equal(opened.command.status, 'pending');
    assert.ok(opened.remoteActionId);
    const locked = await ok(setSwitch('lockdown', 'enable', 'Police request'), 200);
    const [newest, previous] = await remoteActions({ limit: 2 });
    assert.ok(newest && previous);
    assert.equal(newest.id, locked.remoteActionId);
    assert.deepEqual(
      {
        action: newest.action,
        reason: newest.reason,
        actionGroup: newest.actionGroup,
        wroteCommand: newest.wroteCommand,
        command: newest.command,
        requestedBy: newest.requestedBy,
        facilityId: newest.facilityId,
      },
      {
        action: 'lockdown.enable',
        reason: 'Police request',
        actionGroup: null,
        wroteCommand: true,
        command: { id: locked.command!.id, sequence: locked.command!.sequence, status: 'pending', failureReason: null },
        requestedBy: {
          kind: 'account',
          credentialId: credentialOf(account.token),
          clientId: account.pms.clientId,
          accountId: account.accountId,
        },
        facilityId,
      },
    );
    assert.ok(Math.abs(new Date(newest.requestedAt).getTime() - Date.now()) < 60_000);
    assert.equal(previous.id, opened.remoteActionId);
    assert.equal(previous.action, 'action-group.open');
    assert.deepEqual(previous.actionGroup, { id: gate, name: 'Main Gate' });
    assert.equal(previous.reason, 'Tenant stuck at the gate, unit 114');
    assert.equal(previous.command?.id, opened.command.id);
  });

  it('its result follows its command: delivered, acknowledged, failed with the controller’s reason', async () => {
    const hold = await ok(runGroup('hold'), 200);
    const close = await ok(runGroup('close'), 200);
    const resultOf = async (remoteActionId: string) =>
      (await remoteActions({ limit: 1000 })).find((a) => a.id === remoteActionId)!.command;
    await ok(poll(t, gateway, { after: 0, limit: 1000 }), 200);
    assert.equal((await resultOf(hold.remoteActionId))?.status, 'delivered');
    await storeEvents(t, gateway, [
      {
        eventId: randomUUID(),
        eventType: 3,
        occurredAt: new Date().toISOString(),
        data: { commandId: hold.command.id },
      },
      {
        eventId: randomUUID(),
        eventType: 3,
        occurredAt: new Date().toISOString(),
        data: { commandId: close.command.id, result: 'failed', reason: 'Gate operator offline' },
      },
    ]);
    assert.equal((await resultOf(hold.remoteActionId))?.status, 'acknowledged');
    assert.deepEqual(await resultOf(close.remoteActionId), {
      id: close.command.id,
      sequence: close.command.sequence,
      status: 'failed',
      failureReason: 'Gate operator offline',
    });
  });

  it('a repeated switch request writes no command and is recorded pointing at the command underway', async () => {
    const first = await ok(setSwitch('emergency', 'enable', 'Fire alarm'), 200);
    const again = await ok(setSwitch('emergency', 'enable', 'Still the fire alarm'), 200);
    assert.equal(again.command?.id, first.command?.id);
    const [repeat, original] = await remoteActions({ limit: 2 });
    assert.deepEqual(
      [repeat?.action, repeat?.reason, repeat?.wroteCommand, repeat?.command?.id],
      ['emergency.enable', 'Still the fire alarm', false, first.command?.id],
    );
    assert.deepEqual([original?.wroteCommand, original?.command?.id], [true, first.command?.id]);
  });

  it('an operator’s request is recorded as the operator’s (no account); the operator reads every facility’s', async () => {
    const run = await ok(runGroup('open', 'Support call #4411', operator), 200);
    const [mine] = await remoteActions({ limit: 1 }, operator);
    assert.equal(mine?.id, run.remoteActionId);
    assert.equal(mine.requestedBy.kind, 'operator');
    assert.equal(mine.requestedBy.accountId, null);
    assert.equal(mine.requestedBy.credentialId, credentialOf(operator));
  });

  it('pages newest first with limit and before', async () => {
    const all = await remoteActions({ limit: 1000 });
    assert.ok(all.length >= 6);
    const times = all.map((a) => a.requestedAt);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    const first = await remoteActions({ limit: 2 });
    const next = await remoteActions({ limit: 2, before: first[1]!.id });
    assert.deepEqual(
      [...first, ...next].map((a) => a.id),
      all.slice(0, 4).map((a) => a.id),
    );
    // An id that is not one of the facility's remote actions: an empty page.
    assert.deepEqual(await remoteActions({ before: randomUUID() }), []);
    // Another facility of the account has its own (none here).
    assert.deepEqual(await remoteActions({}, account.token, account.facilities[1]!.id), []);
  });
});

describe('what the answer says of the controller', () => {
  it('never heard: not connected; heard within 2 minutes: connected; silent longer: not heard since, and the command waits', async () => {
    // The account's second facility, whose controller has not connected yet.
    const quiet = pms(t, account.token, account.facilities[1]!.id);
    const groups = await ok(
      quiet.client.GET('/facilities/{facilityId}/actiongroups/manual', { params: { path: quiet.path } }),
      200,
    );
    const open = () =>
      ok(
        quiet.client.POST('/facilities/{facilityId}/actiongroups/{actionGroupId}/open', {
          params: { path: { ...quiet.path, actionGroupId: groups[0]!.id } },
        }),
        200,
      );
    const never = await open();
    assert.deepEqual(never.controller, {
      lastHeardAt: null,
      connected: false,
      message: 'The controller has never connected; the command waits for it.',
    });
    await ok(poll(t, (await gatewayToken(t, quiet.path.facilityId)).token, { after: 0, limit: 1 }), 200);
    const heard = await open();
    assert.equal(heard.controller.connected, true);
    assert.ok(heard.controller.lastHeardAt);
    assert.match(heard.controller.message, /^Connected; last heard at /);
    clock.advance(3 * 60_000);
    try {
      const silent = await ok(
        quiet.client.POST('/facilities/{facilityId}/lockdown/enable', { params: { path: quiet.path } }),
        200,
      );
      assert.equal(silent.controller.connected, false);
      assert.equal(silent.controller.lastHeardAt, heard.controller.lastHeardAt);
      assert.match(
        silent.controller.message,
        /^The controller has not been heard from since .*; the command waits for it\.$/,
      );
      assert.equal(silent.command?.status, 'pending', 'the command waits as any other');
    } finally {
      clock.advance(-3 * 60_000);
    }
  });
});

describe('bodies', () => {
  const raw = (path: string, body?: unknown, headers?: Record<string, string>) =>
    call(t, account.token, 'POST', `/facilities/${facilityId}${path}`, body, headers);

  it('no body, "", null, whitespace and {} are no reason; existing clients’ content types work', async () => {
    const sent = [
      await raw('/emergency/disable'),
      await raw('/emergency/disable', '', { 'content-type': 'application/json' }),
      await raw('/lockdown/enable', '""', { 'content-type': 'application/json-patch+json' }),
      await raw('/lockdown/enable', 'null', { 'content-type': 'application/json' }),
      await raw(`/actiongroups/${gate}/open`, { reason: '' }),
      await raw(`/actiongroups/${gate}/open`, { reason: null }),
      await raw(`/actiongroups/${gate}/close`, { reason: '   ' }),
      await raw(`/actiongroups/${gate}/close`, {}),
    ];
    for (const reply of sent) assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const recorded = await remoteActions({ limit: sent.length });
    assert.deepEqual(
      recorded.map((a) => a.reason),
      sent.map(() => null),
    );
  });

  it('a reason as a form field or json-patch+json is recorded', async () => {
    const form = await raw(`/actiongroups/${gate}/hold`, 'reason=Delivery+truck', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(form.status, 200, JSON.stringify(form.body));
    const patch = await raw('/emergency/disable', JSON.stringify({ reason: 'All clear' }), {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(patch.status, 200, JSON.stringify(patch.body));
    const [second, first] = await remoteActions({ limit: 2 });
    assert.deepEqual([first?.reason, second?.reason], ['Delivery truck', 'All clear']);
  });

  it('a reason over 200 characters, or not a string, is a 400 naming reason, and nothing is sent or recorded', async () => {
    const before = (await remoteActions({ limit: 1000 })).length;
    const commands = (await api.commands({ limit: 1000 })).length;
    const exactly = await raw(`/actiongroups/${gate}/open`, { reason: 'r'.repeat(200) });
    assert.equal(exactly.status, 200, '200 characters are allowed');
    for (const [path, reason, message] of [
      ['/emergency/enable', 'r'.repeat(201), 'must be at most 200 characters'],
      ['/lockdown/disable', 42, 'must be a string'],
      [`/actiongroups/${gate}/close`, { why: 'x' }, 'must be a string'],
      [`/actiongroups/${gate}/open`, ['a'], 'must be a string'],
    ] as const) {
      const reply = await raw(path, { reason });
      assert.equal(reply.status, 400, `${path} ${JSON.stringify(reason)}`);
      assert.deepEqual(
        reply.body.errors.map((e: { path: string }) => e.path),
        ['reason'],
      );
      assert.match(reply.body.errors[0].message, new RegExp(message));
      assert.deepEqual(reply.body.Reason, [reply.body.errors[0].message], 'named the incumbent’s way too');
    }
    assert.equal((await remoteActions({ limit: 1000 })).length, before + 1);
    assert.equal((await api.commands({ limit: 1000 })).length, commands + 1);
  });
});

describe('access', () => {
  it('reading needs accesscontrol:read (or admin); another account’s facility is 404; a bad before or limit is a 400', async () => {
    await refused(
      typedClient(t, other.token).GET('/facilities/{facilityId}/remote-actions', { params: { path: { facilityId } } }),
      404,
    );
    await refused(
      typedClient(t, gateway).GET('/facilities/{facilityId}/remote-actions', { params: { path: { facilityId } } }),
      403,
    );
    const bad = await call(t, account.token, 'GET', `/facilities/${facilityId}/remote-actions?limit=0&before=nope`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['before', 'limit']);
  });
});

describe('retention', () => {
  it('a remote action goes with its command, and at the latest 30 days after it was asked for', async () => {
    const gone = await ok(runGroup('open', 'old'), 200);
    const commandless = await ok(runGroup('open', 'older'), 200);
    const young = await ok(runGroup('open', 'young'), 200);
    const { pool } = t.services.database;
    await pool.query("update commands set created_at = now() - interval '31 days' where id = $1", [gone.command.id]);
    await pool.query(
      "update remote_actions set requested_at = now() - interval '31 days', command_id = null where id = $1",
      [commandless.remoteActionId],
    );
    assert.ok((await t.services.commands.purgeOldCommands()) >= 1);
    assert.equal(await t.services.facilityStatus.purgeOldRemoteActions(Date.now()), 1);
    const left = (await remoteActions({ limit: 1000 })).map((a) => a.id);
    assert.ok(!left.includes(gone.remoteActionId), 'deleted with its command');
    assert.ok(!left.includes(commandless.remoteActionId), 'deleted after 30 days');
    assert.ok(left.includes(young.remoteActionId));
  });
});
