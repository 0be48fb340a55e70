// The contract check of the end-to-end tests: every answer the typed client receives must be one the
// served API description documents — a documented status of the operation, a documented media type,
// and a JSON body valid against the operation's response schema, CLOSED (a field the document does
// not name is a violation, as a wrong type is). The document is proven by our own use of it.
//
// The served v3.0 document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12: Ajv compiles the
// whole document once (so `#/components/schemas/X` references resolve) and validates each body
// against `<id>#/paths/<path>/<method>/responses/<status>/content/<media type>/schema`.
import assert from 'node:assert/strict';
import type { Middleware } from 'openapi-fetch';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = any;

/** What one answer broke: which operation, which status, where in the body, and why. */
export interface Violation {
  operation: string;
  status: number;
  /** A JSON pointer into the body ('' for the whole answer). */
  pointer: string;
  message: string;
}

export interface ContractCheck {
  /** The openapi-fetch middleware: checks every response, throws an AssertionError on a violation. */
  middleware: Middleware;
  /** The violations of one answer (for the check's own tests); empty when it conforms. */
  check(method: string, schemaPath: string, response: Response): Promise<Violation[]>;
  /** Every violation seen so far, across every answer checked. */
  violations: Violation[];
}

const DOCUMENT_ID = 'https://gatehouse.test/openapi/v3.0.json';
const JSON_MEDIA = new Set(['application/json', 'application/problem+json']);
const checks = new Map<string, Promise<ContractCheck>>();

/** The contract check of the server at `base`, from the document it serves (fetched once per base). */
export function contractFor(base: string): Promise<ContractCheck> {
  let check = checks.get(base);
  if (!check) {
    check = fetch(`${base}/swagger/v3.0.json`).then(async (response) => {
      assert.equal(response.status, 200, 'the server serves its v3.0 document');
      return contractCheck((await response.json()) as Json);
    });
    // A failed fetch (a server not up yet) is not remembered.
    check.catch(() => checks.delete(base));
    checks.set(base, check);
  }
  return check;
}

/** The contract check as a middleware of a client of the server at `base`. */
export function contractMiddleware(base: string): Middleware {
  return {
    async onResponse(params) {
      const { middleware } = await contractFor(base);
      return middleware.onResponse?.(params);
    },
  };
}

/** The contract check of one document. */
export function contractCheck(document: Json): ContractCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // OpenAPI's numeric formats say how wide a number is; JSON Schema has no such format.
  for (const format of ['int32', 'int64', 'float', 'double']) ajv.addFormat(format, true);
  ajv.addSchema(closed(document), DOCUMENT_ID);
  const validators = new Map<string, ValidateFunction>();
  const violations: Violation[] = [];

  async function check(method: string, schemaPath: string, response: Response): Promise<Violation[]> {
    const lower = method.toLowerCase();
    const operationObject = document.paths?.[schemaPath]?.[lower];
    const operation = `${operationObject?.operationId ?? '(no operationId)'} (${method.toUpperCase()} ${schemaPath})`;
    const found: Violation[] = [];
    const violation = (pointer: string, message: string) =>
      found.push({ operation, status: response.status, pointer, message });
    if (!operationObject) {
      violation('', 'the operation is not in the document');
      return found;
    }
    const responses = operationObject.responses ?? {};
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) {
      violation('', `status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
      return found;
    }
    const content: Record<string, Json> = responses[key].content ?? {};
    const text = await response.clone().text();
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (text === '' && !mediaType) {
      if (Object.keys(content).length > 0) violation('', 'the answer has no body, the document says it has one');
      return found;
    }
    if (!(mediaType in content)) {
      violation(
        '',
        `media type ${mediaType || '(none)'} is not documented (documented: ${Object.keys(content).join(', ') || 'no body'})`,
      );
      return found;
    }
    // Other media (CSV, an event stream, an image): the status and the media type are what the document says.
    if (!JSON_MEDIA.has(mediaType) || !content[mediaType].schema) return found;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      violation('', `the ${mediaType} body is not JSON: ${text.slice(0, 100)}`);
      return found;
    }
    const pointer = ['paths', schemaPath, lower, 'responses', key, 'content', mediaType, 'schema']
      .map((part) => encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1')))
      .join('/');
    const ref = `${DOCUMENT_ID}#/${pointer}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    if (!validate(body)) {
      for (const error of validate.errors ?? []) {
        const field = error.params.additionalProperty ?? error.params.unevaluatedProperty;
        violation(field === undefined ? error.instancePath : `${error.instancePath}/${field}`, reason(error));
      }
    }
    return found;
  }

  return {
    violations,
    check,
    middleware: {
      async onResponse({ request, response, schemaPath }) {
        const found = await check(request.method, schemaPath, response);
        if (found.length === 0) return;
        violations.push(...found);
        assert.fail(
          `the answer differs from the API description:\n${found
            .map((v) => `  ${v.operation} → ${v.status}: ${v.pointer ? `${v.pointer} ` : ''}${v.message}`)
            .join('\n')}`,
        );
      },
    },
  };
}

function reason(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    return 'is a field the document does not name';
  }
  return `${error.message} (schema ${decodeURIComponent(error.schemaPath.replace(DOCUMENT_ID, ''))})`;
}

/**
 * A copy of the document in which every object schema that leaves its extra fields unsaid is closed:
 * additionalProperties: false. The members of an allOf are completed by one another, so they stay
 * open and the allOf itself is closed (unevaluatedProperties sees through allOf and $ref); a named
 * schema referred to from an allOf is referred to in an open copy of it (x-open-schemas).
 */
function closed(document: Json): Json {
  const close = (schema: Json, open = false): Json => {
    if (Array.isArray(schema)) return schema.map((item) => close(item));
    if (!schema || typeof schema !== 'object') return schema;
    const copy: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'allOf' && Array.isArray(value)) {
        copy.allOf = value.map((member: Json) =>
          typeof member?.$ref === 'string'
            ? { $ref: member.$ref.replace('#/components/schemas/', '#/x-open-schemas/') }
            : close(member, true),
        );
      } else if (key === 'properties' && value && typeof value === 'object') {
        copy.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, close(s)]));
      } else if (key === 'example' || key === 'examples') {
        copy[key] = value;
      } else {
        copy[key] = close(value);
      }
    }
    const unsaid = !('additionalProperties' in schema) && !('patternProperties' in schema);
    if (unsaid && !open) {
      if ('allOf' in schema && !('unevaluatedProperties' in schema)) copy.unevaluatedProperties = false;
      else if (schema.type === 'object' || 'properties' in schema) copy.additionalProperties = false;
    }
    return copy;
  };
  const copy = close(document);
  const named: Record<string, Json> = document.components?.schemas ?? {};
  copy['x-open-schemas'] = Object.fromEntries(Object.entries(named).map(([name, s]) => [name, close(s, true)]));
  return copy;
}
