// The event catalogue (SPEC.md §7, meanings from BRIEF.md §6): the one source of truth for
// ingest validation, GET /gatewayevents/types, the CSV's eventTypeName and the OpenAPI text.

export type EventCategory =
  | 'System'
  | 'Facility'
  | 'Alarm'
  | 'Device'
  | 'Access'
  | 'Access Denied'
  | 'Unit Door'
  | 'Local Administration';

export interface EventTypeInfo {
  eventType: number;
  name: string;
  description: string;
  category: EventCategory;
}

export const EVENT_TYPES: readonly EventTypeInfo[] = Object.freeze(
  [
    { eventType: 1, name: 'Generic Message', description: 'A message sent to the cloud.', category: 'System' },
    {
      eventType: 3,
      name: 'Command Received',
      description: 'Receipt of a command is acknowledged (data.commandId names the command).',
      category: 'System',
    },
    {
      eventType: 5,
      name: 'Health Status',
      description: 'Communication and counter statistics for devices.',
      category: 'Device',
    },
    {
      eventType: 8,
      name: 'Facility Opened',
      description: 'Start of the open-hours time group of the facility.',
      category: 'Facility',
    },
    {
      eventType: 9,
      name: 'Facility Closed',
      description: 'End of the open-hours time group of the facility.',
      category: 'Facility',
    },
    { eventType: 10, name: 'Door Alarm', description: 'A door alarm appeared or cleared.', category: 'Alarm' },
    {
      eventType: 11,
      name: 'Device Offline',
      description: 'A device missed a number of heartbeats to the controller.',
      category: 'Device',
    },
    {
      eventType: 12,
      name: 'Device Online',
      description: 'A device began communicating with the controller.',
      category: 'Device',
    },
    {
      eventType: 15,
      name: 'Invalid Password',
      description: 'Visitor denied at a keypad because of an invalid code.',
      category: 'Access Denied',
    },
    {
      eventType: 16,
      name: 'Invalid Access Area',
      description: 'Visitor denied at a keypad that is not in their access profile.',
      category: 'Access Denied',
    },
    {
      eventType: 17,
      name: 'Delinquent',
      description: 'Visitor denied at a keypad because of assignment to a delinquent unit.',
      category: 'Access Denied',
    },
    { eventType: 18, name: 'Access Granted', description: 'Visitor granted access by a keypad.', category: 'Access' },
    {
      eventType: 19,
      name: 'Invalid Access Time',
      description: 'Visitor denied because the current time is outside their time group.',
      category: 'Access Denied',
    },
    {
      eventType: 20,
      name: 'Text Me My Code',
      description: 'Visitor entered a mobile number at a keypad to retrieve their code.',
      category: 'Access',
    },
    {
      eventType: 24,
      name: 'Loitering Lockout',
      description: 'Visitor denied at a keypad because of loitering onsite.',
      category: 'Access Denied',
    },
    {
      eventType: 25,
      name: 'Mark Visitor Offsite',
      description: 'Visitor automatically marked offsite by the controller.',
      category: 'Access',
    },
    {
      eventType: 26,
      name: 'Tamper',
      description: 'A tamper alarm of a device appeared or cleared.',
      category: 'Alarm',
    },
    {
      eventType: 27,
      name: 'Gateway Temporary Code Added',
      description: 'Temporary code added through the local controller web interface.',
      category: 'Local Administration',
    },
    {
      eventType: 28,
      name: 'Gateway Visitor Status Changed',
      description: 'Visitor status changed through the local controller web interface.',
      category: 'Local Administration',
    },
    {
      eventType: 29,
      name: 'Action Group Log Message',
      description: 'A send-message action executed as part of an action group.',
      category: 'System',
    },
    {
      eventType: 30,
      name: 'Time or Time Zone Changed',
      description: 'Controller registered a time zone change, locally or from the cloud.',
      category: 'System',
    },
    {
      eventType: 31,
      name: 'Emergency Access',
      description: 'Emergency access enabled or disabled; when enabled, responsive relays are held open.',
      category: 'Facility',
    },
    {
      eventType: 32,
      name: 'Facility Access Lockdown',
      description: 'Lockdown enabled or disabled; when enabled, keypad activity is blocked.',
      category: 'Facility',
    },
    {
      eventType: 33,
      name: 'Unit Door Opened',
      description: 'Unit alarm board reports a unit door opened.',
      category: 'Unit Door',
    },
    {
      eventType: 34,
      name: 'Unit Door Closed',
      description: 'Unit alarm board reports a unit door closed.',
      category: 'Unit Door',
    },
    {
      eventType: 35,
      name: 'Unit Door Alarm',
      description: 'Unit alarm board reports a unit door alarm.',
      category: 'Unit Door',
    },
    {
      eventType: 36,
      name: 'Device Detected',
      description: 'A new or updated device is detected by the controller.',
      category: 'Device',
    },
    {
      eventType: 37,
      name: 'Device Component Status',
      description: 'A relay, input or door alarm changed state.',
      category: 'Device',
    },
    {
      eventType: 38,
      name: 'Device Pairing',
      description: 'Device pairing changed through the local controller web interface.',
      category: 'Device',
    },
    {
      eventType: 39,
      name: 'Profile Transition Status',
      description: 'Controller is moving from one environmental profile to another.',
      category: 'System',
    },
  ].map((entry) => Object.freeze(entry as EventTypeInfo)),
);

const BY_NUMBER = new Map(EVENT_TYPES.map((entry) => [entry.eventType, entry]));

export const COMMAND_RECEIVED = 3;
/** Types that arise from keypad input (BRIEF.md §6 note 1). */
export const KEYPAD_EVENT_TYPES: readonly number[] = [15, 16, 17, 18, 19, 24];

export function eventTypeInfo(eventType: number): EventTypeInfo | undefined {
  return BY_NUMBER.get(eventType);
}

export function isEventType(value: unknown): value is number {
  return typeof value === 'number' && BY_NUMBER.has(value);
}

/** "1 Generic Message, 3 Command Received, …": for OpenAPI descriptions. */
export const EVENT_TYPE_LIST = EVENT_TYPES.map((entry) => `${entry.eventType} ${entry.name}`).join(', ');
export const EVENT_TYPE_NUMBERS = EVENT_TYPES.map((entry) => entry.eventType);
