// Values written into a statement's text (COPY takes no parameters): each literal read back by the
// database is the value itself, text with quotes and backslashes included; what the service never
// binds is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { withValuesWritten } from '../../src/db/literals.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('withValuesWritten', () => {
  it('writes numbers, text and arrays that the database reads back as the values', async () => {
    const hostile = ["it's", 'back\\slash', "'); drop table accounts; --", 'Zürich ✓', '$1 and $2', ''];
    const text = withValuesWritten(
      'select $1::int8 as n, $2::float8 as f, $3::text[] as t, $4::int8[] as e, $10::text as ten',
      [42, 1.5, hostile, [], 0, 0, 0, 0, 0, 'tenth'],
    );
    const { rows } = await t.services.database.pool.query(text);
    assert.deepEqual(rows[0], { n: 42, f: 1.5, t: hostile, e: [], ten: 'tenth' });
  });

  it('refuses what it cannot write exactly', () => {
    assert.throws(() => withValuesWritten('select $1', [Number.NaN]), /finite/);
    assert.throws(() => withValuesWritten('select $1', [{}]), /no literal/);
    assert.throws(() => withValuesWritten('select $1', [null]), /no literal/);
    assert.throws(() => withValuesWritten('select $2', [1]), /no value for \$2/);
  });
});
