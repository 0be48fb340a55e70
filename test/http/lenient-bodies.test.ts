import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import { CreateUnitBody, CreateVisitorBody, UpdateVisitorBody } from '../../src/access-control/schemas.ts';
import { coerceBody, incumbentFieldMembers, lenientDescription, lenientFields } from '../../src/http/lenient.ts';
import { ACCEPTS_INTEGER, Nullable, StringAcceptingInteger } from '../../src/http/schemas.ts';
import { faultsFromAjv, withSafeIntegers } from '../../src/http/validation.ts';
import { malformed, pms, type Reply } from '../access-control/helpers.ts';
import { ok, refused } from '../helpers/client.ts';
import { bearer, gatewayToken, operatorToken, tenantFixture } from '../helpers/tenants.ts';

/**
 * Every string an integer field must refuse: it stays a string and fails as "must be a whole number".
 * (`""` has a rule of its own: null for a field that takes null, absent for an optional one.)
 */
const BAD_INTEGERS = [
  '12a',
  '1e3',
  ' 12',
  '12 ',
  '-1',
  '+1',
  '0x10',
  '01',
  '1.0',
  '1_000',
  '١٢',
  '99999999999999999999',
  '9007199254740992',
];
const BAD_BOOLEANS = ['yes', 'no', '1', '0', 't', ' true', 'true ', 'truee'];

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe('coerceBody: the rules over a schema', () => {
  const Scalars = Type.Object({
    count: Type.Integer(),
    flag: Type.Boolean(),
    name: Type.String(),
    ratio: Type.Optional(Type.Number()),
  });

  it('reads an integer field’s digits and a boolean field’s true/false in any case', () => {
    assert.deepEqual(coerceBody(Scalars, { count: '12', flag: 'true', name: 'n' }), {
      count: 12,
      flag: true,
      name: 'n',
    });
    assert.deepEqual(coerceBody(Scalars, { count: '0', flag: 'False', name: 'n' }), {
      count: 0,
      flag: false,
      name: 'n',
    });
    assert.deepEqual(coerceBody(Scalars, { count: '9007199254740991', flag: 'TRUE' }), {
      count: Number.MAX_SAFE_INTEGER,
      flag: true,
    });
  });

  it('leaves every other string as it came, so that validation refuses it', () => {
    for (const bad of BAD_INTEGERS) assert.deepEqual(coerceBody(Scalars, { count: bad }), { count: bad }, bad);
    for (const bad of BAD_BOOLEANS) assert.deepEqual(coerceBody(Scalars, { flag: bad }), { flag: bad }, bad);
    // Numbers are not in the rules: a decimal field keeps its string.
    assert.deepEqual(coerceBody(Scalars, { ratio: '1' }), { ratio: '1' });
  });

  it('reads "" for a field that takes no string as null where it takes null, else absent where it is optional', () => {
    const Fields = Type.Object({
      count: Type.Integer(),
      flag: Type.Boolean(),
      unitId: Type.Optional(Nullable(Type.Integer())),
      groupId: Nullable(Type.Integer()),
      ratio: Type.Optional(Type.Number()),
      tenant: Type.Optional(Type.Boolean()),
      name: Type.Optional(Type.String()),
      items: Type.Array(Type.Object({ id: Type.Optional(Type.Integer()), note: Type.String() })),
    });
    assert.deepEqual(
      coerceBody(Fields, {
        count: '',
        flag: '',
        unitId: '',
        groupId: '',
        ratio: '',
        tenant: '',
        name: '',
        items: [{ id: '', note: '' }],
      }),
      // A required field keeps its "" (validation refuses it, naming it); a string field keeps it.
      { count: '', flag: '', unitId: null, groupId: null, name: '', items: [{ note: '' }] },
    );
    // Only "": a string of spaces is not nothing for a number.
    assert.deepEqual(coerceBody(Fields, { unitId: ' ', ratio: ' ' }), { unitId: ' ', ratio: ' ' });
  });

  it('names each bad field of a 400 the incumbent’s way, never shadowing the problem’s own members', () => {
    assert.deepEqual(
      incumbentFieldMembers([
        { path: 'unitNumber', message: 'is already in use' },
        { path: 'items[0].unitId', message: 'must be a whole number' },
        { path: 'accessCode', message: 'must be 1 to 10 digits' },
        { path: 'accessCode', message: 'is already in use' },
        { path: 'body', message: 'must be an object' },
        { path: 'status', message: 'must be one of …' },
        { path: 'traceId', message: 'x' },
      ]),
      {
        UnitNumber: ['is already in use'],
        'Items[0].UnitId': ['must be a whole number'],
        AccessCode: ['must be 1 to 10 digits', 'is already in use'],
      },
    );
  });

  it('keeps values of the right JSON type, and never turns a number into a string field by itself', () => {
    const body = { count: 12, flag: false, name: '12', ratio: 0.5 };
    assert.deepEqual(coerceBody(Scalars, copy(body)), body);
    assert.deepEqual(coerceBody(Scalars, { name: 12 }), { name: 12 });
    assert.deepEqual(coerceBody(Scalars, { count: true, flag: 1, name: null }), { count: true, flag: 1, name: null });
  });

  it('turns a non-negative JSON integer into digits only for a string field that opts in', () => {
    const Code = Type.Object({ code: StringAcceptingInteger({ pattern: '^\\d{1,10}$' }), plain: Type.String() });
    assert.equal((Code.properties.code as unknown as Record<string, unknown>)[ACCEPTS_INTEGER], true);
    assert.deepEqual(coerceBody(Code, { code: 42, plain: 42 }), { code: '42', plain: 42 });
    assert.deepEqual(coerceBody(Code, { code: 0 }), { code: '0' });
    assert.deepEqual(coerceBody(Code, { code: '0042' }), { code: '0042' });
    for (const bad of [-1, 1.5, 2 ** 53, 1e21, true, null])
      assert.deepEqual(coerceBody(Code, { code: bad }), { code: bad });
  });

  it('follows nested objects, arrays, tuples, records, additionalProperties and allOf', () => {
    const Deep = Type.Object({
      unit: Type.Object({ id: Type.Integer(), tags: Type.Array(Type.Integer()) }),
      pairs: Type.Array(Type.Object({ on: Type.Boolean() })),
      tuple: Type.Tuple([Type.Integer(), Type.Boolean()]),
      counts: Type.Record(Type.String(), Type.Integer()),
    });
    assert.deepEqual(
      coerceBody(Deep, {
        unit: { id: '7', tags: ['1', 'x', 2] },
        pairs: [{ on: 'true' }, { on: 'nope' }],
        tuple: ['3', 'FALSE'],
        counts: { a: '1', b: 'b' },
      }),
      {
        unit: { id: 7, tags: [1, 'x', 2] },
        pairs: [{ on: true }, { on: 'nope' }],
        tuple: [3, false],
        counts: { a: 1, b: 'b' },
      },
    );
    const raw = {
      type: 'object',
      properties: { known: { type: 'boolean' } },
      additionalProperties: { type: 'integer' },
      allOf: [{ type: 'object', properties: { also: { type: 'integer' } } }],
    };
    assert.deepEqual(coerceBody(raw, { known: 'true', other: '5', also: '6' }), { known: true, other: 5, also: 6 });
  });

  it('takes a union’s branch that fits the value as it is, else the first that can read it', () => {
    const Unions = Type.Object({
      id: Nullable(Type.Integer()),
      either: Type.Union([Type.String(), Type.Integer()]),
      unit: Nullable(Type.Object({ id: Type.Integer() })),
      flags: Nullable(Type.Array(Type.Boolean())),
    });
    assert.deepEqual(coerceBody(Unions, { id: '12', either: '12', unit: { id: '3' }, flags: ['true', 'False'] }), {
      id: 12,
      either: '12',
      unit: { id: 3 },
      flags: [true, false],
    });
    assert.deepEqual(coerceBody(Unions, { id: null, unit: null, flags: null }), { id: null, unit: null, flags: null });
    assert.deepEqual(coerceBody(Unions, { id: 'x' }), { id: 'x' });
  });

  it('does not enter what the schema leaves open (extendedData keeps its strings)', () => {
    const body = { unitNumber: '12', extendedData: { balance: '12', active: 'true', nested: { n: '1' } } };
    assert.deepEqual(coerceBody(CreateUnitBody, copy(body)), body);
  });

  it('coerces a form body (every field a string, in the form parser’s dictionary)', () => {
    // What the form parser (http/bodies.ts) makes: an object without a prototype.
    const dictionary = Object.create(null) as Record<string, unknown>;
    const form = Object.assign(dictionary, {
      accessCode: '0042',
      firstName: 'Ada',
      lastName: 'L',
      isTenant: 'True',
      timeGroupId: '3',
      accessProfileId: '0',
    });
    assert.deepEqual(
      { ...(coerceBody(CreateVisitorBody, form) as object) },
      {
        accessCode: '0042',
        firstName: 'Ada',
        lastName: 'L',
        isTenant: true,
        timeGroupId: 3,
        accessProfileId: 0,
      },
    );
  });

  it('serves integer ids without change: a schema whose ids are integers reads "12" as 12', () => {
    const IntegerIds = Type.Object({
      ...CreateVisitorBody.properties,
      unitId: Nullable(Type.Integer({ minimum: 1 })),
    });
    const coerced = coerceBody(IntegerIds, {
      unitId: '12',
      accessCode: 5551234,
      firstName: 'A',
      lastName: 'B',
      isTenant: 'false',
      isPortalVisitor: 'TRUE',
      timeGroupId: null,
    });
    assert.deepEqual(coerced, {
      unitId: 12,
      accessCode: '5551234',
      firstName: 'A',
      lastName: 'B',
      isTenant: false,
      isPortalVisitor: true,
      timeGroupId: null,
    });
  });

  it('leaves a validator to name each refused field, with the type it wants', () => {
    const IntegerIds = Type.Object({ ...UpdateVisitorBody.properties, unitId: Type.Integer({ minimum: 1 }) });
    const validate = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(
      withSafeIntegers(IntegerIds) as object,
    );
    for (const bad of BAD_INTEGERS) {
      const body = coerceBody(IntegerIds, { unitId: bad, timeGroupId: bad, isTenant: 'yes' });
      assert.equal(validate(body), false);
      assert.deepEqual(
        faultsFromAjv(validate.errors ?? []),
        [
          { path: 'unitId', message: 'must be a whole number of at least 1' },
          { path: 'isTenant', message: 'must be true or false' },
          { path: 'timeGroupId', message: 'must be a whole number of at least 0 or null' },
        ],
        JSON.stringify(bad),
      );
    }
  });

  it('lists, for the OpenAPI description, which fields accept strings', () => {
    const fields = lenientFields(CreateVisitorBody);
    // unitId joins the integers when unit ids become integers; nothing here needs to change then.
    assert.deepEqual(
      fields.integers.filter((path) => path !== 'unitId'),
      ['timeGroupId', 'accessProfileId'],
    );
    assert.deepEqual(fields.booleans, ['isTenant', 'isPortalVisitor', 'suppressCommands']);
    assert.deepEqual(fields.digitStrings, ['accessCode']);
    const text = lenientDescription(CreateVisitorBody);
    for (const part of ['application/json-patch+json', 'application/x-www-form-urlencoded', '`timeGroupId`', '"12"'])
      assert.ok(text.includes(part), part);
  });
});

