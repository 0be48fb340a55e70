// "Done means" of issue 28, end to end with the real server and simulator processes: a facility of
// 2,000 units and 3,000 visitors; the simulated controller loses 5 visitors, alters 3 units and adds
// 1 visitor locally; the drift is found at its next digest, healed with exactly 9 corrective
// commands, recorded, and pushed (facility.drift found and healed, signatures verified). Without
// drift, a digest costs one round trip and no command.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import * as e2e from '../helpers/e2e.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { realServer } from '../helpers/server.ts';

const UNITS = 2000;
const VISITORS = 3000;
const receivers: Receiver[] = [];
const served = realServer(
  { RATE_LIMIT_PER_MINUTE: '1000000', OUTBOUND_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_SWEEP_MS: '250' },
  {
    signal: 'SIGKILL',
    async cleanup() {
      for (const r of receivers) await r.close();
    },
  },
);

/** A simulated site that only applies commands and reports what it holds: no keypads, doors or device drops. */
const QUIET_SITE = ['--rate', '0', '--door-alarms', '0', '--device-drops', '0', '--flush-ms', '100'];

/** Runs `work` for 0…n-1, `width` at a time. */
async function inParallel(n: number, width: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

it('a drift of 5 lost visitors, 3 altered units and 1 added visitor is found, healed by exactly 9 commands, recorded and pushed', async () => {
  const { facility, gateway, pms } = await e2e.provisionThroughAdmin(served.url, served.database, 'Drift');
  const client = e2e.clientFor(served.url, pms);
  const facilityId = facility.id;
  const path = { facilityId };

  const receiver = await startReceiver();
  receivers.push(receiver);
  const subscription = await e2e.ok(
    client.POST('/webhooks/subscriptions', { body: { url: receiver.url, topics: ['facility.drift'] } }),
    201,
  );

  // The facility: 2,000 units; a tenant on each, and a second visitor on the first 1,000.
  const seeding = Date.now();
  const unitIds: number[] = new Array(UNITS);
  await inParallel(UNITS, 8, async (i) => {
    const unit = await e2e.ok(
      client.POST('/facilities/{facilityId}/units', { params: { path }, body: { unitNumber: `D-${i + 1}` } }),
      201,
    );
    unitIds[i] = unit.id;
  });
  // Four at a time: a key's changes that set a gate code hold at most 5 places at once (code-conflicts.ts).
  await inParallel(VISITORS, 4, async (i) => {
    const unitId = unitIds[i % UNITS]!;
    await e2e.ok(
      client.POST('/facilities/{facilityId}/visitors', {
        params: { path },
        body: { unitId, accessCode: String(100_000 + i), firstName: 'V', lastName: `${i}`, isTenant: i < UNITS },
      }),
      201,
    );
  });
  const commandsOf = async () => {
    const all: { id: string; sequence: number; type: string; status: string; payload: unknown }[] = [];
    for (let after = 0; ; ) {
      const page = await e2e.ok(
        client.GET('/facilities/{facilityId}/commands', { params: { path, query: { after, limit: 1000 } } }),
      );
      all.push(...page);
      if (page.length < 1000) return all;
      after = page[page.length - 1]!.sequence;
    }
  };
  const made = (await commandsOf()).length;
  assert.equal(made, UNITS + VISITORS);
  console.log(`# ${UNITS} units and ${VISITORS} visitors made through the API in ${Date.now() - seeding} ms`);
  const started = Date.now();

  const simulator = e2e.startSimulator(served.url, served.database.env, gateway, [
    ...QUIET_SITE,
    '--batch-size',
    '1000',
    '--digest-interval',
    '2',
    '--drift',
    'lose-visitors=5,alter-units=3,add-visitors=1',
  ]);
  let stopped: Awaited<ReturnType<typeof simulator.stop>>;
  const drifts = () => e2e.ok(client.GET('/facilities/{facilityId}/drift', { params: { path } }));
  try {
    const [drift] = await e2e.eventually(
      'the drift to be found and healed',
      async () => {
        const list = await drifts();
        return list.length > 0 && list[0]!.status === 'healed' ? list : null;
      },
      180_000,
    );
    // What differed, item by item; no gate code anywhere in the record.
    const changes = drift!.items.map((i) => `${i.kind} ${i.change} ${i.fields.join(',')}`).sort();
    assert.deepEqual(changes, [
      ...Array(3).fill('unit altered status'),
      ...Array(5).fill('visitor missing '),
      'visitor unexpected ',
    ]);
    assert.equal(drift!.corrections, 9);
    // No gate code in the record: items name the field, never a value.
    for (const item of drift!.items) assert.deepEqual(Object.keys(item).sort(), ['change', 'fields', 'id', 'kind']);
    assert.deepEqual(Object.keys(drift!).sort(), ['corrections', 'foundAt', 'healedAt', 'id', 'items', 'status']);

    // Exactly 9 corrective commands, each naming the drift, each acknowledged.
    const corrections = (await commandsOf()).filter((c) => (c.payload as { driftId?: string }).driftId === drift!.id);
    assert.equal(corrections.length, 9);
    assert.deepEqual(corrections.map((c) => c.type).sort(), [
      ...Array(3).fill('unit.upsert'),
      'visitor.remove',
      ...Array(5).fill('visitor.upsert'),
    ]);
    await e2e.eventually('the corrections to be acknowledged', async () =>
      (await commandsOf())
        .filter((c) => corrections.some((k) => k.id === c.id))
        .every((c) => c.status === 'acknowledged'),
    );
    console.log(
      `# the simulator applied ${UNITS + VISITORS} commands and healed the drift ${Date.now() - started} ms after its start`,
    );
    const healMs = Date.parse(drift!.healedAt!) - Date.parse(drift!.foundAt);
    console.log(`# drift found → healed in ${healMs} ms (2,000 units, 3,000 visitors; 9 corrective commands)`);

    // Pushed: found, then healed, each verified with the subscription's secret.
    const pushed = await e2e.eventually('facility.drift found and healed at the receiver', async () => {
      const got = receiver.received.filter((d) => d.json.type === 'facility.drift');
      return got.length >= 2 ? got : null;
    });
    for (const d of pushed) new Webhook(subscription.secret).verify(d.body, d.headers as Record<string, string>);
    assert.deepEqual(
      pushed.map((d) => [d.json.data.driftId, d.json.data.status]),
      [
        [drift!.id, 'found'],
        [drift!.id, 'healed'],
      ],
    );
    assert.equal(pushed[1]!.json.data.items.length, 9);

    // In sync: later digests (every 2 s) cost a round trip each and no command, no new drift.
    const before = (await commandsOf()).length;
    await new Promise((r) => setTimeout(r, 5000));
    assert.equal((await commandsOf()).length, before);
    assert.equal((await drifts()).length, 1);
  } finally {
    stopped = await simulator.stop();
  }
  assert.equal(stopped.code, 0, stopped.stderr);
  const summary = JSON.parse(stopped.stdout);
  assert.equal(summary.commandsApplied, UNITS + VISITORS + 9, JSON.stringify(summary));
  assert.equal(summary.driftsFound, 1, JSON.stringify(summary));
  assert.ok(summary.digests >= 4, JSON.stringify(summary));
  assert.equal(summary.eventsByType['27'], 1);
  assert.equal(summary.eventsByType['28'], 3);
});

it('while a drift lasts the status list says so: a controller that fails every command stays in drift, a working one heals it', async () => {
  const { facility, gateway, pms } = await e2e.provisionThroughAdmin(served.url, served.database, 'Drift B');
  const client = e2e.clientFor(served.url, pms);
  const path = { facilityId: facility.id };
  for (let i = 0; i < 3; i++) {
    const unit = await e2e.ok(
      client.POST('/facilities/{facilityId}/units', { params: { path }, body: { unitNumber: `B-${i + 1}` } }),
      201,
    );
    await e2e.ok(
      client.POST('/facilities/{facilityId}/visitors', {
        params: { path },
        body: { unitId: unit.id, accessCode: String(700_000 + i), firstName: 'B', lastName: `${i}`, isTenant: true },
      }),
      201,
    );
  }
  const row = async () =>
    (await e2e.ok(client.GET('/facilities/statuslist'))).find((r) => r.facilityId === facility.id)!;
  const drifts = () => e2e.ok(client.GET('/facilities/{facilityId}/drift', { params: { path } }));
  const quiet = [...QUIET_SITE, '--digest-interval', '1'];

  // A controller that fails every command: what it should hold never arrives, the drift stays open.
  const failing = e2e.startSimulator(served.url, served.database.env, gateway, [...quiet, '--fail-rate', '1']);
  let warned: Awaited<ReturnType<typeof row>>;
  try {
    warned = await e2e.eventually('the status list to show the drift', async () => {
      const r = await row();
      return r.pmsInterfaceStatus === 'warning' && /differed from the PMS/.test(r.pmsInterfaceStatusMessage) && r;
    });
  } finally {
    assert.equal((await failing.stop()).code, 0);
  }
  assert.match(warned.pmsInterfaceStatusMessage, /since .*\(\d+ items?\); corrections are on their way\./);
  const [open] = await drifts();
  assert.equal(open!.status, 'open');

  // A working controller (it starts empty: the failed commands are settled, not sent again) heals it.
  const working = e2e.startSimulator(served.url, served.database.env, gateway, quiet);
  try {
    await e2e.eventually('the drift to be healed', async () => (await drifts())[0]!.status === 'healed');
  } finally {
    assert.equal((await working.stop()).code, 0);
  }
  const after = await row();
  assert.equal(/differed from the PMS/.test(after.pmsInterfaceStatusMessage), false, after.pmsInterfaceStatusMessage);
});
