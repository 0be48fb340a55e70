// Preloaded into the server by bench/events.ts when BENCH_SERVER_PROFILE_DIR is set (--cpu-prof is
// not allowed in NODE_OPTIONS): profiles the main thread and writes a .cpuprofile when it exits.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_SERVER_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // An in-process session answers synchronously.
    session.post('Profiler.stop', (error, result) => {
      if (!error) fs.writeFileSync(path.join(dir, `server-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
