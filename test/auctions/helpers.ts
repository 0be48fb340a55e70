// Helpers of the auction tests: a facility with a partner, records, and calls in the envelope.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/harness.ts';
import { bearer, operatorToken, partnerToken, provisionAccount } from '../helpers/tenants.ts';

export interface Partner {
  guid: string;
  facilityId: EntityId;
  clientType: string;
  token: string;
  clientId: string;
  /** Other facility of the same partner. */
  otherGuid: string;
  otherFacilityId: EntityId;
}

let counter = 0;

/** An account with two facilities, and a partner assigned to both. */
export async function setupPartner(t: TestApp, clientType = `AcmePMS${++counter}`): Promise<Partner> {
  const account = await provisionAccount(t, { facilities: 2 });
  const [a, b] = account.facilities;
  const partner = await partnerToken(t, clientType, [a!.guid!, b!.guid!]);
  return {
    guid: a!.guid!,
    facilityId: a!.id,
    clientType,
    token: partner.token,
    clientId: partner.clientId,
    otherGuid: b!.guid!,
    otherFacilityId: b!.id,
  };
}

export async function adminToken(t: TestApp): Promise<string> {
  return operatorToken(t);
}

// Fixed instants, so that the same record sent twice has the same content.
const STARTS = '2030-12-01T09:00:00-07:00';
const ENDS = '2030-12-08T09:00:00-07:00';

/** A complete record: it becomes Active. */
export function record(unitId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    unitId,
    unitName: `N-${unitId}`.slice(0, 50),
    auctionType: 'Lien',
    unitWidth: 10,
    unitLength: 15,
    description: 'Sofa, boxes, two bikes',
    categories: ['Household Furniture', 'Boxes'],
    tenantName: 'J. Doe',
    startsAt: STARTS,
    endsAt: ENDS,
    minimumBid: 25,
    imageUrls: [`https://pms.example/img/${encodeURIComponent(unitId)}-1.jpg`],
    ...extra,
  };
}

export const units = (n: number, prefix = 'U') =>
  Array.from({ length: n }, (_, i) => record(`${prefix}-${String(i + 1).padStart(5, '0')}`));

export async function createList(
  t: TestApp,
  p: Partner,
  records: unknown[],
  options: {
    query?: string;
    headers?: Record<string, string>;
    guid?: string;
    clientType?: string;
    token?: string;
  } = {},
) {
  return t.app.inject({
    method: 'POST',
    url: `/api/3/auctioninfo${options.query ?? ''}`,
    headers: { ...bearer(options.token ?? p.token), ...options.headers },
    payload: {
      guid: options.guid ?? p.guid,
      clientType: options.clientType ?? p.clientType,
      auctionableUnitInfo: records,
    },
  });
}

export async function cancelUnit(
  t: TestApp,
  p: Partner,
  records: unknown[],
  options: { guid?: string; token?: string } = {},
) {
  return t.app.inject({
    method: 'PUT',
    url: '/api/3/cancelauctions',
    headers: bearer(options.token ?? p.token),
    payload: { guid: options.guid ?? p.guid, clientType: p.clientType, cancelAuctionIds: records },
  });
}

export async function readAuction(t: TestApp, p: Partner, auctionId: string) {
  const response = await t.app.inject({ method: 'GET', url: `/api/3/auctions/${auctionId}`, headers: bearer(p.token) });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data;
}

/** The envelope's rule: meta.ack is true exactly for 2xx, and the shape is always there. */
export function envelopeOf(response: LightMyRequestResponse) {
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['data', 'meta']);
  assert.deepEqual(Object.keys(body.meta).sort(), ['ack', 'errors', 'hasErrors', 'hasWarnings', 'warnings']);
  assert.equal(
    body.meta.ack,
    response.statusCode >= 200 && response.statusCode < 300,
    `ack and status ${response.statusCode} disagree`,
  );
  assert.equal(body.meta.hasErrors, body.meta.errors.length > 0);
  assert.equal(body.meta.hasWarnings, body.meta.warnings.length > 0);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return body as {
    meta: {
      ack: boolean;
      hasErrors: boolean;
      hasWarnings: boolean;
      errors: { code: string; message: string; path?: string }[];
      warnings: { code: string; message: string; path?: string }[];
    };
    data: any;
  };
}

export const byUnit = (results: { unitId: string }[]) => new Map(results.map((r) => [r.unitId, r as any]));
