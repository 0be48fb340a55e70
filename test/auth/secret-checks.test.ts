// The line of secret checks (for hashes of earlier versions), without scrypt: how many run at once, whose turn is next, and when a
// check is refused instead of waiting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretCheckLine, SecretCheckLineFull } from '../../src/auth/secret-checks.ts';

const check = (ms: number, log?: string[], name?: string) => async () => {
  await new Promise((r) => setTimeout(r, ms));
  if (log && name) log.push(name);
  return true;
};

describe('the line of secret checks', () => {
  it('runs at most `concurrency` checks at once', async () => {
    const line = new SecretCheckLine(2, 100, 100);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        line.run('app', async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
          return true;
        }),
      ),
    );
    assert.equal(most, 2);
  });

  it('serves a client behind a flood of another client’s checks as soon as the running check ends', async () => {
    const line = new SecretCheckLine(1, 4, 64);
    const order: string[] = [];
    const flood = Array.from({ length: 400 }, () =>
      line.run('flooded', check(20, order, 'guess')).catch((e: unknown) => e),
    );
    await new Promise((r) => setTimeout(r, 30)); // the flood is being served: one check done, one running, three waiting
    await line.run('pms', check(20, order, 'pms'));
    const refused = (await Promise.all(flood)).filter((r) => r instanceof SecretCheckLineFull).length;
    assert.equal(refused, 400 - 1 - 4, 'the flood waits in one short line; the rest is refused at once');
    // Next after the running check (third), not behind the three guesses waiting (sixth).
    assert.ok(order.indexOf('pms') <= 3, `${order}`);
  });

  it('takes turns between waiting clients', async () => {
    const line = new SecretCheckLine(1, 10, 100);
    const order: string[] = [];
    const all = [line.run('first', check(5, order, 'first'))];
    for (let i = 0; i < 3; i++) all.push(line.run('a', check(5, order, 'a')));
    for (let i = 0; i < 3; i++) all.push(line.run('b', check(5, order, 'b')));
    await Promise.all(all);
    assert.deepEqual(order, ['first', 'a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('serves a client with nothing waiting before clients already in the round', async () => {
    const line = new SecretCheckLine(1, 10, 100);
    const order: string[] = [];
    const all = [line.run('first', check(5, order, 'first'))];
    for (let i = 0; i < 3; i++) all.push(line.run('flood', check(5, order, 'flood')));
    await new Promise((r) => setTimeout(r, 8)); // 'first' done, a flood check running
    all.push(line.run('once', check(5, order, 'once')));
    await Promise.all(all);
    assert.deepEqual(order, ['first', 'flood', 'once', 'flood', 'flood']);
  });

  it('refuses at once when the whole line is full', async () => {
    const line = new SecretCheckLine(1, 10, 3);
    const running = line.run('a', check(20));
    const waiting = ['b', 'c', 'd'].map((client) => line.run(client, check(1)));
    await assert.rejects(line.run('e', check(1)), SecretCheckLineFull);
    await Promise.all([running, ...waiting]);
    assert.equal(await line.run('e', check(1)), true, 'room again once the line has moved');
  });

  it('frees the place of a check that throws', async () => {
    const line = new SecretCheckLine(1, 10, 10);
    await assert.rejects(
      line.run('a', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await line.run('a', check(1)), true);
  });
});
