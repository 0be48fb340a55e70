// The tenancy face's pure input rules (src/tenancy/rules.ts), without a database or HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../src/errors.ts';
import type { AccessCodeRules } from '../../src/http/caller.ts';
import { accessCodeRulesOf, DEFAULT_ACCESS_CODE_RULES, firstAddressLine } from '../../src/tenancy/rules.ts';

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

describe("a facility's gate-code rules: accessCodeRules", () => {
  const rules = (input: Parameters<typeof accessCodeRulesOf>[1], base: AccessCodeRules = DEFAULT_ACCESS_CODE_RULES) => {
    const faults: FieldError[] = [];
    return { value: accessCodeRulesOf(faults, input, base), faults };
  };
  const faultsOf = (input: Parameters<typeof accessCodeRulesOf>[1], base?: AccessCodeRules) =>
    rules(input, base).faults;

  it('defaults to digits, 4 to 10; each sub-field sent replaces that of the base, lengths also as digits', () => {
    assert.deepEqual(DEFAULT_ACCESS_CODE_RULES, { characters: 'digits', minLength: 4, maxLength: 10 });
    assert.deepEqual(rules(undefined), { value: DEFAULT_ACCESS_CODE_RULES, faults: [] });
    assert.deepEqual(rules({}), { value: DEFAULT_ACCESS_CODE_RULES, faults: [] });
    assert.deepEqual(rules({ characters: 'alphanumeric', maxLength: 16 }), {
      value: { characters: 'alphanumeric', minLength: 4, maxLength: 16 },
      faults: [],
    });
    assert.deepEqual(rules({ minLength: '1', maxLength: '1' }), {
      value: { characters: 'digits', minLength: 1, maxLength: 1 },
      faults: [],
    });
    const base: AccessCodeRules = { characters: 'alphanumeric', minLength: 6, maxLength: 8 };
    assert.deepEqual(rules({ minLength: 7 }, base).value, { characters: 'alphanumeric', minLength: 7, maxLength: 8 });
  });

  it('names an unknown characters value and a length out of 1–16 or not whole, each by its sub-field', () => {
    assert.deepEqual(faultsOf({ characters: 'letters' }), [
      { path: 'accessCodeRules.characters', message: 'must be digits or alphanumeric' },
    ]);
    for (const bad of [0, 17, 4.5, -4, '', '4a', ' 4', '0004'])
      assert.deepEqual(
        faultsOf({ minLength: bad, maxLength: bad }).map((f) => f.path),
        ['accessCodeRules.minLength', 'accessCodeRules.maxLength'],
        JSON.stringify(bad),
      );
    assert.equal(faultsOf({ maxLength: 17 })[0]?.message, 'must be a whole number from 1 to 16');
  });

  it('a minimum above the maximum names the bound sent: maxLength when both were', () => {
    assert.deepEqual(faultsOf({ minLength: 8, maxLength: 6 }), [
      { path: 'accessCodeRules.maxLength', message: 'must be at least minLength (8)' },
    ]);
    assert.deepEqual(faultsOf({ maxLength: 3 }), [
      { path: 'accessCodeRules.maxLength', message: 'must be at least minLength (4)' },
    ]);
    assert.deepEqual(faultsOf({ minLength: 11 }), [
      { path: 'accessCodeRules.minLength', message: 'must be at most maxLength (10)' },
    ]);
    // A length that is itself wrong is named alone.
    assert.deepEqual(
      faultsOf({ minLength: 12, maxLength: 40 }).map((f) => f.path),
      ['accessCodeRules.maxLength'],
    );
  });
});
