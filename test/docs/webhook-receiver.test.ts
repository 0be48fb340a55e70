// docs/API.md's sample webhook receiver, run as written: its code block saved as a program in a
// project that has the `standardwebhooks` package, started on a loopback port, and subscribed on a
// service whose operator allow-lists loopback. The service's `ping` must be verified and accepted;
// a delivery whose signature does not match must be refused. A sample that drifts from the library,
// from the service's signing, or that accepts what it cannot verify fails here.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { freePort } from '../helpers/process.ts';
import { provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { until } from '../helpers/until.ts';
import { markdownSection } from './markdown.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const apiDoc = fs.readFileSync(path.join(root, 'docs/API.md'), 'utf8');

/** The bodies of the fenced blocks of one language, in order (as `shellBlocks` reads ```sh). */
const codeBlocks = (markdown: string, language: string) =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);

interface Sample {
  url: string;
  output(): string;
  close(): Promise<void>;
}

/** The sample, saved as `receiver.mjs` beside a node_modules that has standardwebhooks, run as the page says. */
async function startSample(dir: string, secret: string, port: number): Promise<Sample> {
  const blocks = codeBlocks(markdownSection(apiDoc, 'Webhooks'), 'js');
  assert.equal(blocks.length, 1, 'the Webhooks section has one JavaScript receiver');
  const file = path.join(dir, 'receiver.mjs');
  fs.writeFileSync(file, blocks[0]!);
  const child: ChildProcess = spawn(process.execPath, [file], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(() => {
    if (child.exitCode !== null) throw new Error(`the sample exited (${child.exitCode}):\n${output}`);
    return output.includes(`listening on port ${port}`);
  });
  return {
    url: `http://127.0.0.1:${port}/gatehouse`,
    output: () => output,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('docs/API.md: the sample webhook receiver', () => {
  let t: TestApp;
  let account: ProvisionedAccount;
  let dir: string;
  const samples: Sample[] = [];

  before(async () => {
    // A local receiver, allowed as the page says: the operator allow-lists loopback by address.
    t = await startTestApp({ runJobs: true, env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' } });
    account = await provisionAccount(t, { facilities: 1 });
    // An integrator's project: the sample and the standardwebhooks package (this repository's).
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-receiver-'));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  after(async () => {
    for (const sample of samples) await sample.close();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const subscribe = async (url: string) => {
    const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
      token: account.token,
      body: { url, topics: ['gateway.events'] },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body as { id: number; secret: string };
  };
  const ping = (id: number) => inject(t.app, 'POST', `/webhooks/subscriptions/${id}/test`, { token: account.token });
  const logged = async (id: number, deliveryId: string) => {
    const log = await inject(t.app, 'GET', `/webhooks/subscriptions/${id}/deliveries`, { token: account.token });
    assert.equal(log.status, 200, JSON.stringify(log.body));
    return log.body.deliveries.find((d: { id: string }) => d.id === deliveryId);
  };

  /** The sample started with the secret of a subscription to it. */
  async function subscribedSample(): Promise<{ sample: Sample; subscription: { id: number; secret: string } }> {
    const port = await freePort();
    // The subscription first: its secret is what the sample is started with.
    const subscription = await subscribe(`http://127.0.0.1:${port}/gatehouse`);
    const sample = await startSample(dir, subscription.secret, port);
    samples.push(sample);
    return { sample, subscription };
  }

  it('verifies and accepts the service’s test ping, which the delivery log shows delivered', async () => {
    const { sample, subscription } = await subscribedSample();
    const answer = await ping(subscription.id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { deliveryId, delivered, responseStatus, error } = answer.body;
    assert.equal(error, null, sample.output());
    assert.equal(delivered, true, sample.output());
    assert.ok(responseStatus >= 200 && responseStatus < 300, `answered ${responseStatus}`);
    // The sample says what it verified: the ping, by its webhook-id.
    await until(() => sample.output().includes(`verified ping ${deliveryId}`));
    const entry = await logged(subscription.id, deliveryId);
    assert.equal(entry?.type, 'ping', JSON.stringify(entry));
    assert.equal(entry?.status, 'delivered', JSON.stringify(entry));
  });

  it('refuses (non-2xx) a delivery whose signature does not match, and accepts the same one signed right', async () => {
    const { sample, subscription } = await subscribedSample();
    const send = (id: string, body: string, signature: string, timestamp = new Date()) =>
      fetch(sample.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    const body = (id: string) =>
      JSON.stringify({ id, type: 'ping', createdAt: new Date().toISOString(), data: { message: 'by hand' } });
    const signed = (id: string, payload: string, now = new Date()) =>
      new Webhook(subscription.secret).sign(id, now, payload);

    // Signed with the subscription's secret, as the service signs: accepted.
    const good = body('msg_good');
    const accepted = await send('msg_good', good, signed('msg_good', good));
    assert.ok(accepted >= 200 && accepted < 300, `a right signature answered ${accepted}`);

    const tampered: [string, () => Promise<number>][] = [
      // One character of the signature changed.
      [
        'msg_signature',
        () => {
          const payload = body('msg_signature');
          const signature = signed('msg_signature', payload);
          const i = 'v1,'.length + 5;
          const changed = `${signature.slice(0, i)}${signature[i] === 'A' ? 'B' : 'A'}${signature.slice(i + 1)}`;
          return send('msg_signature', payload, changed);
        },
      ],
      // The body changed after signing.
      [
        'msg_body',
        () => {
          const original = body('msg_body');
          return send('msg_body', original.replace('by hand', 'by hand!'), signed('msg_body', original));
        },
      ],
      // Signed with another secret.
      [
        'msg_secret',
        () => {
          const payload = body('msg_secret');
          const another = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
          return send('msg_secret', payload, another.sign('msg_secret', new Date(), payload));
        },
      ],
      // A right signature of a message ten minutes old (a replay).
      [
        'msg_old',
        () => {
          const then = new Date(Date.now() - 10 * 60_000);
          const payload = body('msg_old');
          return send('msg_old', payload, signed('msg_old', payload, then), then);
        },
      ],
    ];
    for (const [id, attempt] of tampered) {
      const status = await attempt();
      assert.ok(status < 200 || status >= 300, `${id}: a tampered delivery answered ${status}`);
      assert.doesNotMatch(sample.output(), new RegExp(`verified \\w+ ${id}\\b`), id);
    }
    // The one it accepted, it logged as verified (a line through a pipe: waited for, not raced).
    await until(() => /verified ping msg_good\b/.test(sample.output()));
  });

  it('refuses the service’s ping signed with a secret it does not hold: the test route and the log say failed', async () => {
    const { sample } = await subscribedSample();
    // Another subscription to the same receiver: its secret is not the one the sample holds.
    const other = await subscribe(sample.url);
    const answer = await ping(other.id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.delivered, false, JSON.stringify(answer.body));
    assert.ok(answer.body.responseStatus >= 400, `answered ${answer.body.responseStatus}`);
    assert.doesNotMatch(sample.output(), new RegExp(`verified ping ${answer.body.deliveryId}`));
    assert.equal((await logged(other.id, answer.body.deliveryId))?.status, 'failed');
  });
});
