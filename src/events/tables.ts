// Table types of the events face, composed into Tables in src/db/tables.ts.
export interface EventsTables {}
