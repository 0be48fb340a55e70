import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import {
  faultsFromAjv,
  MAX_BODY_DEPTH,
  nulCharacterPaths,
  pathBeyondDepth,
  pointerToPath,
  SAFE_INTEGER_RANGE,
  withSafeIntegers,
} from '../../src/http/validation.ts';

describe('validation fault paths', () => {
  it('turns JSON pointers into field paths', () => {
    assert.equal(pointerToPath('/auctionableUnitInfo/3/endsAt'), 'auctionableUnitInfo[3].endsAt');
    assert.equal(pointerToPath('', 'guid'), 'guid');
    assert.equal(pointerToPath('/a~1b/0'), 'a/b[0]');
  });

  it('names the missing field of a required error and keeps one message per field', () => {
    const faults = faultsFromAjv([
      {
        keyword: 'required',
        instancePath: '/items/0',
        schemaPath: '',
        params: { missingProperty: 'unitId' },
        message: 'x',
      },
      { keyword: 'type', instancePath: '/code', schemaPath: '', params: {}, message: 'must be string' },
      { keyword: 'type', instancePath: '/code', schemaPath: '', params: {}, message: 'must be number' },
      { keyword: 'anyOf', instancePath: '/code', schemaPath: '', params: {}, message: 'must match a schema in anyOf' },
    ]);
    assert.deepEqual(faults, [
      { path: 'items[0].unitId', message: 'is required' },
      { path: 'code', message: 'must be of one of the forms the API reference gives' },
    ]);
  });
});

describe('faults in plain words', () => {
  // As the service compiles schemas: verbose, so that each fault carries its schema.
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: 'array', verbose: true });
  addFormats.default(ajv);
  const faultsOf = (schema: object, value: unknown) => {
    const validate = ajv.compile(withSafeIntegers(schema) as object);
    assert.equal(validate(value), false, JSON.stringify(value));
    return Object.fromEntries(faultsFromAjv(validate.errors ?? [], 'query').map((f) => [f.path, f.message]));
  };
  const query = {
    type: 'object',
    properties: {
      pageSize: { type: 'integer', minimum: 1, maximum: 10_000 },
      offset: { type: 'integer', minimum: 0 },
      id: { type: 'integer', minimum: 1 },
      price: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
      sort: { type: 'string', enum: ['desc', 'asc'] },
      guid: { type: 'string', minLength: 1, maxLength: 20 },
      name: { type: 'string', minLength: 1 },
      note: { type: 'string', maxLength: 5 },
      at: { type: 'string', format: 'date-time' },
      url: { type: 'string', format: 'uri' },
      flag: { type: 'boolean' },
      code: { type: 'string', pattern: '^[0-9]+$' },
      hide: { type: 'string', pattern: '^(true|false)$', 'x-expected': 'true or false' },
      ids: { type: 'array', maxItems: 2, items: { type: 'integer' } },
      tags: { type: 'array', minItems: 1, uniqueItems: true },
      nullableId: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
      either: {
        anyOf: [
          { type: 'string', maxLength: 2 },
          { type: 'integer', maximum: 5 },
        ],
      },
      exact: { const: 'yes' },
    },
  };

  it('says what each parameter must be, with its range, never an Ajv keyword', () => {
    assert.deepEqual(
      faultsOf(query, {
        pageSize: 'abc',
        offset: '-1',
        id: '0',
        price: '0',
        sort: 'up',
        guid: 'x'.repeat(21),
        name: '',
        note: 'toolong',
        at: 'yesterday',
        url: 'not a url',
        flag: 'maybe',
        code: '12a',
        hide: 'maybe',
        ids: ['1', '2', '3'],
        tags: [],
        exact: 'no',
      }),
      {
        pageSize: 'must be a whole number from 1 to 10000',
        offset: 'must be a whole number of at least 0',
        id: 'must be a whole number of at least 1',
        price: 'must be a number greater than 0',
        sort: 'must be desc or asc',
        guid: 'must be 1 to 20 characters',
        name: 'must not be empty',
        note: 'must be at most 5 characters',
        at: 'must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z',
        url: 'must be an absolute URL, e.g. https://example.com/path',
        flag: 'must be true or false',
        code: 'must be a string matching ^[0-9]+$',
        hide: 'must be true or false',
        ids: 'must list at most 2 items',
        tags: 'must not be empty',
        exact: 'must be yes',
      },
    );
    assert.deepEqual(faultsOf(query, { price: '0.001', tags: ['a', 'a'] }), {
      price: 'must have at most 2 decimals',
      tags: 'must not list the same value twice',
    });
  });

  it('names a safe-integer bound only when the value passes it', () => {
    assert.deepEqual(faultsOf(query, { id: '9007199254740992' }), {
      id: 'must be a whole number from 1 to 9007199254740991',
    });
  });

  it('says what a union takes instead of "does not match any allowed form"', () => {
    assert.deepEqual(faultsOf(query, { nullableId: 'abc' }), {
      nullableId: 'must be a whole number of at least 0 or null',
    });
    // One branch of the value's type: that branch speaks.
    assert.deepEqual(faultsOf(query, { nullableId: -1 }), { nullableId: 'must be a whole number of at least 0' });
    // Both branches of the value's type (a query value is text and coerces): the union lists its forms.
    assert.deepEqual(faultsOf(query, { either: '123' }), {
      either: 'must be a string of at most 2 characters or a whole number of at most 5',
    });
  });

  it('says what the whole must be when the schema describes it (a body that is not a batch)', () => {
    const batch = {
      type: 'object',
      required: ['events'],
      'x-expected': '{"events": [ … ]}',
      properties: { events: { type: 'array', 'x-expected': 'an array of events' } },
    };
    const strict = new Ajv({ allErrors: true, strict: false, verbose: true });
    const validate = strict.compile(batch);
    for (const [body, expected] of [
      [[{ eventId: 'a' }], [{ path: 'body', message: 'must be {"events": [ … ]}' }]],
      ['text', [{ path: 'body', message: 'must be {"events": [ … ]}' }]],
      [{ eventId: 'a' }, [{ path: 'events', message: 'is required: body must be {"events": [ … ]}' }]],
      [{ events: {} }, [{ path: 'events', message: 'must be an array of events' }]],
    ] as const) {
      assert.equal(validate(body), false);
      assert.deepEqual(faultsFromAjv(validate.errors ?? [], 'body'), expected, JSON.stringify(body));
    }
  });
});

