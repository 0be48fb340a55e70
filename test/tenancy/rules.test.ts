// The tenancy face's pure input rules (src/tenancy/rules.ts), without a database or HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../src/errors.ts';
import { firstAddressLine } from '../../src/tenancy/rules.ts';

describe("a facility's first street line: addressLine1, or addressLine, its deprecated alias", () => {
  const line = (input: { addressLine1?: unknown; addressLine?: unknown }) => {
    const faults: FieldError[] = [];
    return { value: firstAddressLine(faults, input, 20), faults: faults.map((f) => f.path) };
  };

  it('takes whichever is sent, trimmed; nothing sent is null', () => {
    assert.deepEqual(line({ addressLine1: ' 1 Oak Ave ' }), { value: '1 Oak Ave', faults: [] });
    assert.deepEqual(line({ addressLine: '1 Oak Ave' }), { value: '1 Oak Ave', faults: [] });
    assert.deepEqual(line({}), { value: null, faults: [] });
    assert.deepEqual(line({ addressLine1: null, addressLine: '  ' }), { value: null, faults: [] });
  });

  it('both with the same text: that text; null or blank beside text counts as not sent', () => {
    assert.deepEqual(line({ addressLine1: '1 Oak Ave', addressLine: '1 Oak Ave ' }), {
      value: '1 Oak Ave',
      faults: [],
    });
    assert.deepEqual(line({ addressLine1: '1 Oak Ave', addressLine: null }), { value: '1 Oak Ave', faults: [] });
    assert.deepEqual(line({ addressLine1: '', addressLine: '1 Oak Ave' }), { value: '1 Oak Ave', faults: [] });
  });

  it('both with different text: a fault naming addressLine, and no line chosen', () => {
    assert.deepEqual(line({ addressLine1: '1 Oak Ave', addressLine: '2 Pine Rd' }), {
      value: null,
      faults: ['addressLine'],
    });
    assert.deepEqual(line({ addressLine1: '1 Oak Ave', addressLine: '1 oak ave' }).faults, ['addressLine']);
  });

  it('each name is held to the length and printable rule under its own name', () => {
    assert.deepEqual(line({ addressLine1: 'x'.repeat(21) }).faults, ['addressLine1']);
    assert.deepEqual(line({ addressLine: 'a\u0000b' }).faults, ['addressLine']);
    assert.deepEqual(line({ addressLine1: 7 }).faults, ['addressLine1']);
  });
});
