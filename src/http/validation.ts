// Request validation that names every bad field. Fastify validates params, body, query and
// headers in turn and stops at the first part that fails; here each part's validator records its
// faults instead, and one preHandler hook raises them all together.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { App as FastifyInstance } from './app-type.ts';
import { validationFailed, type FieldError } from '../errors.ts';

const common = { allErrors: true, useDefaults: true, removeAdditional: true, strict: false } as const;
// Query strings, path and header values arrive as text: coerce them ("10" → 10, "a" → ["a"]).
const textAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array' }));
// Bodies are JSON: a string where a number belongs is a fault, not a number.
const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false }));

const pendingFaults = new WeakMap<object, FieldError[]>();

/** `/auctionableUnitInfo/3/endsAt` → `auctionableUnitInfo[3].endsAt` */
export function pointerToPath(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

export function faultsFromAjv(errors: ErrorObject[], root = ''): FieldError[] {
  const byPath = new Map<string, FieldError>();
  for (const error of errors) {
    let path: string;
    let message: string;
    if (error.keyword === 'required') {
      path = pointerToPath(error.instancePath, (error.params as { missingProperty: string }).missingProperty);
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path = pointerToPath(error.instancePath, (error.params as { additionalProperty: string }).additionalProperty);
      message = 'is not a known field';
    } else {
      path = pointerToPath(error.instancePath);
      message = error.keyword === 'anyOf' || error.keyword === 'oneOf' ? 'does not match any allowed form' : (error.message ?? 'is invalid');
    }
    path = path || root;
    const existing = byPath.get(path);
    // One message per field; a union's summary replaces the messages of its branches.
    if (!existing || error.keyword === 'anyOf' || error.keyword === 'oneOf') byPath.set(path, { path, message });
  }
  return [...byPath.values()];
}

const compile = (ajv: Ajv, schema: object): ValidateFunction => ajv.compile(schema);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const validate = compile(httpPart === 'body' ? bodyAjv : textAjv, schema);
  return (data: unknown) => {
    if (validate(data)) return { value: data };
    const faults = faultsFromAjv(validate.errors ?? [], httpPart ?? 'body');
    if (data !== null && typeof data === 'object') {
      pendingFaults.set(data, [...(pendingFaults.get(data) ?? []), ...faults]);
      return { value: data };
    }
    // Not an object at all (a JSON string or number where an object belongs): refuse now.
    return { error: validationFailed(faults) as unknown as Error };
  };
};

/** Paths of strings holding a NUL character, which PostgreSQL cannot store in text. */
export function nulCharacterPaths(value: unknown, path = '', found: string[] = []): string[] {
  if (found.length >= 20) return found;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(path || 'body');
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulCharacterPaths(item, `${path}[${i}]`, found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) nulCharacterPaths(item, path ? `${path}.${key}` : key, found);
  }
  return found;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The handler checks the body's text itself, item by item (event ingest judges each event on
     * its own, SPEC.md §5): a NUL in one item must not refuse the whole body here.
     */
    bodyTextCheckedByHandler?: boolean;
  }
}

/** Raises, in one 400, the faults that the validators of every request part recorded. */
export function registerValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler);
  app.addHook('preHandler', async (request) => {
    const faults: FieldError[] = [];
    const skipBodyText = request.routeOptions.config.bodyTextCheckedByHandler === true;
    for (const part of [request.params, request.query, request.body]) {
      if (part !== null && typeof part === 'object') {
        const found = pendingFaults.get(part);
        if (found) faults.push(...found);
      }
      if (skipBodyText && part === request.body) continue;
      for (const path of nulCharacterPaths(part)) faults.push({ path, message: 'must not contain a NUL character' });
    }
    if (faults.length > 0) throw validationFailed(faults);
  });
}
