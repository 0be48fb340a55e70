// API versions of the access-event face: api-version header or query, the 1.0 and 2.0 routes with
// their deprecation headers, 400 for unknown versions, and one OpenAPI document per version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { gatewayToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { event, getJson, storeEvents } from './helpers.ts';

let t: TestApp;
let acme: ProvisionedAccount;
const DAY = 86_400_000;
const times: number[] = [];

before(async () => {
  t = await startTestApp();
  acme = await provisionAccount(t, { facilities: 2 });
  const gateway = (await gatewayToken(t, acme.facilities[0]!.id)).token;
  const batch = Array.from({ length: 5 }, (_, i) => {
    times.push(Math.floor((Date.now() - (5 - i) * DAY) / 1000) * 1000);
    return event({ eventType: i % 2 ? 15 : 18, occurredAt: new Date(times[i]!).toISOString() });
  });
  assert.equal((await storeEvents(t, gateway, batch)).accepted, 5);
});
after(() => t.close());

const read = (url: string, headers: Record<string, string> = {}) => getJson(t, acme.token, url, headers);
const accountUrl = () => `/gatewayevents/accounts/${acme.accountId}`;

function assertDeprecated(headers: Record<string, unknown>) {
  assert.equal(headers['api-supported-versions'], '1.0, 2.0, 3.0');
  assert.equal(headers['api-deprecated-versions'], '1.0, 2.0');
  assert.match(String(headers.deprecation), /^@\d+$/);
  assert.match(String(headers.link), /rel="deprecation"/);
}

describe('version 3.0', () => {
  it('is the default, and can be named in the header or the query', async () => {
    for (const [url, headers] of [
      [accountUrl(), {}],
      [accountUrl(), { 'api-version': '3.0' }],
      [`${accountUrl()}?api-version=3.0`, {}],
      [`${accountUrl()}?api-version=3`, {}],
    ] as const) {
      const response = await read(url, headers);
      assert.equal(response.status, 200, url);
      assert.equal(response.body.metadata.totalResults, 5);
      assert.equal(response.headers['api-supported-versions'], '1.0, 2.0, 3.0');
      assert.equal(response.headers.deprecation, undefined);
    }
  });

  it('answers 400 for an unknown version, two different versions, or a route the version lacks', async () => {
    const cases: [string, Record<string, string>][] = [
      [accountUrl(), { 'api-version': '4.0' }],
      [`${accountUrl()}?api-version=banana`, {}],
      [`${accountUrl()}?api-version=${encodeURIComponent("3.0' or 1=1")}`, {}],
      [`${accountUrl()}?api-version=3.0`, { 'api-version': '1.0' }],
      [accountUrl(), { 'api-version': '2.0' }],
      [`${accountUrl()}/export`, { 'api-version': '1.0' }],
      [`/events/facilities/${acme.facilities[0]!.id}`, { 'api-version': '3.0' }],
      ['/gatewayevents/types', { 'api-version': '0.9' }],
    ];
    for (const [url, headers] of cases) {
      const response = await read(url, headers);
      assert.equal(response.status, 400, `${url} ${JSON.stringify(headers)}`);
      assert.equal(response.body.code, 'UNSUPPORTED_API_VERSION');
      assert.equal(response.body.errors[0].path, 'api-version');
      assert.equal(response.headers['api-supported-versions'], '1.0, 2.0, 3.0');
    }
  });
});

describe('version 1.0', () => {
  it('answers the v3 paths with plain arrays paged by limit and offset', async () => {
    const all = await read(accountUrl(), { 'api-version': '1.0' });
    assert.equal(all.status, 200);
    assert.ok(Array.isArray(all.body));
    assert.equal(all.body.length, 5);
    assertDeprecated(all.headers);
    const page = await read(`${accountUrl()}?api-version=1.0&limit=2&offset=1&sort=asc`);
    assert.deepEqual(
      page.body.map((i: any) => Date.parse(i.occurredAt)),
      times.slice(1, 3),
    );
    const facility = await read(`/gatewayevents/facilities/${acme.facilities[0]!.id}?eventTypes=15`, {
      'api-version': '1',
    });
    assert.equal(facility.body.length, 2);
    assert.ok(facility.body.every((i: any) => i.eventType === 15));
    const types = await read('/gatewayevents/types', { 'api-version': '1.0' });
    assert.equal(types.body.length, 30);
    assertDeprecated(types.headers);
  });

  it('keeps the limits and the authorization of 3.0', async () => {
    assert.equal((await read(`${accountUrl()}?limit=10001`, { 'api-version': '1.0' })).status, 400);
    assert.equal((await read(`${accountUrl()}?limit=0`, { 'api-version': '1.0' })).status, 400);
    assert.equal((await read(`${accountUrl()}?offset=-1`, { 'api-version': '1.0' })).status, 400);
    const rival = await provisionAccount(t, { facilities: 1 });
    assert.equal((await read(`/gatewayevents/accounts/${rival.accountId}`, { 'api-version': '1.0' })).status, 404);
    assert.equal(
      (await read(`/gatewayevents/facilities/${rival.facilities[0]!.id}`, { 'api-version': '1.0' })).status,
      404,
    );
  });
});

