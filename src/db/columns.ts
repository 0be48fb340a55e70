// Column primitives shared by every face's table types (src/<face>/tables.ts).
import type { ColumnType } from 'kysely';

/** A timestamptz column: read as a Date, written as a Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz with a database default (now()): optional on insert. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** A timestamptz of an append-only table: written once, never updated. */
export type WrittenOnce<T> = ColumnType<T, T extends Date ? Date | string : T, never>;
/** jsonb: written as JSON text, read as the parsed value. */
export type Json<T> = ColumnType<T, string, string>;
