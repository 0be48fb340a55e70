// The /api/3 answers are serialised by the service, not by the route schemas: this checks that
// the OpenAPI document describes them truly (every answer validates against its schema, no field
// undocumented).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { EnvelopeOf, ErrorEnvelope } from '../../src/auctions/envelope.ts';
import { Auction, AuctionPage, CancelData, CreateData } from '../../src/auctions/schemas.ts';
import { appFixture } from '../helpers/harness.ts';
import { auctionAnswer, cancelUnit, createList, listAuctions, record, setupPartner } from './helpers.ts';

const t = appFixture();

/** Strict: an answer may carry no field the schema does not name. (A named schema's $id is only its name.) */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (key !== '$id') copy[key] = closed(value);
  if (copy.type === 'object' && copy.properties && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

const ajv = addFormats.default(new Ajv({ strict: false, allErrors: true }));
const check = (schema: object, body: unknown, what: string) => {
  const validate = ajv.compile(closed(JSON.parse(JSON.stringify(schema))) as object);
  assert.ok(validate(body), `${what}: ${JSON.stringify(validate.errors)}`);
};

it('every /api/3 answer matches its documented schema', async () => {
  const p = await setupPartner(t);
  const created = await createList(t, p, [record('U-1'), record('U-2', { auctionType: 'Charity', imageUrls: [] })]);
  check(EnvelopeOf(CreateData), created.json(), 'create');
  const changed = await createList(t, p, [record('U-1', { minimumBid: 1 })], { dryRun: true });
  check(EnvelopeOf(CreateData), changed.json(), 'dry run with a warning and a removal');
  const cancelled = await cancelUnit(t, p, [{ unitId: 'U-1' }]);
  check(EnvelopeOf(CancelData), cancelled.json(), 'cancel');
  const answer = cancelled.json() as { meta: object; data: Record<string, unknown> };
  assert.throws(
    () => check(EnvelopeOf(CancelData), { ...answer, data: { ...answer.data, undocumented: 1 } }, 'x'),
    /additionalProperties/,
  );
  const again = await cancelUnit(t, p, [{ unitId: 'U-1' }]);
  check(EnvelopeOf(CancelData), again.json(), 'already cancelled');
  const deferred = await createList(t, p, [record('U-1'), record('U-2', { auctionType: 'Charity', imageUrls: [] })]);
  check(EnvelopeOf(CreateData), deferred.json(), 'deferred');
  const page = await listAuctions(t, p);
  check(EnvelopeOf(AuctionPage), page.json(), 'list');
  for (const auction of page.json().data.auctions) {
    const one = await auctionAnswer(t, p.token, auction.auctionId);
    check(EnvelopeOf(Auction), one.json(), 'one auction');
  }
  const refused = await createList(t, p, [record('U-1', { minimumBid: -1 })]);
  check(ErrorEnvelope('refused'), refused.json(), 'refusal');
  const notFound = await cancelUnit(t, p, [{ unitId: 'nope' }]);
  check(ErrorEnvelope('not found'), notFound.json(), 'unit not found');
});
