// POST /api/3/auctioninfo and PUT /api/3/cancelauctions through HTTP: the envelope on every
// answer, who may call, the full-list outcomes, every bad input of the issue, dry runs and
// idempotency keys.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ok, typedClient } from '../helpers/client.ts';
import { appFixture } from '../helpers/harness.ts';
import { bearer, gatewayToken, partnerToken, provisionAccount } from '../helpers/tenants.ts';
import {
  adminToken,
  auctionAnswer,
  byUnit,
  cancelUnit,
  createList,
  envelopeOf,
  listAuctions,
  readAuction,
  record,
  setupPartner,
  units,
  type Partner,
} from './helpers.ts';

const t = appFixture({ env: { AUCTION_RECREATE_WAIT_MINUTES: '15' } });

describe('the /api/3 envelope on every answer', () => {
  it('wraps 401, 403, 404 from the guard, malformed JSON, 415, 413 and unknown routes', async () => {
    const p = await setupPartner(t);
    const cases = [
      await t.app.inject({ method: 'POST', url: '/api/3/auctioninfo', payload: {} }),
      await t.app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: { authorization: 'Bearer not.a.jwt' },
        payload: {},
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: bearer(await adminToken(t)),
        payload: {},
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: { ...bearer(p.token), 'content-type': 'application/json' },
        payload: '{"guid": ',
      }),
      await t.app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: { ...bearer(p.token), 'content-type': 'application/xml' },
        payload: '<auctions/>',
      }),
      await t.app.inject({ method: 'GET', url: '/api/3/nothing-here', headers: bearer(p.token) }),
      await t.app.inject({
        method: 'PUT',
        url: '/api/3/cancelauctions',
        headers: { ...bearer(p.token), 'content-type': 'application/json' },
        payload: 'x'.repeat(2 * 1024 * 1024),
      }),
    ];
    assert.deepEqual(
      cases.map((r) => r.statusCode),
      [401, 401, 403, 400, 415, 404, 413],
    );
    for (const response of cases) {
      const body = envelopeOf(response);
      assert.equal(body.meta.ack, false);
      assert.equal(body.data, null);
      assert.ok(body.meta.errors[0]!.code.length > 0 && body.meta.errors[0]!.message.length > 0);
      assert.doesNotMatch(response.body, /at .*\.ts:\d+|stack/i);
    }
    assert.equal(envelopeOf(cases[0]!).meta.errors[0]!.code, 'INVALID_TOKEN');
    assert.match(String(cases[0]!.headers['www-authenticate']), /Bearer/);
    assert.equal(envelopeOf(cases[3]!).meta.errors[0]!.code, 'MALFORMED_JSON');
    assert.equal(envelopeOf(cases[6]!).meta.errors[0]!.code, 'PAYLOAD_TOO_LARGE');
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/3/auctioninfo',
      headers: { ...bearer(p.token), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    // No route takes text (issue 26): 415, saying to send JSON, in the envelope.
    assert.equal(text.statusCode, 415);
    const [refusal] = envelopeOf(text).meta.errors;
    assert.equal(refusal?.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(refusal?.message ?? '', /Content-Type: application\/json/);
  });

  it('wraps an unexpected failure as a 500 that says nothing of its cause', async () => {
    const p = await setupPartner(t);
    const face = t.services.auctions;
    const original = face.cancelAuction;
    face.cancelAuction = async () => {
      throw new Error('relation "secret_table" does not exist at /srv/app.ts:12');
    };
    try {
      const response = await cancelUnit(t, p, [{ unitId: 'U-1' }]);
      assert.equal(response.statusCode, 500);
      const body = envelopeOf(response);
      assert.equal(body.meta.errors[0]!.code, 'INTERNAL_ERROR');
      assert.doesNotMatch(response.body, /secret_table|app\.ts/);
    } finally {
      face.cancelAuction = original;
    }
  });

  it("refuses tokens that are not an auction partner's", async () => {
    const account = await provisionAccount(t);
    const gateway = await gatewayToken(t, account.facilities[0]!.id);
    for (const token of [account.token, gateway.token]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: bearer(token),
        payload: {},
      });
      assert.equal(response.statusCode, 403);
      assert.equal(envelopeOf(response).meta.errors[0]!.code, 'INSUFFICIENT_SCOPE');
    }
  });

  it("answers 404 for a guid that is not the partner's (or does not exist) and 403 for a wrong clientType", async () => {
    const p = await setupPartner(t);
    const stranger = await setupPartner(t);
    const foreign = await createList(t, p, [], { guid: stranger.guid });
    assert.equal(foreign.statusCode, 404);
    assert.equal(envelopeOf(foreign).meta.errors[0]!.code, 'FACILITY_NOT_FOUND');
    const unknown = await createList(t, p, [], { guid: 'NO-SUCH-GUID' });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(
      envelopeOf(unknown).meta.errors,
      envelopeOf(foreign).meta.errors.map((e) => ({ ...e, message: e.message.replace(stranger.guid, 'NO-SUCH-GUID') })),
    );
    const wrongType = await createList(t, p, [], { clientType: 'SomeoneElse' });
    assert.equal(wrongType.statusCode, 403);
    assert.equal(envelopeOf(wrongType).meta.errors[0]!.code, 'CLIENT_TYPE_MISMATCH');
    const cancelForeign = await cancelUnit(t, p, [{ unitId: 'U-1' }], { guid: stranger.guid });
    assert.equal(cancelForeign.statusCode, 404);
  });
});

