// Schema helpers shared by every face's TypeBox schemas.
import { Type, type TSchema } from '@fastify/type-provider-typebox';

/** The schema, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A string from a fixed list, documented as an OpenAPI enum (TypeBox's union of literals reads badly there). */
export const StringEnum = <T extends string>(
  values: readonly T[],
  options: { description?: string; default?: T } = {},
) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/**
 * An account, facility, unit, visitor, time group, access profile or action group id: a positive
 * integer (src/ids.ts). In a path or a query it is written in decimal digits.
 */
export const EntityId = (description: string) => Type.Integer({ minimum: 1, format: 'int64', description });

/**
 * Schema keyword: this string field, on a face that accepts lenient bodies (src/http/lenient.ts),
 * also accepts a non-negative JSON integer, read as its decimal digits (42 → "42"). Elsewhere it has
 * no effect. It is emitted in the OpenAPI document as it is, a vendor extension that says so.
 */
export const ACCEPTS_INTEGER = 'x-accepts-integer';

/**
 * Schema keyword: what a value of this schema is, in plain words, for the 400 that refuses one
 * (`true or false (in any letter case)`; a gateway batch's shape). A fault of the schema's type or
 * pattern says "must be <this>" instead of words derived from its keywords (src/http/validation.ts).
 * It is emitted in the OpenAPI document as it is, a vendor extension.
 */
export const EXPECTED = 'x-expected';

/** A string that a lenient face also accepts as a non-negative JSON integer (its decimal digits). */
export const StringAcceptingInteger = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.String({ ...options, [ACCEPTS_INTEGER]: true });

/**
 * A response schema with its answer's description in the OpenAPI document ("The visitor, as
 * stored."): the schema itself, named or not, is unchanged.
 */
export const Answer = <T extends TSchema>(description: string, schema: T): T =>
  ({ ...schema, 'x-response-description': description }) as T;
