// What a partner may name in /api/3: its assigned facilities, with its client type. Refusals are
// in the envelope's terms (envelope.ts), as the partner's calls are answered.
import type { EntityId } from '../ids.ts';
import type { PartnerPrincipal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { EnvelopeError, type EnvelopeMessage } from './envelope.ts';
import { facilityByGuid, facilityIdsByGuids, type FacilityRow } from './repository.ts';
import type { Fault } from './validation.ts';

/** The history's actor of a partner's change. */
export const partnerActor = (partner: PartnerPrincipal) => `partner:${partner.clientId}`;

/** An unknown guid and another partner's guid are refused alike. */
export const facilityNotFound = (guid: string) =>
  new EnvelopeError(404, [
    {
      code: 'FACILITY_NOT_FOUND',
      message: `No facility with the guid ${guid} is assigned to this partner.`,
      path: 'guid',
    },
  ]);

/** A body refused with every fault validation.ts found. */
export const invalidBody = (faults: Fault[]) =>
  new EnvelopeError(
    400,
    faults.map((f): EnvelopeMessage => ({ code: f.code, message: f.message, path: f.path })),
  );

/** The facility of one of the partner's guids (else 404). */
export async function partnerFacility(db: Db, partner: PartnerPrincipal, guid: string): Promise<FacilityRow> {
  const facility = partner.facilityGuids.includes(guid) ? await facilityByGuid(db, guid) : null;
  if (!facility) throw facilityNotFound(guid);
  return facility;
}

/** The facility a partner names by guid to write to: one of its own (else 404), with its client type (else 403). */
export async function partnerFacilityToWrite(
  db: Db,
  partner: PartnerPrincipal,
  guid: string,
  clientType: string,
): Promise<FacilityRow> {
  const facility = await partnerFacility(db, partner, guid);
  if (clientType !== partner.clientType) {
    throw new EnvelopeError(403, [
      {
        code: 'CLIENT_TYPE_MISMATCH',
        message: 'clientType is not the client type assigned to this partner.',
        path: 'clientType',
      },
    ]);
  }
  return facility;
}

/** The facilities a partner's read covers: the one it names, else all of its own. */
export async function partnerFacilityIds(
  db: Db,
  partner: PartnerPrincipal,
  guid: string | undefined,
): Promise<EntityId[]> {
  if (guid !== undefined) return [(await partnerFacility(db, partner, guid)).id];
  return partner.facilityGuids.length > 0 ? facilityIdsByGuids(db, partner.facilityGuids) : [];
}
