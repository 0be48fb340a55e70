// What the log may hold: secrets are blanked in query strings and in log records, from one list.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, loggableUrl, readableLine, SECRET_NAMES } from '../src/logger.ts';

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

describe('log formats (LOG_FORMAT)', () => {
  /** A destination that keeps what is written, a terminal or not. */
  function sink(isTTY = false) {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }) as Writable & { isTTY?: boolean };
    if (isTTY) stream.isTTY = true;
    return { stream, lines };
  }
  const record = {
    method: 'POST',
    url: '/auth/token',
    statusCode: 401,
    remoteAddress: '203.0.113.7',
    client_secret: 'gh_cs_hunter2',
    nested: { password: 'p4ss', note: 'two words' },
  };

  it('json: one JSON object a line, the secrets redacted', () => {
    const { stream, lines } = sink(true); // forced: JSON even at a terminal
    createLogger({ logLevel: 'info', logFormat: 'json' }, stream).info(record, 'request');
    const line = JSON.parse(lines[0]!);
    assert.equal(line.msg, 'request');
    assert.equal(line.level, 30);
    assert.equal(line.remoteAddress, '203.0.113.7');
    assert.equal(line.client_secret, '[redacted]');
    assert.doesNotMatch(lines.join(''), /hunter2|p4ss/);
  });

  it('pretty: time, level, message and the fields as key=value, the secrets redacted', () => {
    const { stream, lines } = sink();
    const logger = createLogger({ logLevel: 'info', logFormat: 'pretty' }, stream);
    logger.child({ reqId: 'req-1' }).info(record, 'request');
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}request reqId=req-1 method=POST url=\/auth\/token statusCode=401 remoteAddress=203\.0\.113\.7 client_secret=\[redacted\] nested=\{"password":"\[redacted\]","note":"two words"\}\n$/,
    );
    assert.doesNotMatch(lines.join(''), /hunter2|p4ss|service=/);
  });

  it('pretty: an error with its stack on the lines below; a quoted value when it holds spaces', () => {
    const { stream, lines } = sink();
    const logger = createLogger({ logLevel: 'info', logFormat: 'pretty' }, stream);
    logger.warn({ variable: 'PROT', why: 'a b=c' }, 'PROT: not a setting; did you mean PORT?');
    logger.error({ err: new Error('boom') }, 'failed');
    assert.match(lines[0]!, / WARN {2}PROT: not a setting; did you mean PORT\? variable=PROT why="a b=c"\n$/);
    const [first, ...stack] = lines[1]!.trimEnd().split('\n');
    assert.match(first!, / ERROR failed err=\{"type":"Error","message":"boom"\}$/);
    assert.ok(stack.length > 0 && stack.every((l) => l.startsWith('    ')), lines[1]);
    assert.equal(stack[0], '    Error: boom');
  });

  it('auto: readable at a terminal, JSON elsewhere (a pipe, a file)', () => {
    const terminal = sink(true);
    createLogger({ logLevel: 'info' }, terminal.stream).info({ port: 8080 }, 'gatehouse is serving');
    assert.match(terminal.lines[0]!, / INFO {2}gatehouse is serving port=8080\n$/);
    const pipe = sink(false);
    createLogger({ logLevel: 'info', logFormat: 'auto' }, pipe.stream).info({ port: 8080 }, 'gatehouse is serving');
    assert.equal(JSON.parse(pipe.lines[0]!).port, 8080);
  });

  it('writes a line that is not a JSON object as it is', () => {
    assert.equal(readableLine('not json\n'), 'not json\n');
    assert.equal(readableLine('[1,2]'), '[1,2]\n');
  });
});
