// Emergency access and lockdown (SPEC §4.1): what the controller last reported, and the remote
// action that asks it to turn one on or off — a command to the controller, acknowledged like every
// other (event 3), and recorded with who asked and why (remote-actions.ts). The facility's state row
// keeps both the reported and the desired value; the rule for a repeated request is
// needsSwitchCommand (rules.ts).
import type { CommandStatus, CommandType } from '../commands/index.ts';
import type { EntityId } from '../ids.ts';
import type { FacilityStatusDeps } from './deps.ts';
import { type RemoteActionAnswer, type RemoteActionRequest, recordRemoteAction } from './remote-actions.ts';
import * as repo from './repository.ts';
import { type FacilitySwitch, needsSwitchCommand } from './rules.ts';

export interface SwitchState {
  /** What the controller last reported (null: never). */
  reported: boolean | null;
  /** What was last asked for (null: never). */
  desired: boolean | null;
}

/** A command a remote action wrote (or found underway), by id, sequence and status. */
export interface CommandRef {
  id: string;
  sequence: number;
  status: CommandStatus;
}

/** What the controller last reported for the switch; false when it never did. */
export async function reportedSwitch(
  { db }: Pick<FacilityStatusDeps, 'db'>,
  facilityId: EntityId,
  which: FacilitySwitch,
): Promise<boolean> {
  return (await repo.selectSwitch(db, facilityId, which)).reported ?? false;
}

const SWITCH_COMMANDS: Record<FacilitySwitch, CommandType> = {
  emergency: 'emergency.set',
  lockdown: 'lockdown.set',
};

/**
 * Asks the controller to turn emergency access or lockdown on or off, and records the request. A
 * repeat of what is already asked for sends no second command (needsSwitchCommand); the answer then
 * names the newest command for the switch (null if it was purged long ago), and the record points
 * at it (wroteCommand false).
 */
export async function setSwitch(
  { commands, clock }: Pick<FacilityStatusDeps, 'commands' | 'clock'>,
  facilityId: EntityId,
  which: FacilitySwitch,
  enabled: boolean,
  request: RemoteActionRequest,
): Promise<{ command: CommandRef | null } & SwitchState & RemoteActionAnswer> {
  const type = SWITCH_COMMANDS[which];
  const action = `${which}.${enabled ? 'enable' : 'disable'}` as const;
  return commands.inChange(facilityId, false, async (change) => {
    const state = await repo.selectSwitch(change.trx, facilityId, which, { lock: true });
    const newest = await change.newestOfType(type);
    const underway = newest !== undefined && (newest.status === 'pending' || newest.status === 'delivered');
    if (!needsSwitchCommand({ requested: enabled, ...state, underway })) {
      const command = newest ? { id: newest.id, sequence: newest.sequence, status: newest.status } : null;
      const recorded = await recordRemoteAction(change.trx, clock.now(), {
        facilityId,
        action,
        request,
        command,
        wrote: false,
      });
      return { command, ...state, ...recorded };
    }
    const written = await change.command(type, { enabled });
    await repo.setDesired(change.trx, facilityId, which, enabled);
    const recorded = await recordRemoteAction(change.trx, clock.now(), {
      facilityId,
      action,
      request,
      command: written,
      wrote: true,
    });
    return {
      command: written ? { ...written, status: 'pending' as const } : null,
      reported: state.reported,
      desired: enabled,
      ...recorded,
    };
  });
}
