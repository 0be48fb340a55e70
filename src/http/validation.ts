// Request validation that names every bad field. Fastify validates params, body, query and
// headers in turn and stops at the first part that fails; here each part's validator records its
// faults instead, and one preHandler hook raises them all together.
// Hostile input is bounded here once, for every route: a body may nest MAX_BODY_DEPTH levels
// (checked without recursion right after parsing), and an integer without bounds of its own is
// held to the range JavaScript holds exactly.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { App as FastifyInstance } from './app-type.ts';
import { AppError, validationFailed, type FieldError } from '../errors.ts';
import { EXPECTED } from './schemas.ts';

// verbose: each fault carries its schema, from which faultsFromAjv words the message ("must be a
// whole number from 1 to 10000", not "must be <= 10000").
const common = {
  allErrors: true,
  useDefaults: true,
  removeAdditional: true,
  strict: false,
  verbose: true,
} as const;
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

type Schema = Record<string, unknown>;
const schemaOf = (value: unknown): Schema | null => (isSchemaObject(value) ? value : null);

export function faultsFromAjv(errors: ErrorObject[], root = ''): FieldError[] {
  const unions = judgeUnions(errors);
  const byPath = new Map<string, FieldError>();
  for (const error of errors) {
    if (unions.silenced.has(error)) continue;
    // An if/then failure also reports the failing `then` keyword itself, which says what is wrong.
    if (error.keyword === 'if') continue;
    let path: string;
    let message: string;
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      path = pointerToPath(error.instancePath, missing);
      // The object's own description says what the whole should have been (a single event sent where a batch belongs).
      const whole = schemaOf(error.parentSchema)?.[EXPECTED];
      message =
        typeof whole === 'string'
          ? `is required: ${pointerToPath(error.instancePath) || root || 'the value'} must be ${whole}`
          : 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path = pointerToPath(error.instancePath, (error.params as { additionalProperty: string }).additionalProperty);
      message = 'is not a known field';
    } else {
      path = pointerToPath(error.instancePath);
      message =
        error.keyword === 'anyOf' || error.keyword === 'oneOf'
          ? (unions.messages.get(error) ?? unionMessage(error))
          : plainMessage(error);
    }
    path = path || root;
    const existing = byPath.get(path);
    // One message per field; a union's summary replaces the messages of its branches.
    if (!existing || error.keyword === 'anyOf' || error.keyword === 'oneOf') byPath.set(path, { path, message });
  }
  return [...byPath.values()];
}

/** An enum's fault in plain words: "must be desc or asc" (a long list is not spelled out). */
const oneOf = (values: unknown[]) => `must be ${valuesInWords(values)}`;

const valuesInWords = (values: unknown[]) =>
  values.length <= 10
    ? orList(values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))))
    : `one of the ${values.length} allowed values`;

/** "a", "a or b", "a, b or c". */
const orList = (items: string[]) => items.join(', ').replace(/, ([^,]*)$/, ' or $1');

// What a string of each format is, with an example a client can copy.
const FORMATS: Record<string, string> = {
  'date-time': 'an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z',
  date: 'an ISO 8601 date, e.g. 2026-11-01',
  time: 'an ISO 8601 time with an offset, e.g. 09:30:00Z',
  uri: 'an absolute URL, e.g. https://example.com/path',
  url: 'an absolute URL, e.g. https://example.com/path',
  email: 'an email address',
  uuid: 'a UUID, e.g. 0195506c-3a1f-7b2e-9c4d-5e6f7a8b9c0d',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

const TYPES: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  null: 'null',
  array: 'an array',
  object: 'an object',
};

const isSafeBound = (value: unknown) => value === SAFE_INTEGER_RANGE.minimum || value === SAFE_INTEGER_RANGE.maximum;

/**
 * The range of a number schema in words: " from 1 to 10000", " of at least 1", " greater than 0".
 * The safe-integer bounds every unbounded integer gets (withSafeIntegers) are left out, unless the
 * fault is about one of them (`showSafe`): "a whole number of at least 1", not "… to 9007199254740991".
 */
function rangeInWords(schema: Schema, showSafe = false): string {
  const bound = (key: string) => {
    const value = schema[key];
    return typeof value === 'number' && (showSafe || !isSafeBound(value)) ? value : undefined;
  };
  const [min, max, above, below] = [
    bound('minimum'),
    bound('maximum'),
    bound('exclusiveMinimum'),
    bound('exclusiveMaximum'),
  ];
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  const low = min !== undefined ? `at least ${min}` : above !== undefined ? `greater than ${above}` : null;
  const high = max !== undefined ? `at most ${max}` : below !== undefined ? `less than ${below}` : null;
  if (low && high) return ` ${low} and ${high}`;
  if (low) return min !== undefined ? ` of ${low}` : ` ${low}`;
  if (high) return max !== undefined ? ` of ${high}` : ` ${high}`;
  return '';
}

