// Gate codes learned through the uniqueness rule. A change that sets a code (create, update with
// accessCode, enable) answers ACCESS_CODE_IN_USE when an enabled visitor of the facility holds it,
// so a key without accesscontrol:codes could try codes on its own visitor (with suppressCommands:
// nothing reaches the controller) and learn which open the gate. Therefore:
// - every ACCESS_CODE_IN_USE answer is a code read: recorded in the code-read audit (code-reads.ts)
//   before it is sent, naming the visitor(s) holding the code;
// - per credential, at most ACCESS_CODE_CONFLICTS_PER_MINUTE such answers a minute. A change that
//   sets a code takes a place BEFORE it runs (the attempt counter of the token throttle: failures
//   plus changes in progress stay under the limit; in Redis when configured, so across instances),
//   and a conflict keeps its place until the minute ends. Beyond, every change that sets a code is
//   refused 429 + Retry-After without running: the refusal is the same whether the code is taken
//   or free, so it reveals nothing. Credentials holding accesscontrol:codes are held to the same
//   rule (one rule; they read codes through the audited reads instead).
// A change refused only because the places are held by changes still in progress waits for one
// (they end within milliseconds), so that a PMS sending several changes at once is not refused.
import { systemClock, type Clock } from '../clock.ts';
import { type AttemptCounter, SharedAttemptCounter } from '../auth/index.ts';
import { credentialKey, type VisibleFacility } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import type { SharedState } from '../shared-state.ts';
import { recordCodeRead, type Reader } from './code-reads.ts';

export const CODE_CONFLICT_WINDOW_SECONDS = 60;
/** How long a change waits for a place held by changes in progress before it is refused. */
const WAIT_FOR_PLACE_MS = 2_000;

const throttled = (seconds: number) =>
  new AppError(
    429,
    'ACCESS_CODE_CONFLICTS_THROTTLED',
    `Too many changes with this key met a gate code already in use; no change that sets a code is made for ${seconds} seconds.`,
    [],
    { 'retry-after': String(seconds) },
  );

export const isCodeInUse = (error: unknown) => error instanceof AppError && error.code === 'ACCESS_CODE_IN_USE';

/** Who else holds the code, looked up once the change is refused (the audit names them). */
export type CodeHolders = (db: Db) => Promise<EntityId[]>;

export class CodeConflictThrottle {
  constructor(private readonly counter: AttemptCounter) {}

  static create(shared: SharedState, perMinute: number, clock: Clock = systemClock): CodeConflictThrottle {
    return new CodeConflictThrottle(
      new SharedAttemptCounter(shared, 'gh:codeconflict:credential:', perMinute, CODE_CONFLICT_WINDOW_SECONDS, clock),
    );
  }

  /**
   * Runs `change` (one that sets a gate code) if the writer's credential has a place for it; an
   * ACCESS_CODE_IN_USE it throws is recorded as a code read of the holders, then thrown.
   */
  async guard<T>(
    db: Db,
    facility: VisibleFacility,
    writer: Reader,
    holders: CodeHolders,
    change: () => Promise<T>,
  ): Promise<T> {
    const key = credentialKey(writer.principal);
    await this.place(key);
    let conflict = false;
    try {
      return await change();
    } catch (error) {
      if (isCodeInUse(error)) {
        conflict = true;
        await recordCodeRead(db, facility, writer, await holders(db));
      }
      throw error;
    } finally {
      await this.counter.end(key, conflict);
    }
  }

  private async place(key: string): Promise<void> {
    const deadline = Date.now() + WAIT_FOR_PLACE_MS;
    let pause = 10;
    for (;;) {
      const admission = await this.counter.begin(key);
      if (admission.admitted) return;
      // More than a second: conflicts fill the minute. One second: changes in progress hold the
      // places (or the minute is about to end) — wait for one, a little while.
      if (admission.retryAfterSeconds > 1 || Date.now() + pause > deadline)
        throw throttled(admission.retryAfterSeconds);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 200);
    }
  }
}
