// Table types of the access-control face, composed into Tables in src/db/tables.ts.
export interface AccessControlTables {}
