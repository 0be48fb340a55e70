// Lenient request bodies, for a face whose existing clients were written against an ASP.NET service
// or run in a browser (the access-control face, SPEC §4). The rules live here once; a face opts in
// with one line, `acceptLenientBodies(app)` at the top of its routes plugin, and they then hold for
// every route of that scope — and nowhere else: the other faces stay strict.
//
// - Bodies may be sent as application/json, application/json-patch+json (read as JSON: clients
//   generated for ASP.NET send it for plain JSON) or application/x-www-form-urlencoded (every field
//   a string); an empty body is no body (action routes need none), and so is a body that says
//   nothing: the JSON `null`, or a JSON string of nothing but spaces (`""`: what axios sends for
//   `data: ""`), under any of the three types.
// - Before validation, the body is coerced along the route's own body schema (`coerceBody`): an
//   integer field takes a string of decimal digits within Number.MAX_SAFE_INTEGER, a boolean field
//   "true"/"false" in any case, a string field marked ACCEPTS_INTEGER a non-negative JSON integer,
//   and `""` for a field that takes no string is null where the field takes null, else absent where
//   it is optional (the incumbent's ASP.NET binder reads "" for a nullable number as null: a form's
//   select reset to "no unit" sends `"unitId": ""`). Anything else is left as it came, so the
//   validator refuses it naming the field ("must be integer").
// - A 400 also names each bad field the incumbent's way, as a member of the problem body
//   (`incumbentFieldMembers`: `"UnitNumber": ["is already in use…"]`), beside `errors[]`.
//
// Why not a second Ajv with `coerceTypes`: Ajv coerces " 12", "1e3" and "0x10" to numbers, "" to 0
// or false, and number to string for every string field; and it coerces at the first branch of a
// union that fits. The rules here are narrower, written down and tested, and the validator that
// names bad fields stays the one every face uses.
import { Type } from '@fastify/type-provider-typebox';
import type { App } from './app-type.ts';
import { jsonBodyParser } from './bodies.ts';
import { Problem } from './problem.ts';
import { ACCEPTS_INTEGER } from './schemas.ts';
import { isPlainContainer } from './validation.ts';

/** An integer sent as text: decimal digits, no sign, no leading zero, no space, no exponent. */
export const INTEGER_TEXT = /^(0|[1-9][0-9]*)$/;
/** A boolean sent as text, in any case: .NET writes True and False. */
export const BOOLEAN_TEXT = /^(true|false)$/i;

/** The body types a lenient face takes, in the order the OpenAPI document lists them. */
export const LENIENT_BODY_TYPES = [
  'application/json',
  'application/json-patch+json',
  'application/x-www-form-urlencoded',
] as const;

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];

/** The JSON Schema type of a parsed value ('integer' for a whole number). */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a schema takes the value's JSON type as it is; a schema that names no type takes any. */
function admits(schema: Schema, value: unknown): boolean {
  const types = typesOf(schema);
  if (types.length > 0) {
    const kind = jsonType(value);
    return types.some((type) => type === kind || (type === 'number' && kind === 'integer'));
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.some((branch) => isSchema(branch) && admits(branch, value));
  return true;
}

/** A scalar in the form the schema's own type wants, when one of the rules allows it; else as it is. */
function coerceScalar(schema: Schema, value: unknown): unknown {
  const types = typesOf(schema);
  if (types.length === 0) return value;
  if (typeof value === 'string') {
    if (types.includes('string')) return value;
    if (value === '' && types.includes('null')) return null;
    if (types.includes('integer') && INTEGER_TEXT.test(value)) {
      const number = Number(value);
      if (number <= Number.MAX_SAFE_INTEGER) return number;
    }
    if (types.includes('boolean') && BOOLEAN_TEXT.test(value)) return value.toLowerCase() === 'true';
    return value;
  }
  if (
    typeof value === 'number' &&
    schema[ACCEPTS_INTEGER] === true &&
    types.includes('string') &&
    !types.includes('integer') &&
    !types.includes('number') &&
    Number.isSafeInteger(value) &&
    value >= 0
  ) {
    return String(value); // -0 reads "0"
  }
  return value;
}

/**
 * A union keeps a value one of its branches takes as it is (descending into that branch); otherwise
 * the first branch that can coerce it does ("12" for `integer | null` → 12).
 */
function coerceUnion(branches: unknown[], value: unknown): unknown {
  const schemas = branches.filter(isSchema);
  const fitting = schemas.find((branch) => admits(branch, value));
  if (fitting) return coerceBody(fitting, value);
  for (const branch of schemas) {
    const coerced = coerceBody(branch, value);
    if (coerced !== value) return coerced;
  }
  return value;
}

const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (!pattern) {
    pattern = new RegExp(source, 'u');
    patterns.set(source, pattern);
  }
  return pattern;
}

