// Accounts: the operators' customers, who own facilities.
import type { Db } from '../db/tables.ts';
import type { FieldError } from '../errors.ts';
import * as repository from './repository.ts';
import { refuseFaults, requireText } from './rules.ts';

export async function createAccount(db: Db, input: { name: string }) {
  const faults: FieldError[] = [];
  requireText(faults, 'name', input.name, 200);
  refuseFaults(faults);
  return accountView(await repository.insertAccount(db, input.name.trim()));
}

/** Every account, sandboxes marked (with their owner). */
export async function listAccounts(db: Db) {
  return (await repository.allAccounts(db)).map(accountView);
}

/** An account as the admin routes show it: a sandbox says so, and names its owner. */
export const accountView = (row: { id: number; name: string; created_at: Date; sandbox_of: number | null }) => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  sandbox: row.sandbox_of !== null,
  ownerAccountId: row.sandbox_of,
});
