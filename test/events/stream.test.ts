// The live stream, over real HTTP: GET /gatewayevents/accounts/{accountId}/stream and
// /facilities/{facilityId}/stream — events as they are stored, in order, with ids; a reconnect with
// Last-Event-ID continues exactly after it (late events included); filters; heartbeats; access;
// a bad Last-Event-ID. (SIGTERM and two instances: test/e2e/stream.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVENTS_CHANNEL, storedPayload } from '../../src/events/signals.ts';
import { eventually } from '../helpers/e2e.ts';
import {
  provisionReportingAccount,
  type ReportingAccount,
  type StreamingApp,
  startStreamingApp,
} from '../helpers/events.ts';
import { onPostgres } from '../helpers/harness.ts';
import { provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { event, getJson, ingestWithoutSignal, postEvents } from './helpers.ts';

let t: StreamingApp;
let acme: ReportingAccount;
let rival: ProvisionedAccount;

before(async () => {
  t = await startStreamingApp();
  acme = await provisionReportingAccount(t, { facilities: 2, name: 'Acme Storage' });
  rival = await provisionAccount(t, { facilities: 1, name: 'Rival Storage' });
});
after(() => t.close());

const accountStream = (query = '') =>
  `${t.base}/gatewayevents/accounts/${acme.accountId}/stream${query ? `?${query}` : ''}`;
const facilityStream = (f: number, query = '') =>
  `${t.base}/gatewayevents/facilities/${acme.facilities[f]!.id}/stream${query ? `?${query}` : ''}`;
const stream = (url: string, headers: Record<string, string> = {}, token = acme.token) =>
  t.openStream(url, token, headers);

const ids = (events: { event: any }[]) => events.map((e) => e.event.details);

describe('the live stream', () => {
  it('receives the events stored after it opened, in order, each with its cursor as id', async () => {
    await acme.ingest(0, [event({ details: 'before' })]);
    const s = await stream(accountStream());
    assert.equal(s.status, 200);
    assert.match(String(s.headers['content-type']), /^text\/event-stream/);
    assert.equal(s.headers['cache-control'], 'no-store');
    await s.waitFor(() => s.comments().includes('stream open'), 5000, 'the opening comment');
    await acme.ingest(0, [event({ details: 'a1' }, 3), event({ details: 'a2' }, 2)]);
    await acme.ingest(1, [event({ details: 'a3' }, 1)]);
    const received = await s.waitForEvents(3);
    assert.deepEqual(ids(received), ['a1', 'a2', 'a3']);
    // Each event as the list route renders it, with a distinct id.
    const listed = await getJson(t, acme.token, `/gatewayevents/accounts/${acme.accountId}?pageSize=3`);
    assert.deepEqual(received.map((e) => e.event).reverse(), listed.body.items);
    assert.equal(new Set(received.map((e) => e.id)).size, 3);
    assert.ok(received.every((e) => /^[A-Za-z0-9_-]+$/.test(e.id)));
    // Nothing stored before the stream opened.
    assert.ok(!ids(s.events()).includes('before'));
    // Operators see it open.
    const gauge = await t.services.metrics.registry.getSingleMetricAsString('gatehouse_gateway_event_streams_open');
    assert.match(gauge, /^gatehouse_gateway_event_streams_open [1-9]\d*$/m);
  });

  it('continues exactly after Last-Event-ID: nothing missed or repeated, a late event included', async () => {
    const first = await stream(accountStream());
    await first.waitFor(() => first.comments().includes('stream open'));
    await acme.ingest(0, [event({ details: 'r1' }, 3), event({ details: 'r2' }, 2), event({ details: 'r3' }, 1)]);
    const seen = await first.waitForEvents(3);
    first.close();
    // Received r1 and r2 only, say; meanwhile more is stored, one of it occurred two days ago.
    const lastId = seen[1]!.id;
    await acme.ingest(1, [event({ details: 'r4' }, 0)]);
    await acme.ingest(0, [event({ details: 'r5-late' }, 2 * 24 * 60)]);
    const again = await stream(accountStream(), { 'last-event-id': lastId });
    assert.equal(again.status, 200);
    const rest = await again.waitForEvents(3);
    // r3 first (the rest of its phase); then what was stored meanwhile, in occurredAt order within
    // its phase: the late event before r4.
    assert.deepEqual(ids(rest), ['r3', 'r5-late', 'r4']);
    // And again after the last of them: nothing more, then what comes next.
    const third = await stream(accountStream(), { 'last-event-id': rest[2]!.id });
    await third.waitFor(() => third.comments().includes('stream open'));
    await acme.ingest(0, [event({ details: 'r6' })]);
    assert.deepEqual(ids(await third.waitForEvents(1)), ['r6']);
    // An id is a cursor of the list route with the same filters and sort=asc: the walk from it holds
    // the same events.
    const listed: string[] = [];
    for (let cursor: string | null = lastId; cursor; ) {
      const page = await getJson(
        t,
        acme.token,
        `/gatewayevents/accounts/${acme.accountId}?sort=asc&cursor=${encodeURIComponent(cursor)}`,
      );
      assert.equal(page.status, 200, JSON.stringify(page.body));
      listed.push(...page.body.items.map((e: any) => e.details));
      cursor = page.body.metadata.nextCursor;
    }
    assert.equal(listed[0], 'r3');
    assert.deepEqual([...listed].sort(), ['r3', 'r4', 'r5-late', 'r6']);
    // Nothing more after r6: the stream is in order, so what it sent after r6 came before the next
    // event stored, and the next event's arrival is the signal that there was nothing.
    await acme.ingest(0, [event({ details: 'r7' })]);
    await third.waitForEvents(2);
    assert.deepEqual(ids(third.events()), ['r6', 'r7']);
  });

  it('with startDate, starts with the retained events since then, then goes on live', async () => {
    const since = new Date(Date.now() - 90_000).toISOString();
    await acme.ingest(1, [event({ details: 's-old' }, 5), event({ details: 's-recent' }, 1)]);
    const s = await stream(facilityStream(1, `startDate=${since}`));
    const replayed = await s.waitForEvents(1);
    assert.ok(ids(replayed).includes('s-recent'));
    assert.ok(!ids(replayed).includes('s-old'));
    const before = s.events().length;
    await acme.ingest(1, [event({ details: 's-live' }, 0)]);
    const all = await s.waitForEvents(before + 1);
    assert.equal(all.at(-1)!.event.details, 's-live');
  });

  it('applies the filters: event types, facilities, units; the facility route its facility', async () => {
    const byType = await stream(accountStream('eventTypes=15'));
    const byFacility = await stream(accountStream(`facilityIds=${acme.facilities[1]!.id}`));
    const byUnit = await stream(accountStream('unitIds=424242'));
    const facility0 = await stream(facilityStream(0));
    for (const s of [byType, byFacility, byUnit, facility0])
      await s.waitFor(() => s.comments().includes('stream open'));
    await acme.ingest(0, [event({ details: 'f-type18' }), event({ details: 'f-type15', eventType: 15 })]);
    await acme.ingest(1, [event({ details: 'f-fac1' }), event({ details: 'f-unit', unitId: 424242 })]);
    assert.deepEqual(ids(await byType.waitForEvents(1)), ['f-type15']);
    assert.deepEqual(ids(await byFacility.waitForEvents(2)), ['f-fac1', 'f-unit']);
    assert.deepEqual(ids(await byUnit.waitForEvents(1)), ['f-unit']);
    assert.deepEqual(ids(await facility0.waitForEvents(2)), ['f-type18', 'f-type15']);
    // Nothing more: one last event that those three streams keep arrives next, after nothing else
    // (a stream sends in order, so this is the signal that nothing came before it).
    await acme.ingest(0, [event({ details: 'f-last', eventType: 15, unitId: 424242 })]);
    assert.deepEqual(ids(await byType.waitForEvents(2)), ['f-type15', 'f-last']);
    assert.deepEqual(ids(await byUnit.waitForEvents(2)), ['f-unit', 'f-last']);
    assert.deepEqual(ids(await facility0.waitForEvents(3)), ['f-type18', 'f-type15', 'f-last']);
  });

  it('sends a comment line when nothing else is written (the interval shortened here)', async () => {
    const { settings } = t.services.events.streams;
    const saved = settings.heartbeatMs;
    settings.heartbeatMs = 150;
    try {
      const s = await stream(facilityStream(0));
      await s.waitFor(() => s.comments().filter((c) => c === 'keep-alive').length >= 3, 5000, 'three heartbeats');
      assert.equal(s.events().length, 0);
    } finally {
      settings.heartbeatMs = saved;
    }
  });

  it('polls without a signal, in case a notification was lost', async () => {
    const { settings } = t.services.events.streams;
    const saved = settings.pollMs;
    settings.pollMs = 100;
    try {
      const s = await stream(facilityStream(0, 'eventTypes=10'));
      await s.waitFor(() => s.comments().includes('stream open'));
      // Stored without a word to the signal (as if its notification were lost).
      const now = Date.now();
      const answer = await ingestWithoutSignal(t, { accountId: acme.accountId, facilityId: acme.facilities[0]!.id }, [
        { eventId: `silent-${now}`, eventType: 10, occurredAt: new Date(now - 1000).toISOString(), details: 'silent' },
      ]);
      assert.equal(answer.accepted, 1);
      assert.deepEqual(ids(await s.waitForEvents(1, 3000)), ['silent']);
    } finally {
      settings.pollMs = saved;
    }
  });
});

describe('refusals before the stream starts', () => {
  it("answers 404 for another account's facility or account", async () => {
    for (const url of [
      `${t.base}/gatewayevents/facilities/${rival.facilities[0]!.id}/stream`,
      `${t.base}/gatewayevents/accounts/${rival.accountId}/stream`,
    ]) {
      const s = await stream(url);
      assert.equal(s.status, 404, url);
      assert.match(String(s.headers['content-type']), /application\/problem\+json/);
    }
  });

  it('answers 403 to a token without accessevent:read, 401 without a token', async () => {
    const narrow = await provisionAccount(t, { facilities: 1, scopes: ['accesscontrol:read'] });
    const s = await stream(`${t.base}/gatewayevents/accounts/${narrow.accountId}/stream`, {}, narrow.token);
    assert.equal(s.status, 403);
    const anonymous = await stream(accountStream(), {}, '');
    assert.equal(anonymous.status, 401);
  });

  it('answers 400 naming Last-Event-ID for a garbled, forged or foreign one', async () => {
    const listCursor = (await getJson(t, acme.token, `/gatewayevents/accounts/${acme.accountId}?pageSize=1`)).body
      .metadata.nextCursor as string;
    const live = await stream(facilityStream(0));
    await live.waitFor(() => live.comments().includes('stream open'));
    await acme.ingest(0, [event({ details: 'x' })]);
    const id = (await live.waitForEvents(1))[0]!.id;
    const forged = `${id.slice(0, -4)}${id.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const [what, value, url] of [
      ['garbled', 'not a cursor!', accountStream()],
      ['forged', forged, facilityStream(0)],
      ['a sort=desc list cursor', listCursor, accountStream()],
      ['another filter', id, facilityStream(0, 'eventTypes=18')],
      ['another facility', id, facilityStream(1)],
    ] as const) {
      const s = await stream(url, { 'last-event-id': value });
      assert.equal(s.status, 400, what);
      assert.match(String(s.headers['content-type']), /application\/problem\+json/, what);
      const problem = JSON.parse(s.body);
      assert.equal(problem.code, 'INVALID_LAST_EVENT_ID', what);
      assert.deepEqual(
        problem.errors.map((e: any) => e.path),
        ['Last-Event-ID'],
        what,
      );
    }
  });

  it('opens alike with Content-Type: application/json and an empty body (as every GET route)', async () => {
    const s = await stream(facilityStream(0), { 'content-type': 'application/json' });
    assert.equal(s.status, 200);
    await s.waitFor(() => s.comments().includes('stream open'));
  });

  it('answers 400 for a bad filter, and ignores paging parameters', async () => {
    const bad = await stream(accountStream('eventTypes=999&startDate=yesterday'));
    assert.equal(bad.status, 400);
    assert.deepEqual(
      JSON.parse(bad.body)
        .errors.map((e: any) => e.path)
        .sort(),
      ['eventTypes', 'startDate'],
    );
    const paged = await stream(accountStream('pageSize=5&pageNumber=2&sort=desc'));
    assert.equal(paged.status, 200);
    await paged.waitFor(() => paged.comments().includes('stream open'));
  });
});

describe('the event-stored signal', () => {
  it('tells listeners in this process (accountId, facilityId) once per batch stored, and not for repeats', async () => {
    const heard: [number, number][] = [];
    const unsubscribe = t.services.events.signals.onStored((a, f) => heard.push([a, f]));
    try {
      const repeated = event({ details: 'sig' });
      await acme.ingest(1, [repeated, event()]);
      assert.deepEqual(heard, [[acme.accountId, acme.facilities[1]!.id]]);
      // A batch of repeats stores nothing: no signal.
      const again = await postEvents(t, acme.gateways[1]!, [repeated]);
      assert.equal(again.body.duplicates, 1);
      // On PostgreSQL the instance also hears its own NOTIFY: that echo is skipped. Notifications
      // arrive in the order their transactions committed, so once another instance's NOTIFY, sent
      // now, is heard, the echoes of the batches above have come before it.
      const mine: [number, number] = [acme.accountId, acme.facilities[1]!.id];
      if (onPostgres) {
        const other: [number, number] = [rival.accountId, rival.facilities[0]!.id];
        await t.services.database.pool.query('select pg_notify($1, $2)', [
          EVENTS_CHANNEL,
          storedPayload(...other, 'another-instance'),
        ]);
        await eventually("another instance's notification", async () => heard.length >= 2, 10_000);
        assert.deepEqual(heard, [mine, other]);
      } else assert.deepEqual(heard, [mine]);
    } finally {
      unsubscribe();
    }
    const before = heard.length;
    await acme.ingest(1, [event()]);
    assert.equal(heard.length, before, 'no signal after unsubscribing');
  });
});
