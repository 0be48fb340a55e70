// Gate codes in reads. A token with the scope accesscontrol:codes (granted to an account key only
// when the operator names it) reads each visitor's code, unsealed from its stored copy; every such
// read is recorded first — who (account, key, application, token), when, through which route,
// which visitors; never the code — and the operator reads the records back. Without the scope a
// read carries no code and leaves no record. SPEC §2, §4.
import type { Principal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { AccessCodeVault } from './codes.ts';
import type { VisitorRow } from './repository.ts';

export const CODES_SCOPE = 'accesscontrol:codes';

/** Who reads, and how: what a code read's audit record names. */
export interface Reader {
  principal: Principal;
  requestId: string;
  /** The route pattern, e.g. GET /facilities/:facilityId/visitors. */
  route: string;
}

/**
 * The views of the rows, with each visitor's `code` when the reader holds the scope — and then
 * only after the read is recorded (no code leaves without its record).
 */
export async function withCodes<View extends object>(
  db: Db,
  vault: AccessCodeVault,
  facilityId: EntityId,
  reader: Reader,
  rows: VisitorRow[],
  views: View[],
): Promise<(View & { code?: string })[]> {
  const { principal } = reader;
  if (rows.length === 0 || principal.kind !== 'account' || !principal.scopes.includes(CODES_SCOPE)) return views;
  await db
    .insertInto('code_reads')
    .values({
      account_id: principal.accountId,
      facility_id: facilityId,
      credential_id: principal.credentialId,
      client_id: principal.clientId,
      token_id: principal.tokenId,
      request_id: reader.requestId,
      route: reader.route,
      visitor_ids: rows.map((row) => row.id),
    })
    .execute();
  return views.map((view, i) => ({ ...view, code: vault.unseal(rows[i]!.id, rows[i]!.access_code_sealed) }));
}

export interface CodeReadQuery {
  accountId?: EntityId;
  facilityId?: EntityId;
  visitorId?: EntityId;
  /** Only records older than this one (paging back, newest first). */
  beforeId?: number;
  limit: number;
}

/** The audit records, newest first. */
export async function listCodeReads(db: Db, query: CodeReadQuery) {
  let select = db.selectFrom('code_reads').selectAll().orderBy('id', 'desc').limit(query.limit);
  if (query.accountId !== undefined) select = select.where('account_id', '=', query.accountId);
  if (query.facilityId !== undefined) select = select.where('facility_id', '=', query.facilityId);
  if (query.visitorId !== undefined)
    select = select.where(({ eb, val }) => eb('visitor_ids', '@>', val([query.visitorId!])));
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  return (await select.execute()).map((r) => ({
    id: r.id,
    readAt: r.read_at.toISOString(),
    accountId: r.account_id,
    facilityId: r.facility_id,
    credentialId: r.credential_id,
    clientId: r.client_id,
    tokenId: r.token_id,
    requestId: r.request_id,
    route: r.route,
    visitorIds: r.visitor_ids,
  }));
}