/**
 * What a value of a schema is, in plain words: "a whole number from 1 to 10000", "desc or asc",
 * "an ISO 8601 date-time …", "a whole number of at least 0 or null"; the schema's own EXPECTED
 * words when it has them.
 */
export function expectedValue(schema: unknown, showSafe = false): string {
  const s = schemaOf(schema);
  if (!s) return 'a value of another form';
  if (typeof s[EXPECTED] === 'string') return s[EXPECTED];
  if (s.const !== undefined) return typeof s.const === 'string' ? s.const : JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return valuesInWords(s.enum);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = s[keyword];
    if (Array.isArray(branches)) return orList(branches.map((branch) => expectedValue(branch, showSafe)));
  }
  const types = [s.type].flat().filter((type): type is string => typeof type === 'string');
  if (types.length === 0) return 'a value of another form';
  return orList(
    types.map((type) => {
      if (type === 'integer') return `a whole number${rangeInWords(s, showSafe)}`;
      if (type === 'number') return `a number${rangeInWords(s, showSafe)}`;
      if (type === 'string' && typeof s.format === 'string' && FORMATS[s.format]) return FORMATS[s.format]!;
      if (type === 'string') return `a string${lengthInWords(s)}`;
      return TYPES[type] ?? type;
    }),
  );
}

/** The length of a string schema in words: " of 1 to 20 characters", " of at most 5 characters". */
function lengthInWords(schema: Schema): string {
  const { minLength: min, maxLength: max } = schema;
  if (typeof min === 'number' && min > 0 && typeof max === 'number') return ` of ${min} to ${max} characters`;
  if (typeof min === 'number' && min > 0) return min === 1 ? ' (not empty)' : ` of at least ${min} characters`;
  if (typeof max === 'number') return ` of at most ${plural(max, 'character', 'characters')}`;
  return '';
}