describe('POST /api/3/auctioninfo: the full list', () => {
  it('names the fields an INCOMPLETE auction lacks, in its outcome and in its view (issue 16)', async () => {
    const p = await setupPartner(t);
    const list = [
      record('U-1'),
      record('U-2', { description: '  ', imageUrls: [] }),
      record('U-3', { startsAt: null, endsAt: null }),
      record('U-4', { auctionType: 'Charity', imageUrls: [] }),
      record('U-5', { auctionType: 'Charity' }),
    ];
    for (const dryRun of [true, false]) {
      const answer = await createList(t, p, list, { dryRun });
      assert.equal(answer.statusCode, 200, answer.body);
      const r = byUnit(envelopeOf(answer).data.results);
      assert.equal('missingFields' in r.get('U-1'), false, 'created: nothing missing');
      assert.deepEqual([r.get('U-2').reason, r.get('U-2').missingFields], ['INCOMPLETE', ['description', 'imageUrls']]);
      assert.deepEqual([r.get('U-3').reason, r.get('U-3').missingFields], ['INCOMPLETE', ['startsAt', 'endsAt']]);
      // Held for two reasons: the first is the reason, and the missing fields are still named.
      assert.deepEqual([r.get('U-4').reason, r.get('U-4').missingFields], ['CHARITY_NOT_ENROLLED', ['imageUrls']]);
      assert.equal('missingFields' in r.get('U-5'), false, 'pending for charity alone: nothing missing');
      if (dryRun) continue;
      const view = await readAuction(t, p, r.get('U-2').auctionId);
      assert.deepEqual(
        [view.status, view.pendingReasons, view.missingFields],
        ['Pending', ['INCOMPLETE'], ['description', 'imageUrls']],
      );
      assert.equal('missingFields' in (await readAuction(t, p, r.get('U-1').auctionId)), false);
      const listed = await listAuctions(t, p, { guid: p.guid });
      const views = byUnit(envelopeOf(listed).data.auctions);
      assert.deepEqual(views.get('U-4').missingFields, ['imageUrls']);
      assert.equal('missingFields' in views.get('U-5'), false);
    }
  });

  it('creates Active and Pending auctions, leaves open ones alone, withdraws absent units', async () => {
    const p = await setupPartner(t);
    const first = await createList(t, p, [
      record('U-1'),
      record('U-2'),
      record('U-3', { auctionType: 'Charity' }),
      record('U-4', { description: null, imageUrls: [] }),
      record('U-5', { auctionType: 'Non-Lien' }),
    ]);
    assert.equal(first.statusCode, 200, first.body);
    const body = envelopeOf(first);
    assert.deepEqual(body.data.summary, { created: 3, pending: 2, unchanged: 0, deferred: 0, removed: 0 });
    const r = byUnit(body.data.results);
    assert.deepEqual([r.get('U-1').outcome, r.get('U-1').status], ['created', 'Active']);
    assert.deepEqual(
      [r.get('U-3').outcome, r.get('U-3').status, r.get('U-3').reason],
      ['pending', 'Pending', 'CHARITY_NOT_ENROLLED'],
    );
    assert.deepEqual([r.get('U-4').outcome, r.get('U-4').reason], ['pending', 'INCOMPLETE']);
    assert.equal(body.data.guid, p.guid);
    assert.equal(body.data.dryRun, false);

    // The same list, minus U-2 and with U-5 changed: U-2 withdrawn, U-5 left alone with a warning.
    const second = await createList(t, p, [
      record('U-1'),
      record('U-3', { auctionType: 'Charity' }),
      record('U-4', { description: null, imageUrls: [] }),
      record('U-5', { auctionType: 'Non-Lien', minimumBid: 99 }),
    ]);
    const body2 = envelopeOf(second);
    assert.equal(second.statusCode, 200);
    assert.deepEqual(body2.data.summary, { created: 0, pending: 0, unchanged: 4, deferred: 0, removed: 1 });
    const r2 = byUnit(body2.data.results);
    assert.equal(r2.get('U-1').auctionId, r.get('U-1').auctionId);
    assert.deepEqual(
      [r2.get('U-2').outcome, r2.get('U-2').status, r2.get('U-2').reason],
      ['removed', 'Cancelled', 'REMOVED_FROM_LIST'],
    );
    assert.equal(body2.meta.ack, true);
    assert.equal(body2.meta.hasWarnings, true);
    assert.deepEqual(
      body2.meta.warnings.map((w) => [w.code, w.path]),
      [['ACTIVE_AUCTION_IMMUTABLE', 'auctionableUnitInfo[3]']],
    );
    const u5 = await readAuction(t, p, r.get('U-5').auctionId);
    assert.equal(u5.record.minimumBid, 25, 'an open auction is immutable');
    const u2 = await readAuction(t, p, r.get('U-2').auctionId);
    assert.equal(u2.status, 'Cancelled');
    assert.deepEqual(
      u2.history.map((h: any) => [h.from, h.to, h.reason]),
      [
        [null, 'Active', 'CREATED'],
        ['Active', 'Cancelled', 'REMOVED_FROM_LIST'],
      ],
    );
    assert.match(u2.history[1].actor, /^partner:/);

    // An empty list withdraws everything still open.
    const empty = envelopeOf(await createList(t, p, []));
    assert.deepEqual(empty.data.summary, { created: 0, pending: 0, unchanged: 0, deferred: 0, removed: 4 });
    const metrics = await ok(typedClient(t, await adminToken(t)).GET('/metrics', { parseAs: 'text' }));
    assert.match(metrics, /gatehouse_auction_import_units_total\{outcome="created"\} \d+/);
    assert.match(metrics, /gatehouse_auction_import_units_total\{outcome="removed"\} \d+/);
  });

  it('treats the same instants in other offsets as unchanged content', async () => {
    const p = await setupPartner(t);
    await createList(t, p, [
      record('U-1', { startsAt: '2030-12-01T09:00:00-07:00', endsAt: '2030-12-08T09:00:00-07:00' }),
    ]);
    const again = envelopeOf(
      await createList(t, p, [record('U-1', { startsAt: '2030-12-01T16:00:00Z', endsAt: '2030-12-08T16:00:00.000Z' })]),
    );
    assert.equal(again.meta.hasWarnings, false);
    assert.equal(again.data.summary.unchanged, 1);
  });

  it('defers a unit cancelled less than the re-create wait ago, with retryAfter', async () => {
    const p = await setupPartner(t);
    await createList(t, p, [record('U-1'), record('U-2')]);
    const cancelled = envelopeOf(await cancelUnit(t, p, [{ unitId: 'U-1', reason: 'Tenant paid' }]));
    const again = envelopeOf(await createList(t, p, [record('U-1'), record('U-2')]));
    const r = byUnit(again.data.results);
    assert.equal(r.get('U-1').outcome, 'deferred');
    assert.equal(r.get('U-1').status, 'Cancelled');
    assert.equal(r.get('U-1').auctionId, cancelled.data.auctionId);
    assert.equal(r.get('U-1').retryAfter, cancelled.data.recreateAfter);
    assert.equal(
      new Date(r.get('U-1').retryAfter).getTime() - new Date(cancelled.data.cancelledAt).getTime(),
      15 * 60_000,
    );
    assert.equal(r.get('U-2').outcome, 'unchanged');
  });

  it('?dryRun=true answers the outcomes and applies nothing', async () => {
    const p = await setupPartner(t);
    await createList(t, p, [record('U-1'), record('U-2')]);
    const dry = await createList(t, p, [record('U-2'), record('U-3'), record('U-4', { auctionType: 'Charity' })], {
      dryRun: true,
    });
    const body = envelopeOf(dry);
    assert.equal(body.data.dryRun, true);
    assert.deepEqual(body.data.summary, { created: 1, pending: 1, unchanged: 1, deferred: 0, removed: 1 });
    const r = byUnit(body.data.results);
    assert.equal(r.get('U-3').auctionId, null);
    assert.equal(r.get('U-1').outcome, 'removed');
    const real = envelopeOf(await createList(t, p, [record('U-1'), record('U-2')]));
    assert.deepEqual(
      real.data.summary,
      { created: 0, pending: 0, unchanged: 2, deferred: 0, removed: 0 },
      'the dry run changed something',
    );
    const list = await listAuctions(t, p, { guid: p.guid });
    assert.equal(envelopeOf(list).data.auctions.length, 2);
  });

  it('Idempotency-Key: the same key and body answer the first response; another body, 422', async () => {
    const p = await setupPartner(t);
    const key = { idempotencyKey: 'sync-2026-12-01T09:00' };
    const first = await createList(t, p, [record('U-1')], key);
    // The state changes in between: a replay must still be the first answer, byte for byte.
    await createList(t, p, [record('U-1'), record('U-2')]);
    const replay = await createList(t, p, [record('U-1')], key);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.body, first.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const different = await createList(t, p, [record('U-1'), record('U-9')], key);
    assert.equal(different.statusCode, 422);
    assert.equal(envelopeOf(different).meta.errors[0]!.code, 'IDEMPOTENCY_KEY_REUSED');
    // Keys are per partner: another partner may use the same key.
    const other = await setupPartner(t);
    assert.equal((await createList(t, other, [record('U-1')], key)).statusCode, 200);
    const badKey = await createList(t, p, [], { idempotencyKey: 'has spaces' });
    assert.equal(badKey.statusCode, 400);
    assert.equal(envelopeOf(badKey).meta.errors[0]!.path, 'Idempotency-Key');
  });

  it('answers a 5,000-unit list with a result per unit', async () => {
    const p = await setupPartner(t);
    const response = await createList(t, p, units(5000));
    assert.equal(response.statusCode, 200);
    const body = envelopeOf(response);
    assert.equal(body.data.results.length, 5000);
    assert.equal(body.data.summary.created, 5000);
    assert.equal(new Set(body.data.results.map((r: any) => r.auctionId)).size, 5000);
  });
});

