// Request validation that names every bad field. Fastify validates params, body, query and
// headers in turn and stops at the first part that fails; here each part's validator records its
// faults instead, and one preHandler hook raises them all together.
// Hostile input is bounded here once, for every route: a body may nest MAX_BODY_DEPTH levels
// (checked without recursion right after parsing), and an integer without bounds of its own is
// held to the range JavaScript holds exactly.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { App as FastifyInstance } from './app-type.ts';
import { AppError, validationFailed, type FieldError } from '../errors.ts';

const common = { allErrors: true, useDefaults: true, removeAdditional: true, strict: false } as const;
// Query strings, path and header values arrive as text: coerce them ("10" → 10, "a" → ["a"]).
const textAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array' }));
// Bodies are JSON: a string where a number belongs is a fault, not a number.
const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false }));

const pendingFaults = new WeakMap<object, FieldError[]>();

/** `/auctionableUnitInfo/3/endsAt` → `auctionableUnitInfo[3].endsAt` */
export function pointerToPath(pointer: string, extra?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

export function faultsFromAjv(errors: ErrorObject[], root = ''): FieldError[] {
  const unions = judgeUnions(errors);
  const byPath = new Map<string, FieldError>();
  for (const error of errors) {
    if (unions.silenced.has(error)) continue;
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
      message =
        error.keyword === 'anyOf' || error.keyword === 'oneOf'
          ? (unions.messages.get(error) ?? 'does not match any allowed form')
          : error.keyword === 'enum'
            ? oneOf((error.params as { allowedValues: unknown[] }).allowedValues)
            : (error.message ?? 'is invalid');
    }
    path = path || root;
    const existing = byPath.get(path);
    // One message per field; a union's summary replaces the messages of its branches.
    if (!existing || error.keyword === 'anyOf' || error.keyword === 'oneOf') byPath.set(path, { path, message });
  }
  return [...byPath.values()];
}

/** An enum's fault in plain words: "must be desc or asc" (a long list is not spelled out). */
const oneOf = (values: unknown[]) =>
  values.length <= 10
    ? `must be ${values
        .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
        .join(', ')
        .replace(/, ([^,]*)$/, ' or $1')}`
    : `must be one of the ${values.length} allowed values`;

/**
 * What each failed union (anyOf, oneOf) says. A branch "does not fit" when its only fault is the
 * value's type. When no branch fits, the union says which types it takes ("12a" for an
 * `integer | null`: "must be integer or null"); when exactly one fits (-1 for a nullable integer
 * with a minimum of 0), that branch's own faults speak and the union and the other branches are
 * silent ("must be >= 0"); otherwise no form fits.
 */
function judgeUnions(errors: ErrorObject[]): { messages: Map<ErrorObject, string>; silenced: Set<ErrorObject> } {
  const messages = new Map<ErrorObject, string>();
  const silenced = new Set<ErrorObject>();
  for (const union of errors) {
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of errors) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const misfits: ErrorObject[] = [];
    let fitting = 0;
    for (const [first, ...more] of branches.values()) {
      if (more.length === 0 && first!.keyword === 'type' && first!.instancePath === union.instancePath)
        misfits.push(first!);
      else fitting++;
    }
    if (fitting === 0 && misfits.length > 0) {
      const types = misfits.flatMap((misfit) => [(misfit.params as { type: string | string[] }).type].flat());
      messages.set(union, `must be ${[...new Set(types)].join(' or ')}`);
    } else if (fitting === 1) {
      silenced.add(union);
      for (const misfit of misfits) silenced.add(misfit);
    }
  }
  return { messages, silenced };
}

/**
 * The range an integer without bounds of its own gets: the integers JavaScript holds exactly.
 * Query strings are coerced ("99999999999999999999" → 1e20, which is a JS "integer"), and such a
 * value would reach SQL, where a bigint refuses it with an error (a 500) or it has already lost
 * its precision. Every integer column a request reaches is a bigint (the int2 event type is
 * checked against the catalogue first), so the safe range fits them all.
 */
export const SAFE_INTEGER_RANGE = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