/** The schema of an object's member: its property, else a matching pattern property, else additionalProperties. */
function memberSchema(schema: Schema, key: string): Schema | null {
  const properties = schema.properties;
  if (isSchema(properties) && Object.hasOwn(properties, key)) {
    const property = properties[key];
    return isSchema(property) ? property : null;
  }
  const patternProperties = schema.patternProperties;
  if (isSchema(patternProperties)) {
    for (const [source, sub] of Object.entries(patternProperties)) {
      if (patternOf(source).test(key)) return isSchema(sub) ? sub : null;
    }
  }
  return isSchema(schema.additionalProperties) ? schema.additionalProperties : null;
}

/** The schema of an array's item: `prefixItems` (or a tuple's `items`) by position, else `items`. */
function itemSchema(schema: Schema, index: number): Schema | null {
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : null;
  if (tuple) {
    if (index < tuple.length) return isSchema(tuple[index]) ? tuple[index] : null;
    const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
    return isSchema(rest) ? rest : null;
  }
  return isSchema(schema.items) ? schema.items : null;
}

/**
 * A parsed body coerced along its schema by the rules above: objects and arrays are changed in place
 * (a member replaced only when a rule applies), and the value is returned (a scalar body may be
 * replaced). It follows properties, pattern properties, additionalProperties, items, prefixItems,
 * allOf and anyOf/oneOf; it does not follow `$ref`. Its recursion follows the schema, which ends
 * where the schema does (an `extendedData` of unknown values is not entered), and the body's depth is
 * bounded before it runs (MAX_BODY_DEPTH).
 */
export function coerceBody(schema: unknown, value: unknown): unknown {
  if (!isSchema(schema)) return value;
  let result = value;
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) result = coerceBody(part, result);
  for (const union of [schema.anyOf, schema.oneOf]) if (Array.isArray(union)) result = coerceUnion(union, result);
  result = coerceScalar(schema, result);
  if (!isPlainContainer(result)) return result;
  if (Array.isArray(result)) {
    for (let i = 0; i < result.length; i++) {
      const sub = itemSchema(schema, i);
      if (sub) result[i] = coerceBody(sub, result[i]);
    }
  } else {
    const object = result as Record<string, unknown>;
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    for (const key of Object.keys(object)) {
      const sub = memberSchema(schema, key);
      if (!sub) continue;
      const coerced = coerceBody(sub, object[key]);
      // "" left for a field that takes no string: an optional one is absent, as if not sent.
      if (coerced === '' && !admits(sub, '') && !required.includes(key)) delete object[key];
      else if (coerced !== object[key]) object[key] = coerced;
    }
  }
  return result;
}

/**
 * A body that says nothing, as a form: the two characters `""` (or `null`) sent as
 * application/x-www-form-urlencoded parse as one field of that name and no value.
 */
const saysNothingAsForm = (body: unknown): boolean => {
  if (!isPlainContainer(body) || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return (
    keys.length === 1 && (keys[0] === '""' || keys[0] === 'null') && (body as Record<string, unknown>)[keys[0]!] === ''
  );
};

/** A JSON body that says nothing: `null`, or a string of nothing but spaces. */
const saysNothing = (value: unknown): boolean => value === null || (typeof value === 'string' && value.trim() === '');

/** The member a field's path is named by in the incumbent's answers: `items[0].unitId` → `Items[0].UnitId`. */
export const incumbentName = (path: string): string =>
  path
    .split('.')
    .map((segment) => segment.charAt(0).toUpperCase() + segment.slice(1))
    .join('.');

/** The members of the problem body itself, which no field's member may shadow (a client may read names in any case). */
const PROBLEM_MEMBERS = new Set(['type', 'title', 'status', 'code', 'detail', 'errors', 'traceid']);

/**
 * Each bad field of a 400 the way the incumbent's answers name it (ASP.NET's model state, which
 * integrations read as `error.response.data.UnitNumber`): its messages under its PascalCase name.
 * A path that is the whole body or the query ('body', 'querystring', 'params') names no field.
 */
export function incumbentFieldMembers(errors: readonly { path: string; message: string }[]): Record<string, string[]> {
  const members: Record<string, string[]> = {};
  for (const { path, message } of errors) {
    if (path === 'body' || path === 'querystring' || path === 'params') continue;
    const name = incumbentName(path);
    if (PROBLEM_MEMBERS.has(name.toLowerCase())) continue;
    members[name] = [...(members[name] ?? []), message];
  }
  return members;
}

/** The problem body of a lenient face's 400: the Problem, with each bad field also under its incumbent name. */
export const LenientProblem = Type.Object(Problem.properties, {
  $id: 'LenientProblem',
  description:
    'A problem (RFC 9457); on a 400, each bad field is also a member named as the incumbent names it — its path in PascalCase (`UnitNumber`, `Items[0].UnitId`) — holding its messages, beside `errors[]`.',
  patternProperties: { '^[A-Z]': Type.Array(Type.String()) },
});

/**
 * Documents (and lets the serializer send) the incumbent's field members on the 400 of every route
 * the scope registers from now on. (The app-wide hook that gives every route its face's error
 * answers runs first: the 400 it made is replaced.)
 */
export function documentIncumbentFieldMembers(app: App): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as Record<string, unknown> | undefined;
    const response = schema?.response as Record<string, { description?: string; content?: object }> | undefined;
    const invalid = response?.[400];
    if (!response || !invalid?.content) return;
    response[400] = { ...invalid, content: { 'application/problem+json': { schema: LenientProblem } } };
  });
}