describe('bad input: refused whole, every fault listed by path', () => {
  async function refused(p: Partner, records: unknown[], options: Parameters<typeof createList>[3] = {}) {
    const response = await createList(t, p, records, options);
    assert.equal(response.statusCode, 400, response.body);
    return envelopeOf(response).meta.errors;
  }

  it('keeps its strict reading: none of the access-control face’s leniencies (issue 26) reaches it', async () => {
    const p = await setupPartner(t);
    // `""` for a number is a bad number here, not "absent" or null.
    const errors = await refused(p, [record('S-1', { minimumBid: '', unitWidth: '' })]);
    const paths = errors.map((e) => e.path).sort();
    assert.deepEqual(paths, ['auctionableUnitInfo[0].minimumBid', 'auctionableUnitInfo[0].unitWidth']);
    // A body that says nothing is no list: refused in the envelope, as any body that is not an object.
    for (const payload of ['""', 'null']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/3/auctioninfo',
        headers: { ...bearer(p.token), 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 400, `${payload}: ${response.body}`);
      assert.ok(envelopeOf(response).meta.hasErrors);
    }
    assert.equal(
      envelopeOf(await listAuctions(t, p, { guid: p.guid })).data.auctions.length,
      0,
      'nothing was imported',
    );
  });

  it('lists every fault of every record, and applies nothing', async () => {
    const p = await setupPartner(t);
    const errors = await refused(p, [
      record('U-1'),
      record('U-2', { endsAt: '2020-01-01T00:00:00Z', startsAt: '2019-12-01T00:00:00Z' }),
      record('U-3', { minimumBid: -1 }),
      record('U-4', {
        endsAt: new Date(Date.now() + 86_400_000).toISOString(),
        startsAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
      }),
      record('U-5', { minimumBid: 10.005, categories: ['Boxes', 'Hats'] }),
      record('U-6', { imageUrls: Array.from({ length: 26 }, (_, i) => `https://pms.example/${i}.jpg`) }),
      record('U-7', {
        imageUrls: [
          'file:///etc/passwd',
          'ftp://pms.example/a.jpg',
          'http://127.0.0.1/',
          'http://169.254.169.254/',
          'http://[::ffff:7f00:1]/',
          'http://2130706433/',
        ],
      }),
      record('U-1'),
      { unitName: 'no id' },
      record('U-10', {
        auctionType: 'Auction',
        unitWidth: 0,
        unitLength: '15',
        startsAt: 'tomorrow',
        description: 'x'.repeat(4001),
        tenantName: 42,
      }),
    ]);
    const paths = errors.map((e) => `${e.path} ${e.code}`);
    for (const expected of [
      'auctionableUnitInfo[2].minimumBid OUT_OF_RANGE',
      'auctionableUnitInfo[3].endsAt ENDS_BEFORE_START',
      'auctionableUnitInfo[4].minimumBid INVALID_VALUE',
      'auctionableUnitInfo[4].categories[1] UNKNOWN_CATEGORY',
      'auctionableUnitInfo[5].imageUrls TOO_MANY',
      'auctionableUnitInfo[6].imageUrls[0] SCHEME_NOT_ALLOWED',
      'auctionableUnitInfo[6].imageUrls[1] SCHEME_NOT_ALLOWED',
      'auctionableUnitInfo[6].imageUrls[2] ADDRESS_NOT_ALLOWED',
      'auctionableUnitInfo[6].imageUrls[3] ADDRESS_NOT_ALLOWED',
      'auctionableUnitInfo[6].imageUrls[4] ADDRESS_NOT_ALLOWED',
      'auctionableUnitInfo[6].imageUrls[5] ADDRESS_NOT_ALLOWED',
      'auctionableUnitInfo[7].unitId DUPLICATE_UNIT',
      'auctionableUnitInfo[8].unitId REQUIRED',
      'auctionableUnitInfo[9].auctionType INVALID_VALUE',
      'auctionableUnitInfo[9].unitWidth OUT_OF_RANGE',
      'auctionableUnitInfo[9].unitLength INVALID_TYPE',
      'auctionableUnitInfo[9].startsAt INVALID_VALUE',
      'auctionableUnitInfo[9].description TOO_LONG',
      'auctionableUnitInfo[9].tenantName INVALID_TYPE',
    ]) {
      assert.ok(paths.includes(expected), `missing "${expected}" in:\n${paths.join('\n')}`);
    }
    assert.equal(paths.length, 19);
    for (const e of errors) assert.match(e.message, /\.$/);
    const list = await listAuctions(t, p, { guid: p.guid });
    assert.equal(envelopeOf(list).data.auctions.length, 0, 'something was applied');
  });

  it('an auction that would start already ended, unless it is the record of an auction that closed', async () => {
    const p = await setupPartner(t);
    const ended = await refused(p, [
      record('U-1'),
      record('U-2', { startsAt: '2020-01-01T00:00:00Z', endsAt: '2020-01-08T00:00:00Z' }),
    ]);
    assert.deepEqual(
      ended.map((e) => `${e.path} ${e.code}`),
      ['auctionableUnitInfo[1].endsAt IN_THE_PAST'],
    );
    // A sold unit listed again with the same record is left alone (it is not put up twice) ...
    const id = byUnit(envelopeOf(await createList(t, p, [record('U-1')])).data.results).get('U-1').auctionId;
    await ok(
      typedClient(t, await adminToken(t)).POST('/admin/auctions/{auctionId}/outcome', {
        params: { path: { auctionId: id } },
        body: { salePrice: 10 },
      }),
    );
    const again = byUnit(envelopeOf(await createList(t, p, [record('U-1')])).data.results).get('U-1');
    assert.deepEqual([again.outcome, again.auctionId, again.status], ['unchanged', id, 'ClosedSold']);
    // ... and a new record for it starts a new auction.
    const relisted = byUnit(envelopeOf(await createList(t, p, [record('U-1', { minimumBid: 5 })])).data.results).get(
      'U-1',
    );
    assert.equal(relisted.outcome, 'created');
    assert.notEqual(relisted.auctionId, id);
  });

  it('a guid of 21 characters, a missing clientType, a list that is not an array', async () => {
    const p = await setupPartner(t);
    const errors = await refused(p, [], { guid: 'G'.repeat(21), clientType: '' });
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]),
      [
        ['guid', 'TOO_LONG'],
        ['clientType', 'TOO_SHORT'],
      ],
    );
    const notArray = await t.app.inject({
      method: 'POST',
      url: '/api/3/auctioninfo',
      headers: bearer(p.token),
      payload: { guid: p.guid, clientType: p.clientType, auctionableUnitInfo: { unitId: 'U-1' } },
    });
    assert.equal(notArray.statusCode, 400);
    assert.deepEqual(
      envelopeOf(notArray).meta.errors.map((e) => e.path),
      ['auctionableUnitInfo'],
    );
    const notObject = await t.app.inject({
      method: 'POST',
      url: '/api/3/auctioninfo',
      headers: { ...bearer(p.token), 'content-type': 'application/json' },
      payload: '[1,2]',
    });
    assert.equal(notObject.statusCode, 400);
  });

  it('5,001 records', async () => {
    const p = await setupPartner(t);
    const errors = await refused(p, units(5001));
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]),
      [['auctionableUnitInfo', 'TOO_MANY']],
    );
  });

  it("two facilities' units mixed: refused; one call carries one facility", async () => {
    const p = await setupPartner(t);
    const errors = await refused(p, [
      { ...record('A-1'), guid: p.guid },
      { ...record('B-1'), guid: p.otherGuid },
    ]);
    assert.deepEqual(
      errors.map((e) => `${e.path} ${e.code}`),
      ['auctionableUnitInfo[1].guid OTHER_FACILITY'],
    );
    const other = await listAuctions(t, p, { guid: p.otherGuid });
    assert.equal(envelopeOf(other).data.auctions.length, 0, 'a record reached another facility');
    const guids = await t.app.inject({
      method: 'POST',
      url: '/api/3/auctioninfo',
      headers: bearer(p.token),
      payload: { guid: [p.guid, p.otherGuid], clientType: p.clientType, auctionableUnitInfo: [] },
    });
    assert.equal(guids.statusCode, 400);
    assert.equal(envelopeOf(guids).meta.errors[0]!.path, 'guid');
    // The other facility's list is sent in its own call.
    assert.equal((await createList(t, p, [record('B-1')], { guid: p.otherGuid })).statusCode, 200);
  });
});

