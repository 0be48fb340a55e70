// The dispatcher's close: a sweep's query in flight is waited for, so that it never runs on a
// database that shutdown has already closed (seen as "driver has already been destroyed" at the
// demo's Ctrl-C).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pino from 'pino';
import { Dispatcher } from '../../src/push/dispatcher.ts';
import { LogCapture } from '../helpers/harness.ts';

it('close() waits for a sweep in progress, and a sweep after close asks nothing', async () => {
  let release: (ids: number[]) => void = () => {};
  let asked = 0;
  const worked: number[] = [];
  const log = new LogCapture();
  const dispatcher = new Dispatcher({
    concurrency: 2,
    sweepMs: 60_000,
    work: async (id) => {
      worked.push(Number(id));
      return { retryAt: null };
    },
    due: () => {
      asked++;
      return new Promise((resolve) => {
        release = resolve;
      });
    },
    scheduleRetry: async () => {},
    logger: pino({ level: 'warn' }, log),
  });
  dispatcher.start();
  const sweep = dispatcher.sweep();
  assert.equal(dispatcher.sweep(), sweep, 'one sweep at a time');

  let closed = false;
  const closing = dispatcher.close().then(() => {
    closed = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(closed, false, 'close waits for the sweep’s query');
  release([7]);
  await closing;
  assert.deepEqual(worked, [], 'a lane the sweep found after close is not worked');

  await dispatcher.sweep();
  assert.equal(asked, 1, 'no query after close');
  assert.deepEqual(log.lines, [], 'nothing logged');
});
