// Remote actions accounted for (SPEC §4.1, issue 28). Every request for emergency access, lockdown
// or an action group's open, hold or close is recorded in the transaction that decides it: which
// action, who asked (the token's credential, client and account), when, why (an optional reason),
// and its command — the one it wrote, or, for a repeated switch request that wrote none, the command
// underway (or the last one). Its result is its command's status, read when the record is. The
// answer to a request also says whether the controller has been heard lately (controllerContact):
// a command for a silent controller waits for it, as every command does.
// The requests themselves are in switches.ts and action-groups.ts; the SQL in repository.ts.
import { COMMAND_RETENTION_DAYS, type CommandStatus } from '../commands/index.ts';
import type { Db } from '../db/tables.ts';
import type { Principal } from '../http/caller.ts';
import type { EntityId } from '../ids.ts';
import type { FacilityStatusDeps } from './deps.ts';
import * as repo from './repository.ts';
import { type ControllerContact, controllerContact, lastHeard } from './rules.ts';

/** The remote actions, as recorded and listed. */
export const REMOTE_ACTIONS = [
  'emergency.enable',
  'emergency.disable',
  'lockdown.enable',
  'lockdown.disable',
  'action-group.open',
  'action-group.hold',
  'action-group.close',
] as const;
export type RemoteAction = (typeof REMOTE_ACTIONS)[number];

/** Who asked: the token's kind, credential and client, and its account (an operator has none). */
export interface Requester {
  kind: Principal['kind'];
  credentialId: string;
  clientId: string;
  accountId: EntityId | null;
}

/** A remote action's request: who asks, and why (null: no reason given). */
export interface RemoteActionRequest {
  requester: Requester;
  reason: string | null;
}

/** The request behind a remote action's call: its caller, and the body's reason ("", spaces or none: no reason). */
export function remoteActionRequest(principal: Principal, body: { reason?: string | null } | null | undefined) {
  const reason = body?.reason?.trim() ? body.reason : null;
  return {
    requester: {
      kind: principal.kind,
      credentialId: principal.credentialId,
      clientId: principal.clientId,
      accountId: 'accountId' in principal ? principal.accountId : null,
    },
    reason,
  } satisfies RemoteActionRequest;
}

/** What a remote action's answer adds: its record's id and the controller's contact. */
export interface RemoteActionAnswer {
  remoteActionId: string;
  controller: ControllerContact;
}

/**
 * Records a remote action in the transaction that decided it, and reads how recently its controller
 * was heard (at `now`): what the action's answer adds.
 */
export async function recordRemoteAction(
  trx: Db,
  now: number,
  action: {
    facilityId: EntityId;
    action: RemoteAction;
    actionGroup?: { id: EntityId; name: string };
    request: RemoteActionRequest;
    /** The command it wrote (wrote: true) or points at (false); null when there is none. */
    command: { id: string } | null;
    wrote: boolean;
  },
): Promise<RemoteActionAnswer> {
  const { requester } = action.request;
  const row = await repo.insertRemoteAction(trx, {
    facility_id: action.facilityId,
    action: action.action,
    action_group_id: action.actionGroup?.id ?? null,
    action_group_name: action.actionGroup?.name ?? null,
    reason: action.request.reason,
    requester_kind: requester.kind,
    credential_id: requester.credentialId,
    client_id: requester.clientId,
    account_id: requester.accountId,
    command_id: action.command?.id ?? null,
    wrote_command: action.wrote,
  });
  const heard = await repo.selectLastHeard(trx, action.facilityId);
  const at = (date: Date | null) => (date === null ? null : date.getTime());
  return {
    remoteActionId: row.id,
    controller: controllerContact(
      lastHeard({ lastEventReceivedAt: at(heard.last_event_received_at), lastPolledAt: at(heard.last_polled_at) }),
      now,
    ),
  };
}

/** A remote action as a PMS and the console read it; its result is its command's status. */
export interface RemoteActionView {
  id: string;
  facilityId: EntityId;
  action: RemoteAction;
  actionGroup: { id: EntityId | null; name: string } | null;
  reason: string | null;
  requestedAt: string;
  requestedBy: Requester;
  /** False: a repeated switch request that wrote no command; `command` is then the one underway (or the last). */
  wroteCommand: boolean;
  /** Its command and that command's status now (null: none, or deleted). */
  command: { id: string; sequence: number; status: CommandStatus; failureReason: string | null } | null;
}

/** The facility's remote actions, newest first; `before` (a remote action's id) continues after a page. */
export async function listRemoteActions(
  { db, commands }: Pick<FacilityStatusDeps, 'db' | 'commands'>,
  facilityId: EntityId,
  options: { limit?: number; before?: string },
): Promise<RemoteActionView[]> {
  const rows = await repo.selectRemoteActions(db, facilityId, { limit: options.limit ?? 100, before: options.before });
  const ids = [...new Set(rows.flatMap((r) => (r.command_id === null ? [] : [r.command_id])))];
  const found = new Map((await commands.findCommands(facilityId, ids)).map((c) => [c.id, c]));
  return rows.map((r) => {
    const command = r.command_id === null ? undefined : found.get(r.command_id);
    return {
      id: r.id,
      facilityId: r.facility_id,
      action: r.action as RemoteAction,
      actionGroup: r.action_group_name === null ? null : { id: r.action_group_id, name: r.action_group_name },
      reason: r.reason,
      requestedAt: r.requested_at.toISOString(),
      requestedBy: {
        kind: r.requester_kind as Requester['kind'],
        credentialId: r.credential_id,
        clientId: r.client_id,
        accountId: r.account_id,
      },
      wroteCommand: r.wrote_command,
      command: command
        ? { id: command.id, sequence: command.sequence, status: command.status, failureReason: command.failureReason }
        : null,
    };
  });
}

/**
 * Deletes remote actions requested more than COMMAND_RETENTION_DAYS ago, in slices; returns how many.
 * Most go with their command (on delete cascade); this takes those whose command was deleted first
 * (a repeat pointing at an old one) or that have none.
 */
export async function purgeOldRemoteActions({ db }: Pick<FacilityStatusDeps, 'db'>, now: number): Promise<number> {
  const cutoff = new Date(now - COMMAND_RETENTION_DAYS * 86_400_000);
  const slice = 5000;
  let total = 0;
  for (;;) {
    const deleted = await repo.deleteRemoteActionsBefore(db, cutoff, slice);
    total += deleted;
    if (deleted < slice) return total;
  }
}
