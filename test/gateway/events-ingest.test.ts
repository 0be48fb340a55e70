// POST /gateway/v1/events through the real app: events judged one by one, idempotent retries,
// masked codes, clock-ahead handling, names resolved, and every bad input of issue 4.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ok, typedClient } from '../helpers/client.ts';
import { bearer, gatewayToken, provisionAccount, tenantFixture } from '../helpers/tenants.ts';
import { event, getJson, postEvents, storeEvents } from '../events/helpers.ts';

const site = tenantFixture({ facilities: 2, timeZone: 'America/Denver', controllers: true });
const { t } = site;
const gateway = () => site.controllers[0]!;

async function storedRows(where: string, values: unknown[] = []) {
  return (await t.services.database.pool.query(`select * from gateway_events where ${where} order by seq`, values))
    .rows;
}

describe('POST /gateway/v1/events', () => {
  it('stores a batch once, with the facility attached, and answers after commit', async () => {
    const batch = [
      event({ eventType: 18 }),
      event({ eventType: 10, details: 'Door 3 alarm' }),
      event({ eventType: 12 }),
    ];
    const first = await postEvents(t, gateway(), batch);
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { accepted: 3, duplicates: 0, rejected: [], warnings: [] });
    const rows = await storedRows('gwc_event_id = any($1)', [batch.map((e) => e.eventId)]);
    assert.equal(rows.length, 3);
    for (const row of rows) {
      assert.equal(row.facility_id, site.facilityId);
      assert.equal(row.account_id, site.account.accountId);
      assert.equal(row.facility_name, 'Facility 1');
      assert.equal(row.time_zone, 'America/Denver');
    }
    // Sequence in batch order.
    assert.deepEqual(
      rows.map((r) => r.gwc_event_id),
      batch.map((e) => e.eventId),
    );

    // A retried batch is stored once; the answer counts duplicates.
    const retry = await postEvents(t, gateway(), [...batch, event()]);
    assert.deepEqual(retry.body, { accepted: 1, duplicates: 3, rejected: [], warnings: [] });
    assert.equal((await storedRows('gwc_event_id = any($1)', [batch.map((e) => e.eventId)])).length, 3);
  });

  it('counts a duplicate eventId inside one batch once', async () => {
    const one = event();
    const response = await postEvents(t, gateway(), [one, { ...one, details: 'again' }, event()]);
    assert.deepEqual(response.body, { accepted: 2, duplicates: 1, rejected: [], warnings: [] });
    const rows = await storedRows('gwc_event_id = $1', [one.eventId]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].details, 'Access granted', 'the first occurrence is kept');
  });

  it('the same eventId at two facilities is two events', async () => {
    const other = (await gatewayToken(t, site.account.facilities[1]!.id)).token;
    const shared = event();
    assert.equal((await storeEvents(t, gateway(), [shared])).accepted, 1);
    assert.equal((await storeEvents(t, other, [shared])).accepted, 1);
    assert.equal((await storedRows('gwc_event_id = $1', [shared.eventId])).length, 2);
  });

  it('rejects an unknown event type in a batch of valid ones, and only it', async () => {
    const batch = [event(), event({ eventType: 2 }), event(), event({ eventType: '18' })];
    const response = await postEvents(t, gateway(), batch);
    assert.equal(response.status, 200);
    assert.equal(response.body.accepted, 2);
    assert.deepEqual(
      response.body.rejected.map((r: any) => [r.index, r.eventId, r.path]),
      [
        [1, batch[1]!.eventId, 'events[1].eventType'],
        [3, batch[3]!.eventId, 'events[3].eventType'],
      ],
    );
    assert.match(response.body.rejected[0].reason, /not an event type/);
    assert.equal((await storedRows('gwc_event_id = any($1)', [batch.map((e) => e.eventId)])).length, 2);
  });

  it('stores an event from a clock an hour ahead at the time received, with the reported time and a warning', async () => {
    const reported = new Date(Date.now() + 3600_000).toISOString().replace('Z', '+00:00');
    const ahead = event({ occurredAt: reported, data: { door: 3 } });
    const near = event({ occurredAt: new Date(Date.now() + 60_000).toISOString() }, 0);
    const before = Date.now();
    const response = await postEvents(t, gateway(), [ahead, near]);
    assert.equal(response.body.accepted, 2);
    assert.equal(response.body.warnings.length, 1);
    assert.deepEqual(
      [
        response.body.warnings[0].index,
        response.body.warnings[0].eventId,
        response.body.warnings[0].path,
        response.body.warnings[0].code,
      ],
      [0, ahead.eventId, 'events[0].occurredAt', 'CLOCK_AHEAD'],
    );
    const [row] = await storedRows('gwc_event_id = $1', [ahead.eventId]);
    assert.ok(
      row.occurred_at.getTime() >= before - 1000 && row.occurred_at.getTime() <= Date.now(),
      'stored at the time received',
    );
    assert.deepEqual(row.data, { door: 3, reportedOccurredAt: reported });
    // Within the 5-minute tolerance the reported time stands.
    const [nearRow] = await storedRows('gwc_event_id = $1', [near.eventId]);
    assert.equal(nearRow.occurred_at.toISOString(), near.occurredAt);
  });

  it('rejects malformed events one by one and stores the rest', async () => {
    const tooOld = new Date(Date.now() - (t.config.eventRetentionDays + 1) * 86_400_000).toISOString();
    const cases: [Record<string, unknown> | unknown, string][] = [
      [{ ...event(), eventId: undefined }, 'eventId'],
      [{ ...event(), eventId: '' }, 'eventId'],
      [{ ...event(), eventId: 'x'.repeat(101) }, 'eventId'],
      [{ ...event(), occurredAt: 'yesterday' }, 'occurredAt'],
      [{ ...event(), occurredAt: '2026-02-30T10:00:00Z' }, 'occurredAt'],
      [{ ...event(), occurredAt: '2026-03-01T10:00:00' }, 'occurredAt'],
      [{ ...event(), occurredAt: 1767225600 }, 'occurredAt'],
      [{ ...event(), occurredAt: tooOld }, 'occurredAt'],
      [{ ...event(), eventType: undefined }, 'eventType'],
      [{ ...event(), eventType: 18.5 }, 'eventType'],
      [{ ...event(), details: 'x'.repeat(1024 * 1024) }, 'details'],
      [{ ...event(), deviceName: 'x'.repeat(201) }, 'deviceName'],
      [{ ...event(), deviceName: 'Gate\u0000' }, 'deviceName'],
      [{ ...event(), details: 'lone \ud800 surrogate' }, 'details'],
      [{ ...event(), data: [1, 2] }, 'data'],
      [{ ...event(), data: { note: 'nul \u0000 inside' } }, 'data'],
      [{ ...event(), data: { blob: 'x'.repeat(20_000) } }, 'data'],
      [{ ...event(), codeEntered: { digits: '1234' } }, 'codeEntered'],
      ['not an object', ''],
      [null, ''],
    ];
    const good = event();
    const response = await postEvents(t, gateway(), [...cases.map(([e]) => e), good]);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.accepted, 1, JSON.stringify(response.body.rejected));
    assert.equal(response.body.rejected.length, cases.length);
    cases.forEach(([, field], index) => {
      const rejection = response.body.rejected[index];
      assert.equal(rejection.index, index);
      assert.equal(rejection.path, field ? `events[${index}].${field}` : `events[${index}]`, JSON.stringify(rejection));
      assert.ok(rejection.reason.length > 0);
    });
    assert.equal(response.body.rejected[7].reason.includes('retention'), true);
    assert.equal((await storedRows('gwc_event_id = $1', [good.eventId])).length, 1);
  });

  it('stores the code entered masked, never in clear, and never logs it', async () => {
    const code = '7319042';
    const e = event({ eventType: 15, codeEntered: code });
    const short = event({ eventType: 15, codeEntered: 123 });
    assert.equal((await storeEvents(t, gateway(), [e, short])).accepted, 2);
    const [row] = await storedRows('gwc_event_id = $1', [e.eventId]);
    assert.equal(row.code_entered, '****42');
    const [shortRow] = await storedRows('gwc_event_id = $1', [short.eventId]);
    assert.equal(shortRow.code_entered, '****');
    const everything = JSON.stringify(await storedRows('true'));
    assert.equal(everything.includes(code), false);
    assert.equal(t.logs.text.includes(code), false);
  });

  it('keeps SQL fragments and formula text as plain data', async () => {
    const nasty = "x'); drop table gateway_events; --";
    const e = event({
      eventId: nasty,
      deviceId: "1' or '1'='1",
      deviceName: '=HYPERLINK("http://evil")',
      details: '+cmd|calc!A1',
      unitId: "'; delete from units; --",
    });
    assert.equal((await storeEvents(t, gateway(), [e])).accepted, 1);
    const [row] = await storedRows('gwc_event_id = $1', [nasty]);
    assert.equal(row.device_id, "1' or '1'='1");
    assert.equal(row.device_name, '=HYPERLINK("http://evil")');
    assert.equal(row.unit_number, null);
  });

  it('resolves unit numbers and visitor names at the facility, and acknowledges commands', async () => {
    // Units and visitors made the way a PMS makes them (the access-control face).
    const pms = typedClient(t, site.account.token);
    const unitAt = (facilityId: EntityId, unitNumber: string) =>
      ok(pms.POST('/facilities/{facilityId}/units', { params: { path: { facilityId } }, body: { unitNumber } }), 201);
    const visitorAt = (
      facilityId: EntityId,
      unitId: EntityId,
      accessCode: string,
      firstName: string,
      lastName: string,
    ) =>
      ok(
        pms.POST('/facilities/{facilityId}/visitors', {
          params: { path: { facilityId } },
          body: { unitId, accessCode, firstName, lastName, isTenant: true },
        }),
        201,
      );
    const unitId: EntityId = (await unitAt(site.facilityId, 'A101')).id;
    const visitorId: EntityId = (await visitorAt(site.facilityId, unitId, '2468', 'Jane', 'Doe')).visitor.id;
    const otherUnit = await unitAt(site.account.facilities[1]!.id, 'B202');
    const otherVisitor = await visitorAt(site.account.facilities[1]!.id, otherUnit.id, '1357', 'Ann', 'Lee');

    // The unit id as a string of digits (some controllers send ids as text), the visitor id as a number.
    const resolved = event({ unitId: String(unitId), visitorId });
    const foreign = event({ unitId: otherUnit.id, visitorId: otherVisitor.visitor.id });
    const unknown = event({ unitId: 999_999_999, visitorId: 'V-17' });
    // The same unit and visitor twice in one batch, and an event naming neither between them.
    const again = event({ unitId, visitorId });
    const plain = event();
    const posted = await postEvents(t, gateway(), [resolved, foreign, unknown, plain, again]);
    assert.equal(posted.body.accepted, 5);
    assert.deepEqual(
      posted.body.warnings.map((w: any) => [w.index, w.path, w.code]),
      [[2, 'events[2].visitorId', 'NOT_AN_ID']],
    );
    assert.deepEqual(
      (await storedRows('gwc_event_id = any($1)', [[again.eventId, plain.eventId]])).map((r: any) => [
        r.gwc_event_id,
        r.unit_number,
        r.visitor_name,
      ]),
      [
        [plain.eventId, null, null],
        [again.eventId, 'A101', 'Jane Doe'],
      ],
    );
    const [row] = await storedRows('gwc_event_id = $1', [resolved.eventId]);
    assert.equal(row.unit_id, unitId, 'the id is stored as the integer it names');
    assert.equal(row.visitor_id, visitorId);
    assert.equal(row.unit_number, 'A101');
    assert.equal(row.visitor_name, 'Jane Doe');
    const [foreignRow] = await storedRows('gwc_event_id = $1', [foreign.eventId]);
    assert.deepEqual(
      [foreignRow.unit_id, foreignRow.unit_number, foreignRow.visitor_name],
      [otherUnit.id, null, null],
      "another facility's unit and visitor do not resolve (the ids are kept as reported)",
    );
    const [unknownRow] = await storedRows('gwc_event_id = $1', [unknown.eventId]);
    assert.deepEqual(
      [unknownRow.unit_id, unknownRow.unit_number, unknownRow.visitor_id, unknownRow.visitor_name],
      [999_999_999, null, null, null],
      'an id that names no unit is kept without a number; a value that is no id is not an id',
    );
    assert.deepEqual(unknownRow.data, { reportedVisitorId: 'V-17' });

    // A Command Received event acknowledges the command it names (and only for its facility).
    const commands = await getJson(t, site.account.token, `/facilities/${site.facilityId}/commands`);
    assert.equal(commands.status, 200, commands.text);
    const list: any[] = Array.isArray(commands.body) ? commands.body : commands.body.items;
    const command = list.find((c) => c.status !== 'acknowledged');
    assert.ok(command, JSON.stringify(commands.body));
    const otherGateway = (await gatewayToken(t, site.account.facilities[1]!.id)).token;
    const foreignAck = event({ eventType: 3, data: { commandId: command.id } });
    assert.equal((await storeEvents(t, otherGateway, [foreignAck])).accepted, 1);
    const statusOf = async () =>
      (await t.services.database.pool.query('select acknowledged_at from commands where id = $1', [command.id])).rows[0]
        .acknowledged_at;
    assert.equal(await statusOf(), null, "another facility's controller cannot acknowledge it");
    const ack = event({ eventType: 3, data: { commandId: command.id } });
    assert.equal((await storeEvents(t, gateway(), [ack])).accepted, 1);
    assert.ok((await statusOf()) instanceof Date, 'acknowledged by the ingest transaction');
  });
});

