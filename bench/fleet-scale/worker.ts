// A load process of the fleet-scale benchmark (started by ipc.ts's startWorker):
//   node --import tsx bench/fleet-scale/worker.ts <controllers|streams|probe>
// It answers the orchestrator's calls over the IPC channel and ends when told (or when the
// orchestrator goes away).
import { controllersWorker } from './controllers.ts';
import type { CallMessage, Handlers, Notice, Role, WorkerMessage } from './ipc.ts';
import { probeWorker } from './probe.ts';
import { streamsWorker } from './streams.ts';

const send = (message: WorkerMessage) => process.send?.(message);
const notify = (notice: Notice) => send({ notice });

const roles: Record<Role, () => Handlers> = {
  controllers: () => controllersWorker(notify),
  streams: () => streamsWorker(),
  probe: () => probeWorker(notify),
};

const role = process.argv[2] as Role;
const make = roles[role];
if (!make) throw new Error(`unknown worker role ${role}`);
const handlers = make();

async function exit() {
  await handlers.close?.({});
  process.disconnect?.();
  process.exit(0);
}

process.on('message', async (raw) => {
  const { id, command, args } = raw as CallMessage;
  if (command === 'exit') {
    send({ id, result: null });
    await exit();
    return;
  }
  const handler = handlers[command];
  try {
    if (!handler) throw new Error(`no command ${command}`);
    send({ id, result: (await handler(args)) ?? null });
  } catch (error) {
    send({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
process.on('disconnect', () => void exit());
send({ ready: true });
