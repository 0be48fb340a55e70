// The full-state refreshes (deprecated, kept for integrations that suppressed commands): one
// command with every live unit, or every visitor (codes sealed), of the facility; the controller
// replaces its copy with it.
import type { VisibleFacility } from '../http/caller.ts';
import { inChange } from './change.ts';
import type { AccessControlParts } from './deps.ts';
import * as repo from './repository.ts';
import { unitState } from './units.ts';
import { visitorState } from './visitors.ts';

/** What a refresh answers: its command, and how many units or visitors it carries. */
export interface RefreshResult {
  command: { id: string; sequence: number; type: string; status: 'pending' };
  count: number;
}

export type Refreshed = 'units' | 'visitors';

/**
 * Takes the facility's command sequence lock before it reads the state (held until commit): any
 * change that commits a command before the refresh's is then in the refresh's snapshot, so the
 * full state never overwrites a newer change on the controller.
 */
export async function refresh(
  ac: AccessControlParts,
  facility: VisibleFacility,
  what: Refreshed,
): Promise<RefreshResult> {
  return inChange(ac, facility.id, false, async ({ trx, command, holdSequence }) => {
    await holdSequence();
    const items =
      what === 'units'
        ? (await repo.selectUnitStates(trx, facility.id)).map(unitState)
        : (await repo.selectVisitorStates(trx, facility.id)).map((r) => visitorState(r, facility.timeZone));
    const type = what === 'units' ? 'units.refresh' : 'visitors.refresh';
    const written = await command(type, { action: 'refresh', [what]: items });
    return { command: { ...written!, type, status: 'pending' }, count: items.length };
  });
}