describe('PUT /api/3/cancelauctions', () => {
  it('cancels at once (ACK), then warns ALREADY_CANCELLED on the second try', async () => {
    const p = await setupPartner(t);
    const created = byUnit(envelopeOf(await createList(t, p, [record('U-1'), record('U-2')])).data.results);
    const ack = await cancelUnit(t, p, [{ unitId: 'U-1', reason: 'Tenant paid' }]);
    assert.equal(ack.statusCode, 200);
    const body = envelopeOf(ack);
    assert.equal(body.data.auctionId, created.get('U-1').auctionId);
    assert.equal(body.data.status, 'Cancelled');
    assert.equal(new Date(body.data.recreateAfter).getTime() - new Date(body.data.cancelledAt).getTime(), 15 * 60_000);
    const auction = await readAuction(t, p, body.data.auctionId);
    assert.equal(auction.status, 'Cancelled');
    assert.deepEqual(auction.history.at(-1), {
      ...auction.history.at(-1),
      from: 'Active',
      to: 'Cancelled',
      reason: 'CANCEL_REQUESTED',
      note: 'Tenant paid',
    });

    const twice = await cancelUnit(t, p, [{ unitId: 'U-1' }]);
    assert.equal(twice.statusCode, 409);
    const warned = envelopeOf(twice);
    assert.equal(warned.meta.hasErrors, false);
    assert.deepEqual(
      warned.meta.warnings.map((w) => w.code),
      ['ALREADY_CANCELLED'],
    );
    assert.equal(warned.data.auctionId, body.data.auctionId);
  });

  it('refuses zero or two records, a unit without an auction, and a unit of another facility', async () => {
    const p = await setupPartner(t);
    await createList(t, p, [record('U-1')]);
    await createList(t, p, [record('OTHER-1')], { guid: p.otherGuid });

    const none = await cancelUnit(t, p, []);
    assert.equal(none.statusCode, 400);
    assert.deepEqual(
      envelopeOf(none).meta.errors.map((e) => [e.path, e.code]),
      [['cancelAuctionIds', 'NO_UNIT']],
    );

    const two = await cancelUnit(t, p, [{ unitId: 'U-1' }, { unitId: 'U-2' }]);
    assert.equal(two.statusCode, 400);
    assert.deepEqual(envelopeOf(two).meta.errors, [
      {
        code: 'ONE_UNIT_PER_REQUEST',
        message: 'Only one unit cancellation per request is currently supported.',
        path: 'cancelAuctionIds',
      },
    ]);

    const unknown = await cancelUnit(t, p, [{ unitId: 'U-404' }]);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(
      envelopeOf(unknown).meta.errors.map((e) => e.code),
      ['UNIT_NOT_FOUND'],
    );

    const otherFacility = await cancelUnit(t, p, [{ unitId: 'OTHER-1' }]);
    assert.equal(otherFacility.statusCode, 404, 'a unit of another facility was found');
    assert.deepEqual(
      envelopeOf(otherFacility).meta.errors.map((e) => e.code),
      ['UNIT_NOT_FOUND'],
    );

    const badFields = await cancelUnit(t, p, [{ reason: 7 }]);
    assert.equal(badFields.statusCode, 400);
    assert.deepEqual(
      envelopeOf(badFields).meta.errors.map((e) => e.path),
      ['cancelAuctionIds[0].unitId', 'cancelAuctionIds[0].reason'],
    );
    // Nothing was cancelled by the refusals.
    const list = await listAuctions(t, p, { guid: p.guid, status: 'Active' });
    assert.equal(envelopeOf(list).data.auctions.length, 1);
  });

  it('warns ALREADY_CLOSED for a sold auction', async () => {
    const p = await setupPartner(t);
    const id = envelopeOf(await createList(t, p, [record('U-1')])).data.results[0].auctionId;
    await ok(
      typedClient(t, await adminToken(t)).POST('/admin/auctions/{auctionId}/outcome', {
        params: { path: { auctionId: id } },
        body: { salePrice: 310 },
      }),
      200,
    );
    const response = await cancelUnit(t, p, [{ unitId: 'U-1' }]);
    assert.equal(response.statusCode, 409);
    const body = envelopeOf(response);
    assert.deepEqual(
      [body.meta.hasErrors, body.meta.warnings[0]!.code, body.data.status],
      [false, 'ALREADY_CLOSED', 'ClosedSold'],
    );
  });
});

