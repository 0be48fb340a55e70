// JSON of event pages, written straight from the rows: one pass, native string escaping, and the
// `data` column spliced in as the JSON text the database holds. Pages of up to 10,000 items are
// the hot path of the read routes; toGatewayEvent (query.ts) is the readable definition of an
// item, and the tests hold the two equal.
import { eventTypeInfo } from './catalogue.ts';
import type { EventRow } from './query.ts';
import { formatLocal, formatUtc } from './time.ts';

const text = (value: string | null | undefined): string => (value == null ? 'null' : JSON.stringify(value));

// Per event type: the `"eventType":18,"eventTypeName":"…","eventCategory":"…"` fragment.
const typeFragments = new Map<number, string>();
function typeFragment(eventType: number): string {
  let fragment = typeFragments.get(eventType);
  if (fragment === undefined) {
    const info = eventTypeInfo(eventType);
    fragment = `"eventType":${eventType},"eventTypeName":${text(info?.name ?? `Event type ${eventType}`)},"eventCategory":${text(info?.category ?? 'System')}`;
    typeFragments.set(eventType, fragment);
  }
  return fragment;
}

/** One GatewayEvent as JSON text. */
export function eventJson(row: EventRow): string {
  return (
    `{"id":"${row.id}","accountId":${row.account_id},"facilityId":${row.facility_id},"facilityName":${text(row.facility_name)},` +
    `${typeFragment(row.event_type)},"occurredAt":"${formatUtc(row.occurred_ms)}","occurredAtLocal":"${formatLocal(row.occurred_ms, row.time_zone)}",` +
    `"receivedAt":"${formatUtc(row.received_ms)}","deviceId":${text(row.device_id)},"deviceName":${text(row.device_name)},` +
    `"unitId":${row.unit_id ?? 'null'},"unitNumber":${text(row.unit_number)},"visitorId":${row.visitor_id ?? 'null'},"visitorName":${text(row.visitor_name)},` +
    `"codeEntered":${text(row.code_entered)},"details":${text(row.details)},"data":${row.data ?? 'null'}}`
  );
}

/** A JSON array of events. */
export function eventsJson(rows: readonly EventRow[]): string {
  let json = '[';
  for (let i = 0; i < rows.length; i++) json += (i === 0 ? '' : ',') + eventJson(rows[i]!);
  return `${json}]`;
}

/** `{"metadata": …, "items": […]}`: the metadata serialized as it is, the items as above. */
export function pageJson(metadata: Record<string, unknown>, rows: readonly EventRow[]): string {
  return `{"metadata":${JSON.stringify(metadata)},"items":${eventsJson(rows)}}`;
}