describe('an enum fault', () => {
  it('says the allowed values in plain words', () => {
    const fault = (allowedValues: unknown[]) =>
      faultsFromAjv([
        { keyword: 'enum', instancePath: '/sort', schemaPath: '', params: { allowedValues }, message: 'x' },
      ])[0]?.message;
    assert.equal(fault(['desc', 'asc']), 'must be desc or asc');
    assert.equal(fault(['open', 'resolved', 'all']), 'must be open, resolved or all');
    assert.equal(fault([1, 2]), 'must be 1 or 2');
    assert.equal(fault(Array.from({ length: 12 }, (_, i) => `v${i}`)), 'must be one of the 12 allowed values');
  });
});

/** `[[[…]]]` or `{"a":{"a":…}}`, `depth` containers deep, built without recursion. */
function nested(depth: number, kind: 'array' | 'object', leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

describe('body depth', () => {
  it('names the first object or array past the limit, for bodies nested 5,000 levels deep, without recursion', () => {
    assert.equal(pathBeyondDepth(nested(5_000, 'array')), '[0]'.repeat(MAX_BODY_DEPTH));
    assert.equal(pathBeyondDepth(nested(5_000, 'object')), Array(MAX_BODY_DEPTH).fill('a').join('.'));
    assert.equal(
      pathBeyondDepth({ events: [{ id: 1 }, { data: nested(5_000, 'object') }] }),
      `events[1].data${'.a'.repeat(MAX_BODY_DEPTH - 3)}`,
    );
    // Far deeper than any call stack: still an answer, not a RangeError.
    assert.equal(pathBeyondDepth(nested(1_000_000, 'array'), 3), '[0][0][0]');
  });

  it('lets a body nest exactly the limit, and counts containers, not scalars', () => {
    assert.equal(pathBeyondDepth(nested(MAX_BODY_DEPTH, 'array', 'leaf')), null);
    assert.equal(pathBeyondDepth(nested(MAX_BODY_DEPTH + 1, 'array', 'leaf')), '[0]'.repeat(MAX_BODY_DEPTH));
    for (const flat of [null, 'text', 42, {}, [], { a: 1, b: [1, 2] }]) assert.equal(pathBeyondDepth(flat), null);
  });

  it('does not walk into what is not a parsed body (a Buffer)', () => {
    assert.equal(pathBeyondDepth(Buffer.alloc(1000), 0), null);
  });
});

describe('NUL characters', () => {
  it('are found with their paths, in document order, at most 20', () => {
    assert.deepEqual(nulCharacterPaths({ a: 'ok', b: ['x\u0000', { c: '\u0000' }] }), ['b[0]', 'b[1].c']);
    assert.deepEqual(nulCharacterPaths('\u0000'), ['body']);
    assert.equal(nulCharacterPaths(Array(50).fill('\u0000')).length, 20);
  });

  it('are searched without recursion in a body nested 100,000 levels deep', () => {
    assert.deepEqual(nulCharacterPaths(nested(100_000, 'array', '\u0000')), ['[0]'.repeat(100_000)]);
  });
});

describe('integer ranges', () => {
  const ajv = new Ajv({ coerceTypes: 'array', allErrors: true });
  const query = {
    type: 'object',
    properties: {
      offset: { type: 'integer', minimum: 0 },
      after: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      code: { type: ['string', 'integer'] },
      ids: { type: 'array', items: { type: 'integer', exclusiveMaximum: 10 } },
    },
  };

  it('holds every integer without a bound of its own to the safe range, leaving the route schema as written', () => {
    const written = JSON.stringify(query);
    const bounded = withSafeIntegers(query) as any;
    assert.equal(JSON.stringify(query), written, 'the original is unchanged');
    assert.deepEqual(bounded.properties.offset, { type: 'integer', minimum: 0, maximum: SAFE_INTEGER_RANGE.maximum });
    assert.deepEqual(bounded.properties.after.anyOf[0], { type: 'integer', ...SAFE_INTEGER_RANGE });
    assert.deepEqual(bounded.properties.limit, query.properties.limit);
    assert.deepEqual(bounded.properties.code, { type: ['string', 'integer'], ...SAFE_INTEGER_RANGE });
    assert.deepEqual(bounded.properties.ids.items, {
      type: 'integer',
      exclusiveMaximum: 10,
      minimum: SAFE_INTEGER_RANGE.minimum,
    });
  });

  it('refuses, by field, query integers beyond 64 bits or past what JavaScript holds exactly', () => {
    const validate = ajv.compile(withSafeIntegers(query) as object);
    for (const offset of ['99999999999999999999', '9007199254740992', '1e300']) {
      assert.equal(validate({ offset }), false, offset);
      assert.deepEqual(
        faultsFromAjv(validate.errors ?? []).map((f) => f.path),
        ['offset'],
      );
    }
    assert.equal(validate({ after: '-99999999999999999999' }), false);
    assert.equal(validate({ offset: '9007199254740991', after: String(Number.MIN_SAFE_INTEGER) }), true);
  });
});