// Keywords whose value is a schema, or a list or map of schemas: where integers can hide.
const SUBSCHEMA = new Set([
  'items',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const isSchemaObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A copy of a request schema in which every integer without a bound of its own is held to
 * SAFE_INTEGER_RANGE, so that the 400 names the field, and no schema has an `$id`. The route's own schema (which also feeds
 * the OpenAPI document) is left as written.
 */
export function withSafeIntegers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withSafeIntegers);
  if (!isSchemaObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    // A named schema's $id is its name in the OpenAPI document (http/docs.ts), not a base URI: Ajv
    // would refuse a schema that uses one named schema twice.
    if (keyword === '$id') continue;
    if (SUBSCHEMA.has(keyword)) copy[keyword] = withSafeIntegers(value);
    else if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value)) copy[keyword] = value.map(withSafeIntegers);
    else if (SUBSCHEMA_MAPS.has(keyword) && isSchemaObject(value))
      copy[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withSafeIntegers(sub)]));
    else copy[keyword] = value;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer')) {
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = SAFE_INTEGER_RANGE.minimum;
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = SAFE_INTEGER_RANGE.maximum;
  }
  return copy;
}

// One bounded copy per schema object: routes share schemas (FacilityParams…), and Ajv's cache of
// compiled validators is keyed by the object it is given.
const boundedCopies = new WeakMap<object, object>();

function compile(ajv: Ajv, schema: object): ValidateFunction {
  let bounded = boundedCopies.get(schema);
  if (!bounded) {
    bounded = withSafeIntegers(schema) as object;
    boundedCopies.set(schema, bounded);
  }
  return ajv.compile(bounded);
}

/**
 * A path segment that is not of its parameter's form (an id that is not digits) names nothing:
 * the route answers it as it answers an id that does not exist — its own 404, the body a client
 * gets for any missing id — not a 400. The value becomes 0, which no entity has (ids start at 1)
 * and every id check and query treats as not found.
 */
const NAMES_NOTHING = 0;

/** Text an integer of a path may be written as: decimal digits, no sign, no leading zero. */
const PATH_INTEGER = /^(0|[1-9][0-9]*)$/;
/** Text an integer of a query may be written as: decimal digits, with a sign. */
const QUERY_INTEGER = /^-?[0-9]+$/;

/** The names of a params or querystring schema's integer properties. */
function integerProperties(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property?.type === 'integer')
    .map(([name]) => name);
}

/**
 * Ajv's coercion reads any text JavaScript reads as a number ("1e3", " 12", "0x10"); an integer
 * of a path or a query is only its digits. Anything else in a path names nothing; in a query it
 * becomes NaN, which the validator then names as "must be integer".
 */
function holdIntegerText(data: unknown, names: string[], httpPart: string | undefined): void {
  if (names.length === 0 || data === null || typeof data !== 'object') return;
  const values = data as Record<string, unknown>;
  const pattern = httpPart === 'params' ? PATH_INTEGER : QUERY_INTEGER;
  for (const name of names) {
    const value = values[name];
    if (typeof value === 'string' && !pattern.test(value))
      values[name] = httpPart === 'params' ? NAMES_NOTHING : Number.NaN;
  }
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  // Compiled at the first request that needs it, not at start-up: compiling every route's schemas
  // took ~0.3 s of every start (the test suite requests every route, so a bad schema still fails there).
  let compiled: ValidateFunction | undefined;
  const integers = httpPart === 'params' || httpPart === 'querystring' ? integerProperties(schema) : [];
  return (data: unknown) => {
    compiled ??= compile(httpPart === 'body' ? bodyAjv : textAjv, schema);
    const validate = compiled;
    holdIntegerText(data, integers, httpPart);
    if (validate(data)) return { value: data };
    if (httpPart === 'params' && data !== null && typeof data === 'object') {
      const params = data as Record<string, unknown>;
      for (const error of validate.errors ?? []) {
        const name = error.instancePath.split('/')[1];
        if (name !== undefined && name in params) params[name] = NAMES_NOTHING;
      }
      return { value: params };
    }
    const faults = faultsFromAjv(validate.errors ?? [], httpPart ?? 'body');
    if (data !== null && typeof data === 'object') {
      pendingFaults.set(data, [...(pendingFaults.get(data) ?? []), ...faults]);
      return { value: data };
    }
    // Not an object at all (a JSON string or number where an object belongs): refuse now.
    return { error: validationFailed(faults) as unknown as Error };
  };
};

