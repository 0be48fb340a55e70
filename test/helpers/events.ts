// What the events tests seed and read alike: an account whose facilities report gateway events
// through their controllers, units and tenants for those events to name, a filter or a stored row
// as the events face reads them, and the app listening for live streams over real HTTP.
import assert from 'node:assert/strict';
import { type EventFilter, type EventRow, type EventScope, everyEventOf } from '../../src/events/query.ts';
import type { EntityId } from '../../src/ids.ts';
import { postEvents } from '../events/helpers.ts';
import { openStream, type SseStream } from '../events/sse-client.ts';
import { ok, typedClient } from './client.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './harness.ts';
import { gatewayToken, type ProvisionedAccount, provisionAccount } from './tenants.ts';

/** An account whose every facility has a gateway controller, posting batches of events. */
export interface ReportingAccount extends ProvisionedAccount {
  /** The controller token of each facility, in the order of `facilities`. */
  gateways: string[];
  /** The controller of facility `f` (an index into `facilities`) posts `events`: every one is stored. */
  ingest(f: number, events: unknown[]): Promise<void>;
}

/** An account (provisionAccount's options) with a controller credential for each of its facilities. */
export async function provisionReportingAccount(
  t: TestApp,
  options: Parameters<typeof provisionAccount>[1] = {},
): Promise<ReportingAccount> {
  const account = await provisionAccount(t, options);
  const gateways: string[] = [];
  for (const facility of account.facilities) gateways.push((await gatewayToken(t, facility.id)).token);
  return {
    ...account,
    gateways,
    async ingest(f, events) {
      const answer = await postEvents(t, gateways[f]!, events);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.accepted, events.length, JSON.stringify(answer.body));
    },
  };
}

/** A unit of the facility, made the way a PMS makes it (the access-control face): its id. */
export async function unitAt(t: TestApp, pmsToken: string, facilityId: EntityId, unitNumber: string) {
  const pms = typedClient(t, pmsToken);
  const unit = await ok(
    pms.POST('/facilities/{facilityId}/units', { params: { path: { facilityId } }, body: { unitNumber } }),
    201,
  );
  return unit.id;
}

/** A unit and the tenant who rents it, with the access code the tenant enters at the gate. */
export interface Tenancy {
  unitNumber: string;
  accessCode: string;
  firstName: string;
  lastName: string;
}

/**
 * Units of the facility, each rented by its tenant, made the way a PMS makes them: the unit's and
 * the visitor's ids, one pair per tenancy, in order.
 */
export async function rentedUnits<const T extends readonly Tenancy[]>(
  t: TestApp,
  pmsToken: string,
  facilityId: EntityId,
  tenancies: T,
): Promise<{ -readonly [K in keyof T]: { unitId: EntityId; visitorId: EntityId } }> {
  const pms = typedClient(t, pmsToken);
  const rented: { unitId: EntityId; visitorId: EntityId }[] = [];
  for (const { unitNumber, ...tenant } of tenancies) {
    const unitId = await unitAt(t, pmsToken, facilityId, unitNumber);
    const made = await ok(
      pms.POST('/facilities/{facilityId}/visitors', {
        params: { path: { facilityId } },
        body: { ...tenant, unitId, isTenant: true },
      }),
      201,
    );
    rented.push({ unitId, visitorId: made.visitor.id });
  }
  return rented as { -readonly [K in keyof T]: { unitId: EntityId; visitorId: EntityId } };
}

/** The filter that keeps every event of the scope (an account's id, or a scope), oldest first, narrowed by `fields`. */
export function eventFilter(scope: EntityId | EventScope, fields: Partial<EventFilter> = {}): EventFilter {
  return {
    ...everyEventOf(typeof scope === 'number' ? { kind: 'account', accountId: scope } : scope),
    ...fields,
  };
}

/**
 * A stored event as the reads select it: an access granted (type 18) at facility 1 of account 1,
 * at 2023-11-14T22:13:20Z, naming no device, unit or visitor, with no details; `fields` change it.
 */
export function eventRow(fields: Partial<EventRow> = {}): EventRow {
  return {
    seq: 1,
    id: 'e',
    account_id: 1,
    facility_id: 1,
    facility_name: 'F',
    time_zone: 'UTC',
    event_type: 18,
    occurred_ms: 1_700_000_000_000,
    received_ms: 1_700_000_000_000,
    device_id: null,
    device_name: null,
    unit_id: null,
    unit_number: null,
    visitor_id: null,
    visitor_name: null,
    code_entered: null,
    details: null,
    data: null,
    ...fields,
  };
}

/**
 * Cells a spreadsheet would read as a formula, by each character that starts one (OWASP's CSV
 * injection list: = + - @ tab and carriage return): what the CSV export must neutralise.
 */
export const FORMULA_CELLS = ['=SUM(A1:A9)', '+1+2', '-2+3', '@cmd', '\tTAB', '\rCR'] as const;

/** The facility's wall clock at `ms`, to the millisecond and without an offset: Intl's reading, not the service's. */
export function facilityWallClock(ms: number, timeZone: string): string {
  // Swedish writes a date and time as ISO 8601 does, with a space for the T.
  const local = new Date(ms).toLocaleString('sv-SE', { timeZone, hourCycle: 'h23' }).replace(' ', 'T');
  return `${local}.${String(ms % 1000).padStart(3, '0')}`;
}

/** Starts the app listening on a free local port (what a test reads over real HTTP): its base URL. */
export async function listenLocally(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}

/** The app listening on a local port, for live streams read over real HTTP. */
export interface StreamingApp extends TestApp {
  /** http://127.0.0.1:<port> */
  base: string;
  /** Opens a live stream at `url` (a full URL) with the token; close() closes it before the app. */
  openStream(url: string, token: string, headers?: Record<string, string>): Promise<SseStream>;
}

/** The real app on a fresh database (startTestApp's options), listening for live streams. */
export async function startStreamingApp(options: TestAppOptions = {}): Promise<StreamingApp> {
  const t = await startTestApp(options);
  const base = await listenLocally(t);
  const opened: SseStream[] = [];
  return {
    ...t,
    base,
    async openStream(url, token, headers = {}) {
      const stream = await openStream(url, token, headers);
      opened.push(stream);
      return stream;
    },
    async close() {
      for (const stream of opened) stream.close();
      await t.close();
    },
  };
}
