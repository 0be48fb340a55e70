// The API descriptions as a product (issue 15): every operation named and answering its errors,
// every shared object a named schema, examples on the main operations, and the committed
// documents and client types what the service serves.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { ALL_SCOPES } from '../../src/http/caller.ts';
import { requireOperationIds } from '../../src/http/docs.ts';
import type { App } from '../../src/http/app-type.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

let t: TestApp;
const documents: Record<string, Doc> = {};

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  description?: string;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
}
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, unknown>;
}
interface Doc {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Json>; securitySchemes?: Record<string, Json> };
}

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  );

before(async () => {
  t = await startTestApp({ env: { PUBLIC_URL: 'https://gatehouse.example.com/' } });
  for (const version of ['3.0', '2.0', '1.0']) {
    documents[version] = (await t.app.inject({ method: 'GET', url: `/swagger/v${version}.json` })).json();
  }
});
after(() => t.close());

describe('the OpenAPI documents', () => {
  it('name the server from PUBLIC_URL', () => {
    for (const doc of Object.values(documents))
      assert.deepEqual(
        doc.servers?.map((s) => s.url),
        ['https://gatehouse.example.com'],
      );
  });

  it('give every operation a unique, domain-named operationId', () => {
    for (const [version, doc] of Object.entries(documents)) {
      const seen = new Map<string, string>();
      const missing: string[] = [];
      for (const { name, operation } of operations(doc)) {
        const id = operation.operationId;
        if (!id) missing.push(name);
        else {
          assert.match(id, /^[a-z][a-zA-Z0-9]+$/, `${name}: ${id} is lowerCamelCase`);
          assert.ok(!seen.has(id), `${id} names both ${seen.get(id)} and ${name} (v${version})`);
          seen.set(id, name);
        }
      }
      assert.deepEqual(missing, [], `v${version}: operations without an operationId`);
    }
  });

  it('document every answer: a success, the errors the mechanisms give, each with a description and a body', () => {
    const faults: string[] = [];
    for (const [version, doc] of Object.entries(documents)) {
      for (const { name, operation } of operations(doc)) {
        const statuses = Object.keys(operation.responses);
        const where = `v${version} ${name}`;
        if (!statuses.some((s) => /^2/.test(s))) faults.push(`${where}: no 2xx answer`);
        if (!Array.isArray(operation.security)) faults.push(`${where}: no security entry`);
        const secured = (operation.security ?? []).length > 0;
        const takesInput = Boolean(operation.requestBody || operation.parameters?.length);
        const expected = ['429', '503', ...(secured ? ['401', '403'] : []), ...(takesInput ? ['400'] : [])];
        for (const status of expected) if (!statuses.includes(status)) faults.push(`${where}: ${status} undocumented`);
        for (const [status, answer] of Object.entries(operation.responses)) {
          if (!answer.description || answer.description === 'Default Response')
            faults.push(`${where} ${status}: no description`);
          if (Number(status) >= 400 && !answer.content) faults.push(`${where} ${status}: no body`);
        }
      }
    }
    assert.deepEqual(faults, []);
  });

  it('write out no object twice: an object used in more than one place is a named schema', () => {
    const doc = documents['3.0']!;
    const places = new Map<string, string[]>();
    const visit = (value: unknown, pointer: string, top: boolean) => {
      if (Array.isArray(value)) {
        value.forEach((item, i) => {
          visit(item, `${pointer}/${i}`, false);
        });
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      const schema = value as Json;
      if (!top && schema.type === 'object' && schema.properties && Object.keys(schema.properties).length > 1) {
        const key = JSON.stringify(schema);
        places.set(key, [...(places.get(key) ?? []), pointer]);
      }
      for (const [key, item] of Object.entries(schema)) visit(item, `${pointer}/${key}`, false);
    };
    visit(doc.paths, '#/paths', false);
    for (const [name, schema] of Object.entries(doc.components.schemas ?? {})) {
      visit(schema, `#/components/schemas/${name}`, true);
    }
    const repeated = [...places.values()].filter((at) => at.length > 1).map((at) => at.join('\n  '));
    assert.deepEqual(repeated, [], `objects written out more than once:\n${repeated.join('\n')}`);
  });

  it('refer only to named schemas that exist', () => {
    const doc = documents['3.0']!;
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(doc.components.schemas?.[name!], `${name} is referred to but not defined`);
    }
    assert.ok(Object.keys(doc.components.schemas ?? {}).length >= 20, 'the shared objects are named');
  });

  it('offer a log-in: the token endpoint as an oauth2 scheme, password and client-credentials flows, every scope described', () => {
    for (const [version, doc] of Object.entries(documents)) {
      const scheme = doc.components.securitySchemes?.oauth2 as
        | { type: string; flows: Record<string, { tokenUrl: string; scopes: Record<string, string> }> }
        | undefined;
      assert.equal(scheme?.type, 'oauth2', `v${version}`);
      assert.deepEqual(Object.keys(scheme.flows).sort(), ['clientCredentials', 'password'], `v${version}`);
      for (const [name, flow] of Object.entries(scheme.flows)) {
        assert.equal(flow.tokenUrl, '/auth/token', `v${version} ${name}`);
        assert.deepEqual(Object.keys(flow.scopes).sort(), [...ALL_SCOPES].sort(), `v${version} ${name}`);
        for (const [scope, description] of Object.entries(flow.scopes))
          assert.ok(description.length > 10, `v${version} ${name}: ${scope} is described`);
      }
      assert.equal(doc.components.securitySchemes?.bearerAuth?.scheme, 'bearer', `v${version}: a token can be pasted`);
      // Every protected operation takes either scheme, with the same scopes.
      for (const { name, operation } of operations(doc)) {
        const [oauth2, bearer, ...more] = (operation.security ?? []) as Record<string, string[]>[];
        if (!oauth2) continue;
        assert.deepEqual([oauth2, bearer, ...more], [{ oauth2: oauth2.oauth2 }, { bearerAuth: oauth2.oauth2 }], name);
      }
    }
  });

  it('state the scope an operation needs once', () => {
    for (const { name, operation } of operations(documents['3.0']!)) {
      const lines = (operation.description ?? '').match(/Requires a bearer token/g) ?? [];
      assert.ok(lines.length <= 1, `${name}: the scope line ${lines.length} times`);
      assert.equal(lines.length, (operation.security ?? []).length > 0 ? 1 : 0, name);
    }
  });

  it('offer a query parameter with fixed values as an enum, sort with both orders', () => {
    const faults: string[] = [];
    let sorts = 0;
    for (const [version, doc] of Object.entries(documents)) {
      for (const { name, operation } of operations(doc)) {
        for (const parameter of (operation.parameters ?? []) as { name: string; in: string; schema: Json }[]) {
          if (parameter.in !== 'query') continue;
          // TypeBox's union of literals reads as one value per branch in Swagger UI (only the first shows).
          const branches = parameter.schema.anyOf as Json[] | undefined;
          if (branches?.some((branch) => Array.isArray(branch.enum) || 'const' in branch))
            faults.push(`v${version} ${name} ${parameter.name}: a union of literals, not an enum`);
          if (parameter.name === 'sort') {
            sorts++;
            assert.deepEqual(parameter.schema.enum, ['desc', 'asc'], `v${version} ${name}`);
          }
        }
      }
    }
    assert.deepEqual(faults, []);
    assert.ok(sorts >= 4, `${sorts} sort parameters`);
  });

  it('describe every field of the token request', () => {
    const schema = documents['3.0']!.components.schemas?.TokenRequest as { properties: Record<string, Json> };
    for (const field of ['grant_type', 'client_id', 'client_secret', 'username', 'password', 'refresh_token', 'scope'])
      assert.ok(String(schema.properties[field]?.description ?? '').length > 20, `${field} is described`);
  });

  // The main operations of each face carry a request example (when they take a body) and an answer's.
  const MAIN_OPERATIONS = [
    'issueToken',
    'createAccount',
    'importAuctions',
    'cancelAuction',
    'listAuctions',
    'createUnit',
    'createVisitor',
    'listVisitors',
    'getFacilityStatus',
    'reportGatewayEvents',
    'pollGatewayCommands',
    'listFacilityGatewayEvents',
    'listAccountGatewayEvents',
    'createWebhookSubscription',
    'listWebhookDeliveries',
  ];
  it('carry request and answer examples on the main operations of each face', () => {
    const doc = documents['3.0']!;
    const byId = new Map(operations(doc).map(({ operation }) => [operation.operationId, operation]));
    const hasExample = (media: Media | undefined) => {
      if (!media) return false;
      if (media.example !== undefined || media.examples) return true;
      const ref = media.schema?.$ref;
      const schema = typeof ref === 'string' ? doc.components.schemas?.[ref.split('/').pop()!] : media.schema;
      return Array.isArray(schema?.examples) && schema.examples.length > 0;
    };
    const faults: string[] = [];
    for (const id of MAIN_OPERATIONS) {
      const operation = byId.get(id);
      if (!operation) {
        faults.push(`${id}: no such operation`);
        continue;
      }
      if (operation.requestBody && !Object.values(operation.requestBody.content).some(hasExample))
        faults.push(`${id}: no request example`);
      const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
      if (success?.content && !Object.values(success.content).some(hasExample)) faults.push(`${id}: no answer example`);
    }
    assert.deepEqual(faults, []);
  });
});

describe('a documented route', () => {
  // The hook throws as the route is added (fastify's onRoute), so that start-up fails.
  const scopeWith = async (...routes: [string, Record<string, unknown>][]) => {
    const app = Fastify();
    try {
      requireOperationIds(app as unknown as App);
      for (const [url, schema] of routes) app.get(url, { schema }, async () => ({}));
      await app.ready();
    } finally {
      await app.close();
    }
  };

  it('is refused at start-up without an operationId, with a malformed one, or with another route’s', async () => {
    await assert.rejects(scopeWith(['/things', {}]), /GET \/things does not declare schema.operationId/);
    await assert.rejects(scopeWith(['/things', { operationId: 'List_things' }]), /not lowerCamelCase/);
    await assert.rejects(
      scopeWith(['/things', { operationId: 'listThings' }], ['/stuff', { operationId: 'listThings' }]),
      /share operationId listThings/,
    );
  });

  it('is accepted with its own operationId; a hidden route needs none', async () => {
    await scopeWith(['/things', { operationId: 'listThings' }], ['/page', { hide: true }]);
  });
});
