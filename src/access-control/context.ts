// What the access-control face and the gateway's command poll share in one running service: the
// database, the gate-code vault and the command wake-ups. Opened once per Services, on first use.
import type { Kysely } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { Services } from '../services.ts';
import { openAccessCodeVault, type AccessCodeVault } from './codes.ts';
import { CommandSignals } from './signals.ts';

export interface AccessControl {
  db: Db;
  /** On PostgreSQL a command also runs pg_notify, for polls waiting on other instances. */
  notifyAcrossInstances: boolean;
  vault: AccessCodeVault;
  signals: CommandSignals;
}

const contexts = new WeakMap<Services, Promise<AccessControl>>();

export function accessControlOf(services: Services): Promise<AccessControl> {
  let context = contexts.get(services);
  if (!context) {
    context = (async () => {
      const postgres = services.database.kind === 'postgres';
      const signals = new CommandSignals(services.logger, postgres ? services.config.databaseUrl : null);
      const vault = await openAccessCodeVault(services.config, services.database.db);
      await signals.listen();
      return { db: services.database.db, notifyAcrossInstances: postgres, vault, signals };
    })();
    contexts.set(services, context);
  }
  return context;
}
