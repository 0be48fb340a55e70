import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { faultsFromAjv, pointerToPath } from '../../src/http/validation.ts';

describe('validation fault paths', () => {
  it('turns JSON pointers into field paths', () => {
    assert.equal(pointerToPath('/auctionableUnitInfo/3/endsAt'), 'auctionableUnitInfo[3].endsAt');
    assert.equal(pointerToPath('', 'guid'), 'guid');
    assert.equal(pointerToPath('/a~1b/0'), 'a/b[0]');
  });

  it('names the missing field of a required error and keeps one message per field', () => {
    const faults = faultsFromAjv([
      { keyword: 'required', instancePath: '/items/0', schemaPath: '', params: { missingProperty: 'unitId' }, message: 'x' },
      { keyword: 'type', instancePath: '/code', schemaPath: '', params: {}, message: 'must be string' },
      { keyword: 'type', instancePath: '/code', schemaPath: '', params: {}, message: 'must be number' },
      { keyword: 'anyOf', instancePath: '/code', schemaPath: '', params: {}, message: 'must match a schema in anyOf' },
    ]);
    assert.deepEqual(faults, [
      { path: 'items[0].unitId', message: 'is required' },
      { path: 'code', message: 'does not match any allowed form' },
    ]);
  });
});
