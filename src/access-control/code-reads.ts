// Gate codes in reads. A token with the scope accesscontrol:codes (granted to an account key only
// when the operator names it) reads each visitor's code, unsealed from its stored copy; every such
// read is recorded first — who (account, key, application, token), when, through which route,
// which visitors; never the code — and the operator reads the records back. Without the scope a
// read carries no code and leaves no record. A change answered ACCESS_CODE_IN_USE tells its caller
// that someone holds the code: it is recorded the same way (code-conflicts.ts). SPEC §2, §4.
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
  await recordCodeRead(
    db,
    { id: facilityId, accountId: principal.accountId },
    reader,
    rows.map((row) => row.id),
  );
  return views.map((view, i) => ({ ...view, code: vault.unseal(rows[i]!.id, rows[i]!.access_code_sealed) }));
}

/**
 * Records that the reader learned the codes of these visitors of the facility: a read that
 * returned them, or an ACCESS_CODE_IN_USE answer (code-conflicts.ts) naming who holds the code.
 */
export async function recordCodeRead(
  db: Db,
  facility: { id: EntityId; accountId: EntityId },
  reader: Reader,
  visitorIds: EntityId[],
): Promise<void> {
  const { principal } = reader;
  await db
    .insertInto('code_reads')
    .values({
      account_id: principal.kind === 'account' ? principal.accountId : facility.accountId,
      facility_id: facility.id,
      credential_id: principal.credentialId,
      client_id: principal.clientId,
      token_id: principal.tokenId,
      request_id: reader.requestId,
      route: reader.route,
      visitor_ids: visitorIds,
    })
    .execute();
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