describe('reads', () => {
  it("lists by guid, status and unitId, pages with a cursor, and hides other partners' auctions", async () => {
    const p = await setupPartner(t);
    await createList(t, p, units(7));
    await createList(t, p, [record('O-1')], { guid: p.otherGuid });
    await cancelUnit(t, p, [{ unitId: 'U-00003' }]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await listAuctions(t, p, { guid: p.guid, limit: 3, ...(cursor ? { cursor } : {}) });
      const body = envelopeOf(response);
      assert.ok(body.data.auctions.length <= 3);
      seen.push(...body.data.auctions.map((a: any) => a.unitId));
      cursor = body.data.nextCursor;
    } while (cursor);
    assert.equal(seen.length, 7);
    assert.equal(new Set(seen).size, 7);
    const all = envelopeOf(await listAuctions(t, p, { limit: 100 }));
    assert.equal(all.data.auctions.length, 8);
    const cancelled = envelopeOf(await listAuctions(t, p, { status: 'Cancelled' }));
    assert.deepEqual(
      cancelled.data.auctions.map((a: any) => a.unitId),
      ['U-00003'],
    );
    const one = envelopeOf(await listAuctions(t, p, { unitId: 'O-1' }));
    assert.equal(one.data.auctions[0].guid, p.otherGuid);

    const stranger = await setupPartner(t);
    const hidden = await auctionAnswer(t, stranger.token, one.data.auctions[0].auctionId);
    assert.equal(hidden.statusCode, 404);
    assert.equal(envelopeOf(hidden).meta.errors[0]!.code, 'AUCTION_NOT_FOUND');
    const strangerList = envelopeOf(await listAuctions(t, stranger));
    assert.equal(strangerList.data.auctions.length, 0);
    const badQuery = await t.app.inject({
      method: 'GET',
      url: '/api/3/auctions?status=Sold&limit=0&cursor=nope',
      headers: bearer(p.token),
    });
    assert.equal(badQuery.statusCode, 400);
    assert.deepEqual(
      envelopeOf(badQuery)
        .meta.errors.map((e) => e.path)
        .sort(),
      ['limit', 'status'],
    );
    // In plain words, each with its allowed values or range (issue 16).
    assert.deepEqual(
      envelopeOf(badQuery).meta.errors.map((e) => e.message),
      [
        'status must be Pending, Active, Cancelled, ClosedSold or ClosedUnsold.',
        'limit must be a whole number from 1 to 500.',
      ],
    );
    assert.equal((await listAuctions(t, p, { cursor: 'nope' })).statusCode, 400);
  });

  it('reads one auction with its record, images and history', async () => {
    const p = await setupPartner(t);
    const id = envelopeOf(
      await createList(t, p, [
        record('U-1', { imageUrls: ['https://pms.example/a.jpg', 'https://pms.example/b.jpg'] }),
      ]),
    ).data.results[0].auctionId;
    const auction = await readAuction(t, p, id);
    assert.equal(auction.auctionId, id);
    assert.equal(auction.guid, p.guid);
    assert.equal(auction.status, 'Active');
    assert.equal(auction.record.description, 'Sofa, boxes, two bikes');
    assert.deepEqual(
      auction.images.map((i: any) => [i.position, i.sourceUrl, i.status, i.url]),
      [
        [0, 'https://pms.example/a.jpg', 'pending', null],
        [1, 'https://pms.example/b.jpg', 'pending', null],
      ],
    );
    assert.equal(auction.history.length, 1);
    assert.equal((await auctionAnswer(t, p.token, 'not-a-uuid')).statusCode, 404);
  });

  it('a partner whose token lacks auctions:read cannot list', async () => {
    const account = await provisionAccount(t);
    const partner = await partnerToken(t, 'ReadOnly', [account.facilities[0]!.guid!]);
    // Partner tokens carry both scopes; an account token carries neither.
    assert.equal((await listAuctions(t, partner)).statusCode, 200);
    assert.equal((await listAuctions(t, account)).statusCode, 403);
  });
});
