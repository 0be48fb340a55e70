// What the command queue's operations work with. createCommands (index.ts) builds it once; every
// operation takes the parts it needs (a Pick of this), so its dependencies are in its signature.
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { CodeUnsealer } from './rules.ts';
import type { CommandSignals } from './signals.ts';

/** What another face does when a controller polls for its commands (facility status: it was heard). */
export type WhenPolled = (facilityId: EntityId, now: number) => Promise<void>;

export interface CommandsDeps {
  db: Db;
  /** On PostgreSQL a command also runs pg_notify, for polls waiting on other instances. */
  notifyAcrossInstances: boolean;
  /** The wake-ups of waiting polls. */
  signals: CommandSignals;
  /** Opens the gate codes sealed in payloads, for the controller (access control's vault). */
  codes: CodeUnsealer;
  /** What other faces do at each poll, before it looks for commands (the composition root hands them in). */
  whenPolled: readonly WhenPolled[];
  /** Seconds from a command's creation to its first delivery to the controller (gatehouse_command_delivery_seconds). */
  deliveryLag: { observe(seconds: number): void };
}