describe('lenient bodies through the access-control face', () => {
  let groups: { id: number; name: string; isDefault: boolean }[];
  let profiles: { id: number; name: string; isDefault: boolean }[];
  const site = tenantFixture({
    async started(t) {
      const { client, path } = pms(t, site.account.token, site.facilityId);
      groups = await ok(client.GET('/facilities/{facilityId}/timegroups', { params: { path } }), 200);
      profiles = await ok(client.GET('/facilities/{facilityId}/accessprofiles', { params: { path } }), 200);
    },
  });
  const { t } = site;
  const api = () => pms(t, site.account.token, site.facilityId);
  /** Bodies the document's types do not allow (strings for numbers and booleans, a code as a number). */
  const lenient = () => malformed(t, site.account.token, site.facilityId);

  /** A POST to the face with a body sent as is, in the given content type. */
  async function send(path: string, contentType: string, payload: string): Promise<Reply> {
    const response = await t.app.inject({
      method: 'POST',
      url: `/facilities/${site.facilityId}${path}`,
      headers: { ...bearer(site.account.token), 'content-type': contentType },
      payload,
    });
    let body: any = null;
    try {
      body = response.body ? JSON.parse(response.body) : null;
    } catch {
      body = response.body;
    }
    return { status: response.statusCode, body, headers: response.headers };
  }

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const business = () => groups.find((g) => g.name === 'Business Hours')!;
  const gateOnly = () => profiles.find((p) => p.name === 'Gate Only')!;

  it('creates a unit with suppressCommands sent as a string ("true" makes no command, "False" one)', async () => {
    const before = (await api().commands({ limit: 1000 })).length;
    const quiet = await lenient().post('/units', { unitNumber: 'L1', suppressCommands: 'true' });
    assert.equal(quiet.status, 201, JSON.stringify(quiet.body));
    assert.equal((await api().commands({ limit: 1000 })).length, before);
    const loud = await lenient().post('/units', { unitNumber: 'L2', suppressCommands: 'False' });
    assert.equal(loud.status, 201, JSON.stringify(loud.body));
    assert.equal((await api().commands({ limit: 1000 })).length, before + 1);
  });

  it('creates a visitor with ids, booleans and the time group / access profile as strings, the code as a number', async () => {
    const unit = await api().unit('L3');
    const r = await lenient().post('/visitors', {
      unitId: String(unit.id),
      accessCode: 4242,
      firstName: 'Strings',
      lastName: 'Everywhere',
      isTenant: 'TRUE',
      isPortalVisitor: 'false',
      timeGroupId: String(business().id),
      accessProfileId: String(gateOnly().id),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const v = r.body.visitor;
    assert.equal(v.isTenant, true);
    assert.equal(v.isPortalVisitor, false);
    assert.equal(v.timeGroupName, 'Business Hours');
    assert.equal(v.accessProfileName, 'Gate Only');
    assert.equal(r.body.unit.status, 'Rented');
    // The code 4242 was stored as the digits "4242": the same code as a string is now taken.
    const again = await refused(
      api().client.POST('/facilities/{facilityId}/visitors', {
        params: { path: api().path },
        body: { unitId: unit.id, accessCode: '4242', firstName: 'Second', lastName: 'Holder', isTenant: false },
      }),
      400,
    );
    assert.equal(again.code, 'ACCESS_CODE_IN_USE');
    // "0" means the default, as 0 does; an update takes strings as well.
    const update = await lenient().post(`/visitors/${v.id}/update`, { timeGroupId: '0', accessProfileId: null });
    assert.equal(update.status, 200, JSON.stringify(update.body));
    assert.equal(update.body.timeGroupId, groups.find((g) => g.isDefault)!.id);
    assert.equal(update.body.accessProfileId, profiles.find((p) => p.isDefault)!.id);
  });

  it('takes application/json-patch+json as JSON', async () => {
    const unit = await send('/units', 'application/json-patch+json', JSON.stringify({ unitNumber: 'L4' }));
    assert.equal(unit.status, 201, JSON.stringify(unit.body));
    const visitor = await send(
      '/visitors',
      'application/json-patch+json; charset=utf-8',
      JSON.stringify({
        unitId: unit.body.id,
        accessCode: '4040',
        firstName: 'Patch',
        lastName: 'Json',
        isTenant: 'true',
      }),
    );
    assert.equal(visitor.status, 201, JSON.stringify(visitor.body));
    assert.equal(visitor.body.unit.status, 'Rented');
  });

  it('takes a form-encoded body: every field a string, read by the same rules; a code keeps its leading zeros', async () => {
    const unit = await send(
      '/units',
      'application/x-www-form-urlencoded',
      form({ unitNumber: 'L5', suppressCommands: 'False' }),
    );
    assert.equal(unit.status, 201, JSON.stringify(unit.body));
    const visitor = await send(
      '/visitors',
      'application/x-www-form-urlencoded',
      form({
        unitId: String(unit.body.id),
        accessCode: '007777',
        firstName: 'Form',
        lastName: 'Post',
        isTenant: 'True',
        isPortalVisitor: 'FALSE',
        timeGroupId: String(business().id),
        accessProfileId: '0',
      }),
    );
    assert.equal(visitor.status, 201, JSON.stringify(visitor.body));
    assert.equal(visitor.body.visitor.isTenant, true);
    assert.equal(visitor.body.visitor.timeGroupName, 'Business Hours');
    assert.equal(visitor.body.visitor.accessProfileName, 'All Access');
    // "007777" kept its zeros: 7777 is another code, "007777" the same one.
    const other = await lenient().post('/visitors', {
      unitId: unit.body.id,
      accessCode: 7777,
      firstName: 'N',
      lastName: 'Z',
      isTenant: false,
    });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    await refused(
      api().client.POST('/facilities/{facilityId}/visitors', {
        params: { path: api().path },
        body: { unitId: unit.body.id, accessCode: '007777', firstName: 'S', lastName: 'Z', isTenant: false },
      }),
      400,
    );
  });

  for (const contentType of ['application/json', 'application/json-patch+json', 'application/x-www-form-urlencoded']) {
    it(`answers every action route with an empty ${contentType} body`, async () => {
      const unit = await api().unit(`E-${contentType.slice(12, 20)}`);
      const { visitor } = await api().visitor(unit.id, String(1000 + contentType.length));
      const empty = (path: string) => send(path, contentType, '');
      const steps: [string, number, (body: any) => void][] = [
        [`/units/${unit.id}/disable`, 200, (b) => assert.equal(b.status, 'Delinquent')],
        [`/units/${unit.id}/enable`, 200, (b) => assert.equal(b.status, 'Rented')],
        [`/visitors/${visitor.id}/disable`, 200, (b) => assert.equal(b.isEnabled, false)],
        [`/visitors/${visitor.id}/enable`, 200, (b) => assert.equal(b.isEnabled, true)],
        ['/units/refresh', 202, (b) => assert.equal(b.command.type, 'units.refresh')],
        ['/visitors/refresh', 202, (b) => assert.equal(b.command.type, 'visitors.refresh')],
        [`/visitors/${visitor.id}/remove`, 204, () => {}],
        [`/units/${unit.id}/vacate`, 200, (b) => assert.equal(b.status, 'Vacant')],
        [`/units/${unit.id}/delete/vacant`, 200, (b) => assert.equal(b, true)],
      ];
      for (const [path, status, check] of steps) {
        const r = await empty(path);
        assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
        check(r.body);
      }
    });
  }

  it('refuses every bad string for an integer, and "yes" for a boolean: 400 problem+json naming the field', async () => {
    const unit = await api().unit('L6');
    for (const bad of BAD_INTEGERS) {
      const r = await lenient().post('/visitors', {
        unitId: unit.id,
        accessCode: '6060',
        firstName: 'Bad',
        lastName: 'Input',
        isTenant: true,
        timeGroupId: bad,
      });
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(
        r.body.errors,
        [{ path: 'timeGroupId', message: 'must be a whole number of at least 0 or null' }],
        JSON.stringify(bad),
      );
    }
    for (const bad of BAD_BOOLEANS) {
      const r = await lenient().post('/units', { unitNumber: 'L7', suppressCommands: bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.deepEqual(
        r.body.errors,
        [{ path: 'suppressCommands', message: 'must be true or false' }],
        JSON.stringify(bad),
      );
    }
    // Every bad field at once, from a form: one 400 names them all; nothing was applied.
    const all = await send(
      '/visitors',
      'application/x-www-form-urlencoded',
      form({
        unitId: String(unit.id),
        accessCode: '12a',
        firstName: 'All',
        lastName: 'Bad',
        isTenant: 'yes',
        isPortalVisitor: 'no',
        timeGroupId: '1e3',
        accessProfileId: '0x10',
      }),
    );
    assert.equal(all.status, 400);
    assert.deepEqual(all.body.errors.map((e: { path: string }) => e.path).sort(), [
      'accessCode',
      'accessProfileId',
      'isPortalVisitor',
      'isTenant',
      'timeGroupId',
    ]);
    const unitPath = { params: { path: { ...api().path, unitId: unit.id } } };
    assert.equal(
      (await ok(api().client.GET('/facilities/{facilityId}/units/{unitId}', unitPath), 200)).status,
      'Vacant',
    );
    // A JSON number of the right type but out of range: the integer branch of the union says why.
    const negative = await refused(
      api().client.POST('/facilities/{facilityId}/visitors', {
        params: { path: api().path },
        body: {
          unitId: unit.id,
          accessCode: '6061',
          firstName: 'Neg',
          lastName: 'Ative',
          isTenant: true,
          timeGroupId: -1,
        },
      }),
      400,
    );
    assert.deepEqual(negative.errors, [{ path: 'timeGroupId', message: 'must be a whole number of at least 0' }]);
    // A form field is checked for NUL characters like a JSON string (PostgreSQL cannot store them).
    const nul = await send('/units', 'application/x-www-form-urlencoded', 'unitNumber=A%00B');
    assert.equal(nul.status, 400);
    assert.deepEqual(nul.body.errors, [{ path: 'unitNumber', message: 'must not contain a NUL character' }]);
    // A code as a number too large, negative or not whole: the code's rule, never the code.
    for (const accessCode of [12345678901, -5, 4.5]) {
      const r = await lenient().post('/visitors', {
        unitId: unit.id,
        accessCode,
        firstName: 'C',
        lastName: 'D',
        isTenant: true,
      });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.errors, [{ path: 'accessCode', message: 'must be 4 to 10 digits' }]);
    }
  });

  it('describes the rules in the OpenAPI document, on the face’s operations only', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/swagger/v3.0.json' })).json();
    const create = doc.paths['/facilities/{facilityId}/visitors'].post;
    assert.deepEqual(Object.keys(create.requestBody.content), [
      'application/json',
      'application/json-patch+json',
      'application/x-www-form-urlencoded',
    ]);
    assert.match(create.description, /\*\*Compatibility\*\*/);
    for (const field of ['timeGroupId', 'accessProfileId', 'isTenant', 'isPortalVisitor', 'accessCode'])
      assert.ok(create.description.includes(`\`${field}\``), field);
    // The body is the named CreateVisitorRequest.
    const ref: string = create.requestBody.content['application/json'].schema.$ref;
    const code = doc.components.schemas[ref.split('/').pop()!].properties.accessCode;
    assert.equal(code.type, 'string');
    assert.equal(code[ACCEPTS_INTEGER], true);
    const disable = doc.paths['/facilities/{facilityId}/units/{unitId}/disable'].post;
    assert.match(disable.description, /\*\*Compatibility\*\*/);
    const admin = doc.paths['/admin/facilities'].post;
    assert.deepEqual(Object.keys(admin.requestBody.content), ['application/json']);
    assert.doesNotMatch(admin.description ?? '', /Compatibility/);
  });
});

describe('every other face stays strict, and a GET with a content type and no body works everywhere', () => {
  const site = tenantFixture();
  const { t } = site;

  it('the admin face refuses "true" for a boolean, in JSON and in a form, and json-patch+json altogether', async () => {
    const operator = await operatorToken(t);
    const body = {
      accountId: site.account.accountId,
      name: 'Strict',
      timeZone: 'America/Denver',
      charityEnrolled: 'true',
    };
    const json = await t.app.inject({
      method: 'POST',
      url: '/admin/facilities',
      headers: bearer(operator),
      payload: body,
    });
    assert.equal(json.statusCode, 400, json.body);
    assert.deepEqual(json.json().errors, [{ path: 'charityEnrolled', message: 'must be true or false' }]);
    const form = await t.app.inject({
      method: 'POST',
      url: '/admin/facilities',
      headers: { ...bearer(operator), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...body, accountId: String(body.accountId) }).toString(),
    });
    assert.equal(form.statusCode, 400, form.body);
    // A form's every value is text: strict, the admin face reads neither the id nor the flag.
    assert.deepEqual(form.json().errors, [
      { path: 'accountId', message: 'must be a whole number of at least 1' },
      { path: 'charityEnrolled', message: 'must be true or false' },
    ]);
    const patch = await t.app.inject({
      method: 'POST',
      url: '/admin/accounts',
      headers: { ...bearer(operator), 'content-type': 'application/json-patch+json' },
      payload: JSON.stringify({ name: 'x' }),
    });
    assert.equal(patch.statusCode, 415, patch.body);
    // The JSON string "" is a body, and not an object: no "no body" reading here (issue 26's is the face's).
    const nothing = await t.app.inject({
      method: 'POST',
      url: '/admin/accounts',
      headers: { ...bearer(operator), 'content-type': 'application/json' },
      payload: '""',
    });
    assert.equal(nothing.statusCode, 400, nothing.body);
    assert.equal(nothing.json().errors[0].path, 'body');
    // Nor is "" a missing number there: the admin face's 400 names the field, and has no incumbent members.
    const blank = await t.app.inject({
      method: 'POST',
      url: '/admin/facilities',
      headers: bearer(operator),
      payload: { ...body, charityEnrolled: '' },
    });
    assert.equal(blank.statusCode, 400, blank.body);
    assert.deepEqual(blank.json().errors, [{ path: 'charityEnrolled', message: 'must be true or false' }]);
    assert.equal(blank.json().CharityEnrolled, undefined);
  });

  it('the gateway face refuses "12" for an event type', async () => {
    const gateway = await gatewayToken(t, site.account.facilities[0]!.id);
    const response = await t.app.inject({
      method: 'POST',
      url: '/gateway/v1/events',
      headers: bearer(gateway.token),
      payload: { events: [{ eventId: 'strict-1', eventType: '12', occurredAt: new Date().toISOString() }] },
    });
    assert.equal(response.statusCode, 200, response.body);
    const answer = response.json();
    assert.equal(answer.accepted, 0);
    assert.equal(answer.rejected[0].path, 'events[0].eventType');
  });

  it('answers every GET route of the API document alike with and without Content-Type: application/json and an empty body', async () => {
    const facilityId = site.account.facilities[0]!.id;
    const api = pms(t, site.account.token, facilityId);
    const unit = await api.unit('G1');
    const { visitor } = await api.visitor(unit.id, '3131');
    const values: Record<string, string> = {
      facilityId: String(facilityId),
      unitId: String(unit.id),
      visitorId: String(visitor.id),
    };
    const doc = (await t.app.inject({ method: 'GET', url: '/swagger/v3.0.json' })).json();
    // The live streams answer without end (inject would wait for ever): test/events/stream.test.ts
    // opens them with and without the content type, over real HTTP.
    const paths = Object.keys(doc.paths).filter((path) => doc.paths[path].get && !path.endsWith('/stream'));
    assert.ok(paths.length > 20, `${paths.length} GET routes`);
    for (const path of [...paths, '/swagger/v3.0.json', '/swagger/v2.0.json']) {
      // A route with a required query gets one (GET /facilities/detail needs the property number).
      const query =
        path === '/facilities/detail' ? `?propertyNumber=${site.account.facilities[0]!.propertyNumber}` : '';
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '1') + query;
      const plain = await t.app.inject({ method: 'GET', url, headers: bearer(site.account.token) });
      const typed = await t.app.inject({
        method: 'GET',
        url,
        headers: { ...bearer(site.account.token), 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(typed.statusCode, plain.statusCode, `${url}: ${typed.body.slice(0, 200)}`);
      assert.ok(![400, 415, 500].includes(typed.statusCode), `${url}: ${typed.statusCode}`);
    }
    const facility = await t.app.inject({
      method: 'GET',
      url: `/facilities/${facilityId}/visitors/${visitor.id}`,
      headers: { ...bearer(site.account.token), 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(facility.statusCode, 200);
    assert.equal(facility.json().id, visitor.id);
  });
});