describe('version 2.0', () => {
  it('pages a facility by Unix seconds, limit and offset, with 204 for an empty page', async () => {
    const url = `/events/facilities/${acme.facilities[0]!.id}`;
    const all = await read(url);
    assert.equal(all.status, 200);
    assertDeprecated(all.headers);
    assert.deepEqual(all.body.metadata, { limit: 100, offset: 0, totalResults: 5, totalPages: 1, pageNumber: 1 });
    assert.deepEqual(
      all.body.items.map((i: any) => Date.parse(i.occurredAt)),
      [...times].reverse(),
    );
    const window = await read(`${url}?minDate=${times[1]! / 1000}&maxDate=${times[3]! / 1000}&api-version=2.0`);
    assert.deepEqual(
      window.body.items.map((i: any) => Date.parse(i.occurredAt)),
      [times[2], times[1]],
    );
    const second = await read(`${url}?limit=2&offset=2`);
    assert.deepEqual(second.body.metadata, { limit: 2, offset: 2, totalResults: 5, totalPages: 3, pageNumber: 2 });
    const empty = await read(`${url}?offset=5`);
    assert.equal(empty.status, 204);
    assert.equal(empty.text, '');
    assertDeprecated(empty.headers);
    assert.equal((await read(`/events/facilities/${acme.facilities[1]!.id}`)).status, 204);
    assert.equal((await read(`${url}?minDate=yesterday`)).status, 400);
    assert.equal((await read(`${url}?minDate=100&maxDate=50`)).status, 400);
    // Every bad parameter in one 400: the schema's (limit) and the filter's (eventTypes, maxDate).
    const faults = await read(`${url}?minDate=100&maxDate=50&eventTypes=2&limit=0`);
    assert.deepEqual(Object.fromEntries(faults.body.errors.map((e: any) => [e.path, e.message])), {
      limit: 'must be a whole number from 1 to 10000',
      eventTypes: '"2" is not an event type (see GET /gatewayevents/types)',
      maxDate: 'must be after minDate',
    });
    const types = await read('/events/types');
    assert.equal(types.body.length, 30);
  });
});

describe('OpenAPI documents', () => {
  it('documents each version in its own document', async () => {
    const doc = async (version: string) =>
      (await t.app.inject({ method: 'GET', url: `/swagger/v${version}.json` })).json();
    const v3 = await doc('3.0');
    const v2 = await doc('2.0');
    const v1 = await doc('1.0');
    for (const path of [
      '/gatewayevents/accounts/{accountId}',
      '/gatewayevents/facilities/{facilityId}',
      '/gatewayevents/accounts/{accountId}/export',
      '/gatewayevents/facilities/{facilityId}/export',
      '/gatewayevents/types',
      '/gateway/v1/events',
    ]) {
      assert.ok(v3.paths[path], `v3.0 documents ${path}`);
    }
    assert.ok(v2.paths['/events/facilities/{facilityId}'].get.deprecated);
    assert.ok(v2.paths['/events/types']);
    assert.ok(v1.paths['/gatewayevents/accounts/{accountId}'].get.deprecated);
    assert.equal(v1.paths['/gatewayevents/accounts/{accountId}/export'], undefined);
    assert.equal(v3.paths['/events/facilities/{facilityId}'], undefined);
    const description: string = v3.paths['/gatewayevents/accounts/{accountId}'].get.description;
    assert.match(description, /10000/);
    assert.match(v3.paths['/gateway/v1/events'].post.description, /1000 events/);
  });
});
