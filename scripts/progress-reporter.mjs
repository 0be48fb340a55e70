// The test runner's reporter (node:test's custom reporter API): one line as each test FILE
// finishes, so that a run of many minutes shows where it is —
//   [ 37/112] ✔ test/events/export.test.ts  14 tests  8.2 s
// — then every failure in full (its name, assertion and stack, and what its file printed) and the
// totals. The spec reporter prints every test of every file: thousands of lines in which the
// progress and the few failures are hard to find.
//
// How node reports a run of files (20; 22 the same but where said): each file is a test at
// nesting 0 named by its path (22: relative to the working directory, and so is the `file` of its
// output), all enqueued first (so their count is known at once); its `test:complete` comes when it
// ends, with its duration and whether it passed. The events of the tests inside a file (`test:start`, then
// `test:pass`/`test:fail` with their nesting, `test:stdout`/`test:stderr`) come in the order of the
// files: as they happen for the file at the head of that order, in one burst for a file that ended
// while an earlier one still ran. So a file's line is printed once it has ended and a later file's
// events (22: its own `test:summary`; or the end of the run) show that its own are all in. A suite's own failure only says that
// its tests failed (details.type 'suite'); a file that fails outside any test (it throws on load)
// is a `test:fail` of the file itself, the reason in its `test:stderr`. The totals are
// `test:diagnostic` lines at nesting 0: "tests 5", "pass 3", …
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';

const TOTALS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'];

const relative = (file) => (file ? path.relative(process.cwd(), file) || file : '(no file)');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const plural = (n, word) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
const indent = (text) => text.replace(/^(?=.)/gm, '    ');

/** What a failed test threw (node wraps it as the cause of an ERR_TEST_FAILURE), with its stack and diff. */
function describeError(error) {
  const thrown = error?.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error;
  return typeof thrown === 'string' ? thrown : inspect(thrown, { depth: 4, colors: false });
}

/**
 * On SIGINT or SIGTERM (Ctrl-C, or scripts/test.mjs passing it on), `report` prints what ran so far and the
 * run ends with 130 — node 20's test runner exits at a signal without a word. The test files' processes
 * get the same signal from their process group.
 */
function onInterrupt(report) {
  const handler = (signal) => {
    report(signal);
    process.exit(130);
  };
  // Before node's own handler, which exits at once.
  const signals = ['SIGINT', 'SIGTERM'];
  for (const signal of signals) process.prependListener(signal, handler);
  return {
    dispose: () => {
      for (const signal of signals) process.off(signal, handler);
    },
  };
}

