// Response serializers (fast-json-stringify, fastify's own), each compiled at its route's first
// answer instead of at start-up: compiling every route's response schemas took ~0.25 s of every
// start, for routes most processes serve a few of. The compiler is fastify's, loaded from
// fastify's own dependencies, so its serialization is exactly fastify's default.
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

export function lazySerializers(): SerializerFactory {
  const { SerializerSelector } = fromFastify('@fastify/fast-json-stringify-compiler') as {
    SerializerSelector: () => SerializerFactory;
  };
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => {
        serialize ??= compile(route);
        return serialize(data);
      };
    };
  };
}
