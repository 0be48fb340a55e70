// The dispatcher: its close waits for a sweep's query in flight, so that it never runs on a
// database that shutdown has already closed (seen as "driver has already been destroyed" at the
// demo's Ctrl-C); its slots are shared fairly between owners, failing lanes in their own pool (issue 23).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { admits, Dispatcher, type LaneInfo } from '../../src/push/dispatcher.ts';
import { LogCapture } from '../helpers/harness.ts';

it('close() waits for a sweep in progress, and a sweep after close asks nothing', async () => {
  let release: (ids: number[]) => void = () => {};
  let asked = 0;
  const worked: number[] = [];
  const log = new LogCapture();
  const dispatcher = new Dispatcher({
    concurrency: 2,
    failingConcurrency: 1,
    perOwner: 2,
    laneOf: () => undefined,
    sweepMs: 60_000,
    work: async (id) => {
      worked.push(Number(id));
      return { retryAt: null, failing: false };
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

/** A dispatcher whose turns last until the test ends them: which lanes are being worked, and ending one. */
function heldDispatcher(lanes: Record<number, LaneInfo>) {
  const turns = new Map<number, (result: { retryAt: Date | null; failing: boolean }) => void>();
  const started: number[] = [];
  const dispatcher = new Dispatcher({
    concurrency: 4,
    failingConcurrency: 2,
    perOwner: 2,
    sweepMs: 60_000,
    laneOf: (id) => lanes[Number(id)],
    work: (id) =>
      new Promise((resolve) => {
        started.push(Number(id));
        turns.set(Number(id), resolve);
      }),
    due: async () => [],
    scheduleRetry: async () => {},
    logger: pino({ level: 'silent' }),
  });
  dispatcher.start();
  const end = async (id: number, failing = false) => {
    turns.get(id)!({ retryAt: null, failing });
    turns.delete(id);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { dispatcher, started, end, working: () => [...turns.keys()].sort((x, y) => x - y) };
}

describe('fair slots', () => {
  it('admits a lane while its pool and its owner have room', () => {
    const limits = { concurrency: 4, failingConcurrency: 2, perOwner: 2 };
    const use = (healthy: number, failing: number, owners: [string, number][]) => ({
      pools: { healthy, failing },
      owners: new Map(owners),
    });
    assert.equal(admits(limits, use(0, 0, []), 'b', 'healthy'), true);
    assert.equal(admits(limits, use(2, 0, [['b', 2]]), 'b', 'healthy'), false, 'the owner has its share');
    assert.equal(admits(limits, use(2, 0, [['b', 2]]), 'a', 'healthy'), true, 'another owner is let in');
    assert.equal(
      admits(
        limits,
        use(4, 0, [
          ['a', 2],
          ['c', 2],
        ]),
        'd',
        'healthy',
      ),
      false,
      'the pool is full',
    );
    assert.equal(
      admits(
        limits,
        use(4, 0, [
          ['a', 2],
          ['c', 2],
        ]),
        'd',
        'failing',
      ),
      true,
      'the failing pool is its own',
    );
    assert.equal(
      admits(
        limits,
        use(0, 2, [
          ['d', 1],
          ['e', 1],
        ]),
        'f',
        'failing',
      ),
      false,
    );
  });

  it('works another owner’s lane at once while one owner’s lanes wait for its own share', async () => {
    const lanes: Record<number, LaneInfo> = {};
    for (let id = 1; id <= 10; id++) lanes[id] = { owner: 'b', failing: false };
    lanes[20] = { owner: 'a', failing: false };
    const { dispatcher, end, working } = heldDispatcher(lanes);
    for (let id = 1; id <= 10; id++) dispatcher.kick(id);
    assert.deepEqual(working(), [1, 2], 'two of b’s lanes, not the four slots');
    dispatcher.kick(20);
    assert.deepEqual(working(), [1, 2, 20], 'a’s lane is worked at once');
    await end(1);
    assert.deepEqual(working(), [2, 3, 20], 'b’s next lane takes b’s freed share, in the order kicked');
    await end(2);
    await end(3);
    await end(20);
    assert.deepEqual(working(), [4, 5]);
    dispatcher.kick(4);
    await end(4);
    assert.deepEqual(working(), [5, 6], 'a lane kicked again during its turn goes behind those waiting');
    for (const id of [5, 6, 7, 8, 9, 10]) await end(id);
    // At the next gathering tick (with what its account committed meanwhile).
    const deadline = Date.now() + 1_000;
    while (working().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(working(), [4], 'and then gets its turn');
    await end(4);
    await dispatcher.close();
  });

  it('works lanes that have been failing in their own pool, so that they never hold the healthy one', async () => {
    const lanes: Record<number, LaneInfo> = {
      1: { owner: 'b', failing: true },
      2: { owner: 'c', failing: true },
      3: { owner: 'd', failing: true },
      10: { owner: 'a', failing: false },
      11: { owner: 'e', failing: false },
      12: { owner: 'f', failing: false },
    };
    const { dispatcher, end, working } = heldDispatcher(lanes);
    for (const id of [1, 2, 3]) dispatcher.kick(id);
    assert.deepEqual(working(), [1, 2], 'the failing pool holds two');
    for (const id of [10, 11, 12]) dispatcher.kick(id);
    assert.deepEqual(working(), [1, 2, 10, 11, 12], 'the healthy lanes are all worked');
    // A lane found failing by its turn goes to the failing pool next time, whatever the row said.
    await end(10, true);
    dispatcher.kick(10);
    assert.deepEqual(working(), [1, 2, 11, 12], 'it waits for the failing pool');
    await end(1);
    assert.deepEqual(working(), [2, 3, 11, 12], 'the failing lanes in the order kicked');
    for (const id of [2, 3]) await end(id);
    assert.deepEqual(working(), [10, 11, 12]);
    for (const id of [10, 11, 12]) await end(id);
    await dispatcher.close();
  });
});

describe('a caught-up turn waits for its account’s next commit (issue 25)', () => {
  it('goes on at the tick after a kick, and leaves after two ticks without one, when the lane changed, or when a waiting lane could have its slot', async () => {
    const gatherMs = 20;
    // Each turn: what its waits answered, until one said 'leave'.
    const turns: { id: number; answers: string[]; answeredAt: number[]; ended: boolean }[] = [];
    const dispatcher = new Dispatcher({
      concurrency: 4,
      failingConcurrency: 1,
      perOwner: 1,
      sweepMs: 60_000,
      gatherMs,
      laneOf: (id) => ({ owner: Number(id) === 3 ? 'b' : 'a', failing: false }),
      work: async (id, signal) => {
        const turn = { id: Number(id), answers: [] as string[], answeredAt: [] as number[], ended: false };
        turns.push(turn);
        for (;;) {
          const answer = await signal.next(2);
          turn.answers.push(answer);
          turn.answeredAt.push(performance.now());
          if (answer === 'leave') break;
        }
        turn.ended = true;
        return { retryAt: null, failing: false };
      },
      due: async () => [],
      scheduleRetry: async () => {},
      logger: pino({ level: 'silent' }),
    });
    dispatcher.start();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const until = async (probe: () => boolean) => {
      const deadline = Date.now() + 2_000;
      while (!probe()) {
        if (Date.now() > deadline) throw new Error(`timed out: ${probe.toString()}`);
        await sleep(2);
      }
    };
    const turnsOf = (id: number) => turns.filter((t) => t.id === id);

    // A kick during the wait: the turn goes on, at the tick (not at once).
    dispatcher.kick(1);
    await until(() => turnsOf(1).length === 1);
    dispatcher.kick(1);
    await until(() => turnsOf(1)[0]!.answers.length === 1);
    assert.deepEqual(turnsOf(1)[0]!.answers, ['kicked']);
    // No kick: it leaves after two ticks, and is not worked again (nothing asked for it).
    // Timed where the turn heard its answers, not where this test's polling saw them (late under load).
    await until(() => turnsOf(1)[0]!.ended);
    assert.deepEqual(turnsOf(1)[0]!.answers, ['kicked', 'leave']);
    const [kickedAt, leftAt] = turnsOf(1)[0]!.answeredAt;
    assert.ok(leftAt! - kickedAt! >= gatherMs, `it waited for the ticks (${leftAt! - kickedAt!} ms)`);
    await sleep(3 * gatherMs);
    assert.equal(turnsOf(1).length, 1, 'a lane that left idle is not worked again');

    // A kick saying the lane changed (its owner's edit, a replay): the turn leaves, and the lane is worked again at the tick.
    dispatcher.kick(1);
    await until(() => turnsOf(1).length === 2);
    dispatcher.kick(1, true);
    await until(() => turnsOf(1)[1]!.ended);
    assert.deepEqual(turnsOf(1)[1]!.answers, ['leave']);
    await until(() => turnsOf(1).length === 3);

    // Another owner's lane does not take this one's slot (it has its own share); one of the same owner does.
    dispatcher.kick(3);
    await until(() => turnsOf(3).length === 1);
    dispatcher.kick(2);
    assert.equal(turnsOf(2).length, 0, 'the owner has its one lane at work: lane 2 waits');
    // Kicked at every tick (a busy account), lane 1 still gives its slot up at the tick; lane 3 goes on.
    dispatcher.kick(1);
    dispatcher.kick(3);
    await until(() => turnsOf(1)[2]!.ended && turnsOf(2).length === 1);
    assert.deepEqual(turnsOf(1)[2]!.answers, ['leave'], 'lane 1 gave its slot up');
    await until(() => turnsOf(3)[0]!.answers.length > 0);
    assert.equal(turnsOf(3)[0]!.answers[0], 'kicked', 'lane 3 (another owner) kept its slot: lane 2 could not have it');
    await dispatcher.close();
    assert.ok(
      turns.every((t) => t.ended),
      'close ends the waits',
    );
  });
});
