// The README's getting-started guide, run as written: its shell blocks, in order, in bash, from the
// project root, against a real server. A guide that drifts from the CLI or the API fails here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runProgram } from '../helpers/process.ts';
import { markdownSection, shellBlocks } from './markdown.ts';
import { realServer } from '../helpers/server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

describe('README: getting started by hand', () => {
  const served = realServer();

  it('provisions in six commands, gets a token, and makes the first calls as the PMS and the controller', async () => {
    const guide = markdownSection(readme, 'Getting started by hand');
    const blocks = shellBlocks(guide);
    assert.ok(blocks.length >= 4, 'the guide has its shell blocks');
    const provisioning = blocks[0]!.split('\n').filter((line) => /^\w+=\$\(bin\/gatehouse admin /.test(line));
    assert.equal(provisioning.length, 6, 'provisioning is six commands');

    const { code, stdout, stderr } = await runProgram('bash', ['-e', '-o', 'pipefail', '-c', blocks.join('\n')], {
      env: { ...served.database.env, GH: served.url },
      cwd: root,
      timeoutMs: 120_000,
    });
    assert.equal(code, 0, `the guide ran to its end:\n${stderr}`);
    // The PMS sees its facility, creates a tenant (a vacant unit becomes Rented) …
    assert.match(stdout, /"name":"Acme Denver","propertyNumber":"1001"/);
    assert.match(stdout, /"unit":\{"id":\d+,"unitNumber":"A101","status":"Rented"/);
    // … the controller's two events are stored and acknowledge the first command …
    assert.match(stdout, /\{"accepted":2,"duplicates":0,"rejected":\[\]/);
    assert.match(stdout, /"eventTypeName":"Access Granted"/);
    assert.match(stdout, /^\{"sequence":1,"type":"unit\.upsert","status":"acknowledged"\}$/m);
    // … and the CSV export has its header and the events.
    assert.match(stdout, /^id,occurredAt,occurredAtLocal,receivedAt,accountId,facilityId,/m);
    assert.match(stdout, /,18,Access Granted,/);
  });
});
