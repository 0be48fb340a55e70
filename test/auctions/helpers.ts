// Helpers of the auction tests: a facility with a partner, records, and calls in the envelope.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/harness.ts';
import type { operations, Schemas } from '../../clients/typescript/index.ts';
import { ok, typedClient } from '../helpers/client.ts';
import { operatorToken, partnerToken, provisionAccount } from '../helpers/tenants.ts';

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

/** An answer of the /api/3 face as the tests read it: its status, headers (lower-case names) and body text. */
export interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  /** The body as sent for a 2xx answer; an error's body as its JSON. */
  body: string;
  json(): any;
}

/** A typed call's answer as a Reply (called with parseAs: 'text', so that a replay's bytes can be compared). */
async function replyOf(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Reply> {
  const { data, error, response } = await call;
  const body = typeof data === 'string' ? data : JSON.stringify(error ?? data ?? null);
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body,
    json: () => JSON.parse(body),
  };
}

type Unit = Schemas['AuctionableUnit'];

/**
 * POST /api/3/auctioninfo through the typed client. The records are the input under test (some of
 * them deliberately wrong in a field's value): record() builds them, typed by the document.
 */
export async function createList(
  t: TestApp,
  p: Partner,
  records: unknown[],
  options: {
    dryRun?: boolean;
    idempotencyKey?: string;
    guid?: string;
    clientType?: string;
    token?: string;
  } = {},
) {
  return replyOf(
    typedClient(t, options.token ?? p.token).POST('/api/3/auctioninfo', {
      params: {
        query: options.dryRun === undefined ? {} : { dryRun: options.dryRun },
        header: options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey },
      },
      body: {
        guid: options.guid ?? p.guid,
        clientType: options.clientType ?? p.clientType,
        auctionableUnitInfo: records as Unit[],
      },
      parseAs: 'text',
    }),
  );
}

/** PUT /api/3/cancelauctions through the typed client. */
export async function cancelUnit(
  t: TestApp,
  p: Partner,
  records: unknown[],
  options: { guid?: string; token?: string } = {},
) {
  return replyOf(
    typedClient(t, options.token ?? p.token).PUT('/api/3/cancelauctions', {
      body: {
        guid: options.guid ?? p.guid,
        clientType: p.clientType,
        cancelAuctionIds:
          records as operations['cancelAuction']['requestBody']['content']['application/json']['cancelAuctionIds'],
      },
      parseAs: 'text',
    }),
  );
}

/** GET /api/3/auctions through the typed client, as the partner (or `token`). */
export async function listAuctions(
  t: TestApp,
  p: Partner | { token: string },
  query: NonNullable<operations['listAuctions']['parameters']['query']> = {},
) {
  return replyOf(typedClient(t, p.token).GET('/api/3/auctions', { params: { query }, parseAs: 'text' }));
}

/** GET /api/3/auctions/{auctionId} through the typed client: the answer. */
export async function auctionAnswer(t: TestApp, token: string, auctionId: string) {
  return replyOf(
    typedClient(t, token).GET('/api/3/auctions/{auctionId}', { params: { path: { auctionId } }, parseAs: 'text' }),
  );
}

/** The auction (its data), which must be readable by the partner. */
export async function readAuction(t: TestApp, p: Partner, auctionId: string) {
  const response = await auctionAnswer(t, p.token, auctionId);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data;
}

/** GET /admin/notifications through the typed client, as an operator: the notifications. */
export async function supportNotifications(
  t: TestApp,
  operator: string,
  query: NonNullable<operations['listNotifications']['parameters']['query']>,
): Promise<any[]> {
  return (await ok(typedClient(t, operator).GET('/admin/notifications', { params: { query } }), 200)).notifications;
}

/** The envelope's rule: meta.ack is true exactly for 2xx, and the shape is always there. */
export function envelopeOf(response: Reply | LightMyRequestResponse) {
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