describe('requests that are not a batch', () => {
  it('refuses more than 1,000 events whole', async () => {
    const batch = Array.from({ length: 1001 }, () => event());
    const response = await postEvents(t, gateway(), batch);
    assert.equal(response.status, 400);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(response.body.errors[0].path, 'events');
    assert.equal((await storedRows('gwc_event_id = any($1)', [batch.map((e) => e.eventId)])).length, 0);
  });

  it('accepts exactly 1,000', async () => {
    const response = await postEvents(
      t,
      gateway(),
      Array.from({ length: 1000 }, () => event()),
    );
    assert.equal(response.status, 200);
    assert.equal(response.body.accepted, 1000);
  });

  it('refuses a 20 MB body with 413', async () => {
    // Raw inject: the body is over the limit on purpose.
    const big = JSON.stringify({ events: [event({ details: 'x'.repeat(20 * 1024 * 1024) })] });
    const response = await t.app.inject({
      method: 'POST',
      url: '/gateway/v1/events',
      headers: { ...bearer(gateway()), 'content-type': 'application/json' },
      payload: big,
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().code, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses bytes that are not UTF-8, bodies that are not JSON, and bodies without events', async () => {
    const e = event();
    const json = Buffer.from(JSON.stringify({ events: [e] }));
    const at = json.indexOf(Buffer.from('Access granted'));
    const latin1 = Buffer.concat([json.subarray(0, at), Buffer.from([0xe9, 0xff]), json.subarray(at)]);
    for (const payload of [
      latin1,
      Buffer.from('{"events": [ '),
      Buffer.from('{"batch": []}'),
      Buffer.from('[]'),
      Buffer.from('{"events": {"0": 1}}'),
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/gateway/v1/events',
        headers: { ...bearer(gateway()), 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 400, payload.toString('latin1'));
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
    assert.equal((await storedRows('gwc_event_id = $1', [e.eventId])).length, 0);
    const xml = await t.app.inject({
      method: 'POST',
      url: '/gateway/v1/events',
      headers: { ...bearer(gateway()), 'content-type': 'application/xml' },
      payload: '<events/>',
    });
    assert.equal(xml.statusCode, 415);
  });

  it('says what a batch is when the body is not one: a single event, an array of events, a string', async () => {
    const shape =
      'must be {"events": [ … ]}, a batch of up to 1000 events, each {"eventId", "eventType", "occurredAt", …}';
    const single = event();
    for (const [payload, expected] of [
      [JSON.stringify([single]), [{ path: 'body', message: shape }]],
      [JSON.stringify('events'), [{ path: 'body', message: shape }]],
      [JSON.stringify(single), [{ path: 'events', message: `is required: body ${shape}` }]],
      [
        JSON.stringify({ events: single }),
        [
          {
            path: 'events',
            message: 'must be an array of up to 1000 events, each {"eventId", "eventType", "occurredAt", …}',
          },
        ],
      ],
      [
        JSON.stringify({ events: Array.from({ length: 1001 }, () => single) }),
        [{ path: 'events', message: 'must list at most 1000 items' }],
      ],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/gateway/v1/events',
        headers: { ...bearer(gateway()), 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 400, payload.slice(0, 80));
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.deepEqual(response.json().errors, expected, payload.slice(0, 80));
    }
    assert.equal((await storedRows('gwc_event_id = $1', [single.eventId])).length, 0);
  });

  it('answers 401 without a token and 403 for a token that is not a gateway', async () => {
    assert.equal((await typedClient(t).POST('/gateway/v1/events', { body: { events: [] } })).response.status, 401);
    const response = await postEvents(t, site.account.token, [event()]);
    assert.equal(response.status, 403);
  });

  it('an empty batch is a batch', async () => {
    assert.deepEqual(await storeEvents(t, gateway(), []), {
      accepted: 0,
      duplicates: 0,
      rejected: [],
      warnings: [],
    });
  });
});

describe('reading what was ingested', () => {
  it('a PMS reads the events back with the masked code and the local time', async () => {
    const kolkata = await provisionAccount(t, { facilities: 1, timeZone: 'Asia/Kolkata' });
    const token = (await gatewayToken(t, kolkata.facilities[0]!.id)).token;
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const e = event({ eventType: 15, codeEntered: '5544', occurredAt: `${day}T17:30:00.250Z` }, 0);
    await postEvents(t, token, [e]);
    const page = await getJson(
      t,
      kolkata.token,
      `/gatewayevents/facilities/${kolkata.facilities[0]!.id}?eventTypes=15&startDate=${day}`,
    );
    assert.equal(page.status, 200);
    const item = page.body.items.find((i: any) => i.occurredAt === `${day}T17:30:00.250Z`);
    assert.ok(item, JSON.stringify(page.body));
    assert.equal(item.occurredAtLocal, `${day}T23:00:00.250+05:30`);
    assert.equal(item.codeEntered, '****44');
    assert.equal(item.eventTypeName, 'Invalid Password');
    assert.equal(item.eventCategory, 'Access Denied');
  });
});
