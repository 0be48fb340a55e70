// What the log may hold: secrets are blanked in query strings and in log records, from one list.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, loggableUrl, SECRET_NAMES } from '../src/logger.ts';

describe('loggableUrl', () => {
  it('blanks every secret-named query value, whatever the spelling of the name', () => {
    const cases: [string, string][] = [
      ['/x?apiSecret=s1&limit=5', '/x?apiSecret=[redacted]&limit=5'],
      ['/x?api_key=k1&api_secret=s2&apiKey=k2', '/x?api_key=[redacted]&api_secret=[redacted]&apiKey=[redacted]'],
      ['/auth/callback?code=oauth-code&state=abc', '/auth/callback?code=[redacted]&state=abc'],
      [
        '/x?client_secret=c1&clientSecret=c2&CLIENT-SECRET=c3&secret=c4',
        '/x?client_secret=[redacted]&clientSecret=[redacted]&CLIENT-SECRET=[redacted]&secret=[redacted]',
      ],
      [
        '/x?access_token=t1&refresh_token=t2&token=t3&password=p',
        '/x?access_token=[redacted]&refresh_token=[redacted]&token=[redacted]&password=[redacted]',
      ],
      ['/x?accessCode=1234&codeEntered=5678', '/x?accessCode=[redacted]&codeEntered=[redacted]'],
      ['/x?api%5Fkey=k3', '/x?api%5Fkey=[redacted]'], // percent-encoded name: the parser reads api_key
      ['/x?limit=5;apiSecret=s3', '/x?limit=5;apiSecret=[redacted]'],
      ['/x?apiSecret=a=b=c&x=1', '/x?apiSecret=[redacted]&x=1'],
    ];
    for (const [url, logged] of cases) assert.equal(loggableUrl(url), logged, url);
  });

  it('leaves other parameters and URLs without a query as they are', () => {
    for (const url of [
      '/facilities',
      '/x?limit=5&offset=10',
      '/x?',
      '/x?flag',
      '/x?codes=1&postal_code=80202&eventTypes=1,3',
      '/x?%zz=1',
    ]) {
      assert.equal(loggableUrl(url), url);
    }
  });
});

describe('log records', () => {
  function logged(record: Record<string, unknown>): Record<string, any> {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    createLogger({ logLevel: 'info' }, sink).info(record, 'test');
    return JSON.parse(lines[0]!);
  }

  it('redacts each secret name of the list up to three levels deep', () => {
    for (const name of SECRET_NAMES) {
      const line = logged({ [name]: 'v0', nested: { [name]: 'v1', deeper: { [name]: 'v2' } } });
      assert.equal(line[name], '[redacted]', name);
      assert.equal(line.nested[name], '[redacted]', name);
      assert.equal(line.nested.deeper[name], '[redacted]', name);
    }
    const line = logged({ apiSecret: 's', api_key: 'k', apiKey: 'k2' });
    assert.deepEqual([line.apiSecret, line.api_key, line.apiKey], ['[redacted]', '[redacted]', '[redacted]']);
  });

  it('keeps an error code: `code` is a secret only in a query string', () => {
    assert.equal(logged({ code: 'INVALID_TOKEN' }).code, 'INVALID_TOKEN');
  });
});
