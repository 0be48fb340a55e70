// What the demo provisions and who its people are: the one definition that `gatehouse demo`, its PMS
// changes and their tests read.

/**
 * The demo's facilities. Their zones are three hours apart on every day of the year (both follow
 * the US daylight-saving rules), so facility-local times differ visibly in the console, the events
 * and the exports; a pair that shares an offset for part of the year (Denver and Phoenix in winter)
 * hides zone mistakes. test/demo/data.test.ts checks every hour of this year and the next.
 */
export const DEMO_FACILITIES = [
  { name: 'Demo East', timeZone: 'America/New_York', guid: 'DEMO-EAST', unitPrefix: 'A' },
  { name: 'Demo West', timeZone: 'America/Los_Angeles', guid: 'DEMO-WEST', unitPrefix: 'B' },
] as const;

export const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Ken',
  'Margaret',
  'Dennis',
  'Frances',
  'Linus',
] as const;
export const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Thompson',
  'Hamilton',
  'Ritchie',
  'Allen',
  'Torvalds',
] as const;
