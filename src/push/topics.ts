// The topics a subscription may name: a column's values (tables.ts) and the rules' subject (rules.ts).
export const TOPICS = [
  'gateway.events',
  'command.status',
  'facility.status',
  'facility.drift',
  'auction.status',
] as const;
export type Topic = (typeof TOPICS)[number];
