// Response serializers (fast-json-stringify, fastify's own), each compiled at its route's first
// answer instead of at start-up: compiling every route's response schemas took ~0.25 s of every
// start, for routes most processes serve a few of. The compiler is the one fastify uses by default
// (package.json asks for the version fastify's own range resolves to, so npm installs one copy),
// imported here so that the build bundles it: loaded from node_modules at start-up, it and its own
// Ajv took ~85 ms of the start.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

export function lazySerializers(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => {
        serialize ??= compile({ ...route, schema: withoutNames(route.schema) });
        return serialize(data);
      };
    };
  };
}

/**
 * A copy of a response schema without the `$id`s of its named schemas: an `$id` is a name in the
 * OpenAPI document (http/docs.ts), not a base URI, and fast-json-stringify refuses a schema that
 * uses one named schema twice ("resolves to more than one schema"), as validation.ts's Ajv would.
 */
function withoutNames(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNames);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === '$id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutNames(value)]),
  );
}