export default async function* progressReporter(source) {
  /** The files in the order node runs and reports them. */
  const order = [];
  const files = new Map();
  const fileOf = (name) => {
    let file = files.get(name);
    if (!file) {
      file = { name, pass: 0, fail: 0, skipped: 0, todo: 0, suites: [], output: '', ended: null, failed: false };
      files.set(name, file);
    }
    return file;
  };
  /** Files before this index have all their events in; `printed` of them have their line. */
  let reported = 0;
  let printed = 0;
  const failures = [];
  const totals = {};
  const notes = [];

  const line = (file) => {
    const width = String(order.length).length;
    const counts = [
      file.fail && `${file.fail} failed`,
      file.skipped && `${file.skipped} skipped`,
      file.todo && `${file.todo} todo`,
    ];
    const extra = counts.filter(Boolean).join(', ');
    const tests = plural(file.pass + file.fail + file.skipped + file.todo, 'test');
    return `[${String(printed + 1).padStart(width)}/${order.length}] ${file.failed ? '✖' : '✔'} ${relative(file.name)}  ${tests}${extra ? ` (${extra})` : ''}  ${seconds(file.ended ?? 0)}\n`;
  };
  /** The lines of the files that have ended and whose events are all in, in order. */
  function* ready() {
    while (printed < reported && files.get(order[printed])?.ended !== null) {
      yield line(files.get(order[printed]));
      printed++;
    }
  }

  /** The failures in full, then the totals: at the end of the run, or so far when it is interrupted. */
  function* ending(interruptedBy) {
    if (failures.length > 0) {
      yield `\n✖ ${plural(failures.length, 'failure')}:\n`;
      for (const failure of failures) {
        // The file, not node's line and column: under tsx those are of the compiled code; the stack has the real ones.
        yield `\n✖ ${relative(failure.file)}  ${failure.name}\n${indent(describeError(failure.error))}\n`;
      }
      // What each failed file printed: a file that throws on load says why only there.
      for (const file of files.values())
        if (file.failed && file.output.trim())
          yield `\n--- what ${relative(file.name)} printed ---\n${indent(file.output.trimEnd())}\n`;
    }
    for (const note of notes) yield `ℹ ${note}\n`;
    const failedFiles = [...files.values()].filter((f) => f.failed).length;
    if (interruptedBy) {
      // node prints no totals of its own when a signal ends the run: these are the tests that ended.
      const ended = [...files.values()].filter((f) => f.ended !== null);
      const sum = (key) => [...files.values()].reduce((total, f) => total + f[key], 0);
      const tests = sum('pass') + sum('fail') + sum('skipped') + sum('todo');
      yield `\n✖ interrupted (${interruptedBy}) after ${ended.length} of ${order.length} files · ${plural(tests, 'test')} so far: ${sum('pass').toLocaleString('en-US')} passed, ${sum('fail').toLocaleString('en-US')} failed, ${sum('skipped').toLocaleString('en-US')} skipped${failedFiles ? ` · ${failedFiles} files failed` : ''} · ${seconds(performance.now() - startedAt)}\n`;
      return;
    }
    const n = (key) => (totals[key] ?? 0).toLocaleString('en-US');
    const more = [totals.todo && `${n('todo')} todo`, totals.cancelled && `${n('cancelled')} cancelled`].filter(
      Boolean,
    );
    yield `\n${failures.length > 0 || failedFiles > 0 ? '✖' : '✔'} tests ${n('tests')}: ${n('pass')} passed, ${n('fail')} failed, ${n('skipped')} skipped${more.map((m) => `, ${m}`).join('')} · files ${order.length}${failedFiles ? ` (${failedFiles} failed)` : ''} · ${seconds(totals.duration_ms ?? 0)}\n`;
  }
  const startedAt = performance.now();
  const interruption = onInterrupt((signal) => {
    // Written at once (the run ends here): the lines not yet printed, then what ran so far.
    reported = order.length;
    fs.writeSync(1, [...ready(), ...ending(signal)].join(''));
  });

  for await (const { type, data: event } of source) {
    const where = event?.file === undefined ? undefined : path.resolve(event.file);
    const data = { ...event, file: where };
    const isFile = data.nesting === 0 && where !== undefined && path.resolve(String(data.name)) === where;
    if (type === 'test:enqueue' && isFile) {
      order.push(where);
      fileOf(where);
      continue;
    }
    // An event from a file's own report: every file before it has reported all of its events; a
    // file's summary (22) is the last event of its report.
    if (where !== undefined && !(isFile && ['test:dequeue', 'test:complete'].includes(type))) {
      const at = order.indexOf(where) + (type === 'test:summary' ? 1 : 0);
      if (at > reported) reported = at;
    }
    switch (type) {
      case 'test:start':
        if (!isFile) {
          // The names of the enclosing suites, to name a failure in full.
          const file = fileOf(data.file);
          file.suites.length = data.nesting;
          file.suites[data.nesting] = data.name;
        }
        break;
      case 'test:pass':
        if (isFile || data.details?.type === 'suite') break;
        if (data.skip !== undefined) fileOf(data.file).skipped++;
        else if (data.todo !== undefined) fileOf(data.file).todo++;
        else fileOf(data.file).pass++;
        break;
      case 'test:fail': {
        const error = data.details?.error;
        // A suite fails when its tests do, and those are reported themselves.
        if (data.details?.type === 'suite' && error?.failureType === 'subtestsFailed') break;
        const file = fileOf(data.file);
        file.failed = true;
        if (!isFile) {
          if (data.todo !== undefined) file.todo++;
          else file.fail++;
        }
        const name = isFile
          ? '(the file itself, outside its tests)'
          : [...file.suites.slice(0, data.nesting), data.name].join(' › ');
        failures.push({ file: data.file, name, error });
        break;
      }
      case 'test:stdout':
      case 'test:stderr':
        // Kept for the failure report; a line starting "# " is a test's own note (a measurement): shown now.
        fileOf(data.file).output += data.message;
        for (const note of data.message.split('\n').filter((line) => line.startsWith('# ')))
          yield `    ${relative(data.file)}: ${note}\n`;
        break;
      case 'test:complete':
        if (isFile) {
          const file = fileOf(data.file);
          file.ended = data.details?.duration_ms ?? 0;
          if (!data.details?.passed) file.failed = true;
        }
        break;
      case 'test:diagnostic':
        if (data.nesting === 0) {
          const [key, value] = data.message.split(' ');
          if (TOTALS.includes(key) && /^[\d.]+$/.test(value ?? '')) totals[key] = Number(value);
          else notes.push(data.message);
        }
        break;
    }
    yield* ready();
  }
  // The end of the run: every event is in.
  interruption.dispose();
  reported = order.length;
  yield* ready();
  yield* ending();
}
