// Accounts: the operators' customers, who own facilities.
import type { Db } from '../db/tables.ts';
import type { FieldError } from '../errors.ts';
import * as repository from './repository.ts';
import { refuseFaults, requireText } from './rules.ts';

export async function createAccount(db: Db, input: { name: string }) {
  const faults: FieldError[] = [];
  requireText(faults, 'name', input.name, 200);
  refuseFaults(faults);
  const row = await repository.insertAccount(db, input.name.trim());
  return { id: row.id, name: row.name, createdAt: row.created_at.toISOString() };
}

export async function listAccounts(db: Db) {
  return (await repository.allAccounts(db)).map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
  }));
}
