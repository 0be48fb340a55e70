// Schema helpers shared by every face's TypeBox schemas.
import { Type, type TSchema } from '@fastify/type-provider-typebox';

/** The schema, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A string from a fixed list, documented as an OpenAPI enum (TypeBox's union of literals reads badly there). */
export const StringEnum = <T extends string>(
  values: readonly T[],
  options: { description?: string; default?: T } = {},
) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