const plural = (count: unknown, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** One keyword's fault in plain words (Ajv's own messages read "must NOT have more than 20 characters"). */
function plainMessage(error: ErrorObject): string {
  const schema = schemaOf(error.parentSchema);
  const limit = error.schema;
  if (!schema)
    return error.keyword === 'enum'
      ? oneOf((error.params as { allowedValues: unknown[] }).allowedValues)
      : (error.message ?? 'is invalid');
  switch (error.keyword) {
    case 'type':
      return `must be ${expectedValue(schema)}`;
    case 'pattern':
      return typeof schema[EXPECTED] === 'string'
        ? `must be ${schema[EXPECTED]}`
        : `must be a string matching ${String(limit)}`;
    case 'format':
      return `must be ${FORMATS[String(limit)] ?? expectedValue(schema)}`;
    case 'enum':
      return oneOf((error.params as { allowedValues: unknown[] }).allowedValues);
    case 'const':
      return `must be ${expectedValue({ const: limit })}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${expectedValue(schema, isSafeBound(limit))}`;
    case 'minLength':
    case 'maxLength': {
      const { minLength: min, maxLength: max } = schema;
      if (typeof min === 'number' && min > 0 && typeof max === 'number') return `must be ${min} to ${max} characters`;
      if (error.keyword === 'minLength')
        return min === 1 ? 'must not be empty' : `must be at least ${plural(min, 'character', 'characters')}`;
      return `must be at most ${plural(max, 'character', 'characters')}`;
    }
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must list at least ${plural(limit, 'item', 'items')}`;
    case 'maxItems':
      return `must list at most ${plural(limit, 'item', 'items')}`;
    case 'uniqueItems':
      return 'must not list the same value twice';
    case 'minProperties':
      return `must have at least ${plural(limit, 'field', 'fields')}`;
    case 'maxProperties':
      return `must have at most ${plural(limit, 'field', 'fields')}`;
    case 'multipleOf': {
      const decimals = typeof limit === 'number' ? Math.round(-Math.log10(limit)) : Number.NaN;
      return decimals > 0 && 10 ** -decimals === limit
        ? `must have at most ${plural(decimals, 'decimal', 'decimals')}`
        : `must be a multiple of ${String(limit)}`;
    }
    case 'not':
      return 'is not allowed here';
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * What each failed union (anyOf, oneOf) says. A branch "does not fit" when its only fault is the
 * value's type. When no branch fits, the union says which forms it takes ("12a" for an
 * `integer | null`: "must be a whole number or null"); when exactly one fits (-1 for a nullable
 * integer with a minimum of 0), that branch's own faults speak and the union and the other branches
 * are silent ("must be a whole number of at least 0"); otherwise the union lists its forms
 * (unionMessage).
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
      const forms = misfits.map((misfit) =>
        misfit.parentSchema
          ? expectedValue(misfit.parentSchema)
          : [(misfit.params as { type: string | string[] }).type].flat().join(' or '),
      );
      messages.set(union, `must be ${orList([...new Set(forms)])}`);
    } else if (fitting === 1) {
      silenced.add(union);
      for (const misfit of misfits) silenced.add(misfit);
    }
  }
  return { messages, silenced };
}

/** A union no single branch explains: the forms it takes, in words ("must be a whole number or null"). */
function unionMessage(union: ErrorObject): string {
  return Array.isArray(union.schema)
    ? `must be ${orList(union.schema.map((branch) => expectedValue(branch)))}`
    : 'must be of one of the forms the API reference gives';
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
 * dictionaries (http/bodies.ts's, without a prototype) — not a Buffer, not a stream.
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
  const beyond = pathBeyondShape(body, limit);
  return beyond?.kind === 'depth' ? beyond.path : null;
}

/** Where a body first passes a bound of its shape: nested deeper than `depthLimit`, or an object wider than `fieldLimit`. */
export interface BeyondShape {
  kind: 'depth' | 'fields';
  path: string;
}

/**
 * The first place, depth first, where a body nests deeper than `depthLimit` or has an object with
 * more than `fieldLimit` keys; null when it is within both. An object's keys are counted up to the
 * limit and no further, before the walk enters it: a body 100,000 keys wide costs 1,001 steps here.
 * Arrays are not counted: their length is bounded by the body's bytes and the schema's maxItems.
 */
export function pathBeyondShape(body: unknown, depthLimit = MAX_BODY_DEPTH, fieldLimit = Infinity): BeyondShape | null {
  let found: BeyondShape | null = null;
  walkBody(body, (place) => {
    if (!isPlainContainer(place.value)) return true;
    if (place.depth >= depthLimit) found = { kind: 'depth', path: pathOf(place) };
    else if (!Array.isArray(place.value) && hasMoreKeys(place.value, fieldLimit))
      found = { kind: 'fields', path: pathOf(place) };
    return found === null;
  });
  return found;
}

function hasMoreKeys(object: object, limit: number): boolean {
  if (limit === Infinity) return false;
  let count = 0;
  for (const key in object) if (Object.hasOwn(object, key) && ++count > limit) return true;
  return false;
}

/**
 * The fields of a form body, counted from its text before it is parsed: one more than its `&`s (an
 * upper bound: an empty field, as in `a=1&`, is dropped by the parser); none for an empty body.
 */
export function fieldCountOfForm(text: string): number {
  if (text === '') return 0;
  let count = 1;
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) count++;
  return count;
}

export const bodyTooDeep = (path: string, limit = MAX_BODY_DEPTH) =>
  new AppError(400, 'BODY_TOO_DEEP', `The request body nests objects and arrays deeper than ${limit} levels.`, [
    { path: path || 'body', message: `must not nest deeper than ${limit} levels` },
  ]);

/** A body with more fields than BODY_FIELD_LIMIT in one object ('' for the body itself), or a form with more. */
export const tooManyFields = (path: string, limit: number, form = false) =>
  new AppError(
    400,
    'TOO_MANY_FIELDS',
    form
      ? `The form body has more than ${limit} fields.`
      : `The request body has ${path ? `an object (${path})` : 'an object'} with more than ${limit} fields.`,
    [{ path: path || 'body', message: `must have at most ${limit} fields` }],
  );

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
    /**
     * The rules of the route's query string that its schema cannot state (an event type of the
     * catalogue, a date, endDate after startDate): they push their faults, and those join the
     * schema's in the one 400, so that a client learns every bad parameter at once. They run on
     * the query as the schema left it (a value that failed the schema is still there, of any type)
     * and must not throw. They run only when another fault already refuses the request: otherwise
     * the handler, which reads the query with the same rules first thing, refuses with the same
     * faults itself, and a good request's query is read once, not twice.
     */
    queryRules?: (request: FastifyRequest, faults: FieldError[]) => void;
  }
}

/** Adds `more` to `faults`, but none for a field already named: the schema's fault comes first. */
function addFaults(faults: FieldError[], more: FieldError[]): void {
  const named = new Set(faults.map((fault) => fault.path));
  for (const fault of more) if (!named.has(fault.path)) faults.push(fault);
}

/**
 * Refuses a body nested deeper than MAX_BODY_DEPTH, or with an object of more than `fieldLimit`
 * keys (BODY_FIELD_LIMIT), right after it is parsed, whichever parser made it, before any
 * validator or handler walks it; then raises, in one 400, the faults that the validators of every
 * request part recorded and those of the route's query rules.
 */
export function registerValidation(app: FastifyInstance, fieldLimit: number): void {
  app.setValidatorCompiler(validatorCompiler);
  app.addHook('preValidation', async (request) => {
    const beyond = pathBeyondShape(request.body, MAX_BODY_DEPTH, fieldLimit);
    if (beyond?.kind === 'depth') throw bodyTooDeep(beyond.path);
    if (beyond?.kind === 'fields') throw tooManyFields(beyond.path, fieldLimit);
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
    const queryRules = request.routeOptions.config.queryRules;
    if (queryRules && faults.length > 0) {
      const ruleFaults: FieldError[] = [];
      queryRules(request, ruleFaults);
      addFaults(faults, ruleFaults);
    }
    if (faults.length > 0) throw validationFailed(faults);
  });
}