// ---- walking a parsed body ----

/** A value inside a parsed body, with the way back to the root (its path is built only when needed). */
interface BodyPlace {
  value: unknown;
  /** Containers (objects and arrays) around the value: 0 for the body itself. */
  depth: number;
  parent: BodyPlace | null;
  key: string | number;
}

/**
 * Only what a body parser makes is entered: arrays, plain objects (JSON), and the form parser's
 * dictionaries (fast-querystring's, whose prototype has no prototype) — not a Buffer, not a stream.
 */
export function isPlainContainer(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/**
 * Visits every value of a parsed body, depth first, with a stack of its own rather than
 * recursion: a body nested however deep cannot exhaust the call stack here. `visit` returns
 * false to stop the walk.
 */
function walkBody(body: unknown, visit: (place: BodyPlace) => boolean): void {
  const pending: BodyPlace[] = [{ value: body, depth: 0, parent: null, key: '' }];
  for (let place = pending.pop(); place !== undefined; place = pending.pop()) {
    if (!visit(place)) return;
    if (!isPlainContainer(place.value)) continue;
    const depth = place.depth + 1;
    // Pushed in reverse, so that the walk meets items in document order.
    if (Array.isArray(place.value)) {
      for (let i = place.value.length - 1; i >= 0; i--)
        pending.push({ value: place.value[i], depth, parent: place, key: i });
    } else {
      const entries = Object.entries(place.value);
      for (let i = entries.length - 1; i >= 0; i--)
        pending.push({ value: entries[i]![1], depth, parent: place, key: entries[i]![0] });
    }
  }
}

/** `items[3].data.a`, as faultsFromAjv names fields; '' for the body itself. */
function pathOf(place: BodyPlace): string {
  const keys: (string | number)[] = [];
  for (let at: BodyPlace | null = place; at?.parent; at = at.parent) keys.push(at.key);
  return keys
    .reverse()
    .reduce<string>((path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key), '');
}

/**
 * How many objects and arrays a request body may nest, the body itself counted. The deepest
 * body of the contract is a gateway batch whose event data nests the 16 levels ingest allows
 * (src/events/judge.ts): body, events, event, then data's 16 = 19; the free-form objects of the
 * PMS (a unit's or visitor's extendedData) get the rest; an auction list nests 4 (imageUrls).
 * Past this, recursive code over a body (ajv's deep equality, JSON.stringify, a domain walk)
 * would come near the end of the stack: a body nested 5,000 levels overflowed it (a 500).
 */
export const MAX_BODY_DEPTH = 32;

/** The path of the first object or array nested deeper than `limit`, or null when none is. */
export function pathBeyondDepth(body: unknown, limit = MAX_BODY_DEPTH): string | null {
  let found: string | null = null;
  walkBody(body, (place) => {
    if (place.depth < limit || !isPlainContainer(place.value)) return true;
    found = pathOf(place);
    return false;
  });
  return found;
}

export const bodyTooDeep = (path: string, limit = MAX_BODY_DEPTH) =>
  new AppError(400, 'BODY_TOO_DEEP', `The request body nests objects and arrays deeper than ${limit} levels.`, [
    { path: path || 'body', message: `must not nest deeper than ${limit} levels` },
  ]);

/** Paths of strings holding a NUL character, which PostgreSQL cannot store in text (at most `max`). */
export function nulCharacterPaths(value: unknown, max = 20): string[] {
  const found: string[] = [];
  walkBody(value, (place) => {
    if (typeof place.value === 'string' && place.value.includes('\u0000')) found.push(pathOf(place) || 'body');
    return found.length < max;
  });
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

/**
 * Refuses a body nested deeper than MAX_BODY_DEPTH right after it is parsed, whichever parser
 * made it, before any validator or handler walks it; then raises, in one 400, the faults that the
 * validators of every request part recorded.
 */
export function registerValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler);
  app.addHook('preValidation', async (request) => {
    const tooDeep = pathBeyondDepth(request.body);
    if (tooDeep !== null) throw bodyTooDeep(tooDeep);
  });
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
