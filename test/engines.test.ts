// `engines` is true to what the dependencies need: every installed package (the production ones and
// the tools) admits the oldest Node.js this package says it runs on, so that a fresh install on it
// prints no EBADENGINE warning. A dependency that moves to a newer Node fails here, naming it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function installedPackages(dir: string): { name: string; version: string; node?: string }[] {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const at = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      found.push(...installedPackages(at));
      continue;
    }
    const manifest = path.join(at, 'package.json');
    if (fs.existsSync(manifest)) {
      const { name, version, engines } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      found.push({ name, version, node: engines?.node });
    }
    const nested = path.join(at, 'node_modules');
    if (fs.existsSync(nested)) found.push(...installedPackages(nested));
  }
  return found;
}

it('every installed package admits the oldest Node.js that package.json names', () => {
  const ours = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node as string;
  const oldest = semver.minVersion(ours);
  assert.ok(oldest, `engines.node ${ours} names a version`);
  const packages = installedPackages(path.join(root, 'node_modules'));
  assert.ok(packages.length > 100, 'the dependencies are installed');
  const refusing = packages
    .filter((p) => typeof p.node === 'string' && !semver.satisfies(oldest, p.node))
    .map((p) => `${p.name}@${p.version} needs Node ${p.node}`);
  assert.deepEqual(refusing, [], `engines.node is ${ours}, but:`);
});