/** The fields of a body schema the rules widen, by path (`items[].id`), for the OpenAPI description. */
export interface LenientFields {
  integers: string[];
  booleans: string[];
  digitStrings: string[];
}

export function lenientFields(schema: unknown): LenientFields {
  const integers = new Set<string>();
  const booleans = new Set<string>();
  const digitStrings = new Set<string>();
  const visit = (node: unknown, path: string, seen: number) => {
    if (!isSchema(node) || seen > 64) return;
    const types = typesOf(node);
    const name = path || 'body';
    if (types.includes('integer')) integers.add(name);
    if (types.includes('boolean')) booleans.add(name);
    if (types.includes('string') && node[ACCEPTS_INTEGER] === true) digitStrings.add(name);
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      if (Array.isArray(node[key])) for (const branch of node[key]) visit(branch, path, seen + 1);
    if (isSchema(node.properties))
      for (const [key, sub] of Object.entries(node.properties)) visit(sub, path ? `${path}.${key}` : key, seen + 1);
    for (const key of ['items', 'additionalItems']) if (isSchema(node[key])) visit(node[key], `${path}[]`, seen + 1);
    for (const key of ['items', 'prefixItems'])
      if (Array.isArray(node[key])) for (const sub of node[key]) visit(sub, `${path}[]`, seen + 1);
  };
  visit(schema, '', 0);
  return { integers: [...integers], booleans: [...booleans], digitStrings: [...digitStrings] };
}

const quoted = (paths: string[]) => paths.map((path) => `\`${path}\``).join(', ');

/** The paragraph each lenient operation's OpenAPI description ends with. */
export function lenientDescription(schema: unknown): string {
  const { integers, booleans, digitStrings } = lenientFields(schema);
  const rules = [
    'the body may also be sent as `application/json-patch+json` (read as JSON) or ' +
      '`application/x-www-form-urlencoded`; an empty body, `null` and `""` are no body.',
  ];
  if (integers.length > 0)
    rules.push(
      `Integer fields (${quoted(integers)}) also accept a string of decimal digits without sign, spaces or leading zeros ("12").`,
    );
  if (booleans.length > 0)
    rules.push(`Boolean fields (${quoted(booleans)}) also accept the strings "true" and "false", in any case.`);
  if (digitStrings.length > 0)
    rules.push(`${quoted(digitStrings)} also accepts a non-negative JSON integer, read as its decimal digits.`);
  rules.push(
    '`""` for a field that takes no string is null where the field takes null, and absent where it is optional.',
  );
  rules.push('Any other string is refused (400) naming the field.');
  return `**Compatibility** (for existing PMS integrations): ${rules.join(' ')}`;
}

/**
 * Opts the routes a scope registers from now on into lenient bodies: the body parsers, the coercion
 * before validation, and the OpenAPI description of both (each operation with a body lists the
 * media types and says which fields accept strings). Call it at the top of a face's routes plugin.
 */
export function acceptLenientBodies(app: App): void {
  // JSON also as application/json-patch+json; an empty body is no body. (Form bodies are parsed by
  // http/bodies.ts for the whole app: every field a string, an empty body {}.)
  const json = jsonBodyParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    ['application/json', 'application/json-patch+json'],
    { parseAs: 'string' },
    (request, body, done) => {
      if (typeof body === 'string' && body.trim() === '') return done(null, null);
      json(request, body as string, (error, value) =>
        error ? done(error) : done(null, saysNothing(value) ? null : value),
      );
    },
  );

  // After the app-wide depth check (a hook of the root runs first), before validation.
  app.addHook('preValidation', async (request) => {
    if (saysNothingAsForm(request.body)) request.body = null;
    const schema = request.routeOptions.schema?.body;
    if (schema !== undefined && request.body !== null && request.body !== undefined)
      request.body = coerceBody(schema, request.body);
  });

  app.addHook('onRoute', (route) => {
    const schema = route.schema as Record<string, unknown> | undefined;
    if (!schema?.body || schema.hide) return;
    schema.consumes ??= [...LENIENT_BODY_TYPES];
    const note = lenientDescription(schema.body);
    schema.description = schema.description ? `${schema.description}\n\n${note}` : note;
  });
}
