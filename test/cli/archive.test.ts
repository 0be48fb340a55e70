// The backup archive (src/cli/archive.ts) on its own: a tree written and extracted again (nested
// files, a 0600 key, a hard link, items from two folders named as listed), the manifest first; and
// what extraction refuses, in one line: a cut file, a foreign one, a tar without the manifest or
// with another version, an entry that would leave the target (`..`, an absolute name), a link, and
// contents that disagree with the manifest. Archives to refuse are made with the same `tar` package.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import * as tar from 'tar';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  ArchiveError,
  extractArchive,
  listTree,
  MANIFEST_NAME,
  writeArchive,
} from '../../src/cli/archive.ts';

let scratch: string;
before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-'));
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const base = {
  format: ARCHIVE_FORMAT,
  version: ARCHIVE_VERSION,
  createdAt: '2026-11-27T10:00:00.000Z',
  gatehouse: 'test',
  database: 'embedded',
  snapshot: 'stopped data directory',
} as const;

let serial = 0;
/** A new empty folder under the scratch directory. */
const folder = (name: string) => fs.mkdtempSync(path.join(scratch, `${name}-${serial++}-`));

/** Every file and directory under `dir`: relative name → its content (or "dir"). */
function snapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (at: string, name: string) => {
    for (const child of fs.readdirSync(at).sort()) {
      const full = path.join(at, child);
      const relative = name ? `${name}/${child}` : child;
      if (fs.statSync(full).isDirectory()) {
        found[relative] = 'dir';
        walk(full, relative);
      } else found[relative] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(dir, '');
  return found;
}

/** Expects extraction to be refused with an ArchiveError whose message matches, and nothing left in `into`. */
async function refused(file: string, message: RegExp, foreign: boolean, into = folder('into')) {
  await assert.rejects(extractArchive(file, into), (error: unknown) => {
    assert.ok(error instanceof ArchiveError, `an ArchiveError, not ${String(error)}`);
    assert.match(error.message, message);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    assert.equal(error.foreign, foreign, `foreign: ${error.message}`);
    return true;
  });
}

/**
 * An archive made directly with `tar` from the folder `from` (cwd), of these entries in order,
 * a manifest first when `manifest` is given (its counts as stated).
 */
async function crafted(from: string, entries: string[], manifest?: object, options: { preservePaths?: boolean } = {}) {
  if (manifest) fs.writeFileSync(path.join(from, MANIFEST_NAME), JSON.stringify(manifest));
  const file = path.join(folder('crafted'), 'crafted.tar.gz');
  await tar.create(
    { file, cwd: from, gzip: true, portable: true, noDirRecurse: true, ...options },
    manifest ? [MANIFEST_NAME, ...entries] : entries,
  );
  return file;
}

describe('the backup archive', () => {
  it('extracts what it was written from: nested files, a 0600 key, a hard link, two folders named as listed', async () => {
    const data = folder('data');
    const staging = folder('staging');
    fs.mkdirSync(path.join(staging, 'pgdata', 'base', '1'), { recursive: true });
    fs.writeFileSync(path.join(staging, 'pgdata', 'base', '1', '1259'), 'relation pages');
    fs.writeFileSync(path.join(staging, 'pgdata', 'PG_VERSION'), '17\n');
    fs.mkdirSync(path.join(data, 'keys'), { mode: 0o700 });
    fs.writeFileSync(path.join(data, 'keys', 'signing.json'), '{"kid":"k1"}', { mode: 0o600 });
    fs.chmodSync(path.join(data, 'keys', 'signing.json'), 0o600);
    fs.mkdirSync(path.join(data, 'blobs', 'ab', 'cd'), { recursive: true });
    fs.writeFileSync(path.join(data, 'blobs', 'ab', 'cd', 'abcd.png'), 'not really a png');
    fs.linkSync(path.join(data, 'blobs', 'ab', 'cd', 'abcd.png'), path.join(data, 'blobs', 'ab', 'cd', 'same.png'));
    const items = [
      ...listTree(path.join(staging, 'pgdata'), 'pgdata'),
      ...listTree(path.join(data, 'keys'), 'keys'),
      ...listTree(path.join(data, 'blobs'), 'blobs'),
    ];
    const out = folder('out');
    const file = path.join(out, 'backup.tar.gz');

    const written = await writeArchive(file, base, items);
    assert.equal(written.files, 12);
    assert.equal(written.bytes, 14 + 3 + 12 + 16 + 16);
    assert.deepEqual(fs.readdirSync(out), ['backup.tar.gz'], 'the temporary files are gone');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    // The manifest first, then the names as listed: relative, whatever folder they were read from.
    const names: string[] = [];
    await tar.list({ file, onReadEntry: (entry) => names.push(`${entry.type} ${entry.path}`) });
    assert.deepEqual(names, [
      `File ${MANIFEST_NAME}`,
      ...items.map((item) => (fs.statSync(item.from).isDirectory() ? `Directory ${item.name}/` : `File ${item.name}`)),
    ]);
    assert.ok(names.includes('File blobs/ab/cd/same.png'), 'a hard link goes in as a file');

    const into = folder('into');
    const read = await extractArchive(file, into);
    assert.deepEqual(read, written);
    assert.deepEqual(snapshot(into), {
      blobs: 'dir',
      'blobs/ab': 'dir',
      'blobs/ab/cd': 'dir',
      'blobs/ab/cd/abcd.png': 'not really a png',
      'blobs/ab/cd/same.png': 'not really a png',
      keys: 'dir',
      'keys/signing.json': '{"kid":"k1"}',
      pgdata: 'dir',
      'pgdata/PG_VERSION': '17\n',
      'pgdata/base': 'dir',
      'pgdata/base/1': 'dir',
      'pgdata/base/1/1259': 'relation pages',
    });
    assert.equal(fs.statSync(path.join(into, 'keys', 'signing.json')).mode & 0o777, 0o600);
  });

  it('refuses a file that changed between its listing and its archiving, leaving no archive', async () => {
    const data = folder('data');
    fs.writeFileSync(path.join(data, 'wal'), 'x'.repeat(2000));
    const items = listTree(data, 'pgdata');
    fs.truncateSync(path.join(data, 'wal'), 100);
    const out = folder('out');
    await assert.rejects(writeArchive(path.join(out, 'backup.tar.gz'), base, items), (error: unknown) => {
      assert.ok(error instanceof ArchiveError, String(error));
      assert.match(error.message, /changed while/);
      return true;
    });
    assert.deepEqual(fs.readdirSync(out), [], 'neither the archive nor its temporary files');
  });

  describe('refuses, in one line', () => {
    let good: string;
    before(async () => {
      const data = folder('data');
      // Random bytes: they do not compress, so the first 4 KiB of the archive are not all of it.
      fs.writeFileSync(path.join(data, 'big'), crypto.randomBytes(200_000));
      good = path.join(folder('good'), 'backup.tar.gz');
      await writeArchive(good, base, listTree(data, 'pgdata'));
    });

    it('a cut archive, and one with a damaged byte', async () => {
      const cut = path.join(folder('cut'), 'cut.tar.gz');
      fs.writeFileSync(cut, fs.readFileSync(good).subarray(0, 4096));
      await refused(cut, /^it is damaged \(.+\)$/, false);
      const bytes = fs.readFileSync(good);
      bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff; // in gzip's trailer: the CRC
      const damaged = path.join(folder('damaged'), 'damaged.tar.gz');
      fs.writeFileSync(damaged, bytes);
      await refused(damaged, /^it is damaged \(.+\)$/, false);
    });

    it('a file that is not gzip, a gzip that is not a tar, an empty tar', async () => {
      const notes = path.join(folder('foreign'), 'notes.txt');
      fs.writeFileSync(notes, 'not an archive\n');
      await refused(notes, /^it is not a gzip file$/, true);
      const plain = path.join(folder('foreign'), 'notes.txt.gz');
      fs.writeFileSync(plain, zlib.gzipSync(Buffer.from('not an archive\n'.repeat(100))));
      await refused(plain, /^it is not a tar archive$/, true);
      const empty = path.join(folder('foreign'), 'empty.tar.gz');
      fs.writeFileSync(empty, zlib.gzipSync(Buffer.alloc(1024)));
      await refused(empty, /^it is not a tar archive$/, true);
    });

    it('a tar without the manifest first, or with a manifest of another format version', async () => {
      const from = folder('from');
      fs.writeFileSync(path.join(from, 'notes.txt'), 'hello');
      await refused(
        await crafted(from, ['notes.txt']),
        /^its first entry is "notes.txt", not gatehouse-backup.json$/,
        true,
      );
      await refused(
        await crafted(from, ['notes.txt'], { ...base, version: 2, files: 1, bytes: 5 }),
        /^it is of format version 2; this Gatehouse reads version 1$/,
        false,
      );
      await refused(
        await crafted(from, ['notes.txt'], { format: 'something-else' }),
        /^its gatehouse-backup.json is not a Gatehouse manifest$/,
        true,
      );
    });

    it('contents that disagree with the manifest', async () => {
      const from = folder('from');
      fs.writeFileSync(path.join(from, 'a'), 'aaaa');
      fs.writeFileSync(path.join(from, 'b'), 'bb');
      await refused(
        await crafted(from, ['a', 'b'], { ...base, files: 3, bytes: 6 }),
        /^it holds 2 entries of 6 bytes; its manifest says 3 of 6$/,
        false,
      );
      const into = folder('into');
      await refused(
        await crafted(from, ['a', 'b'], { ...base, files: 1, bytes: 4 }),
        /^it holds more than its manifest says \(1 entries of 4 bytes\)$/,
        false,
        into,
      );
      assert.equal(fs.existsSync(path.join(into, 'b')), false, 'what exceeds the manifest is not written');
    });

    it('an entry that would leave the target directory: `../x`, or an absolute name', async () => {
      // tar.create from a folder below the one holding x names it "../x".
      const outer = folder('outer');
      const inner = path.join(outer, 'inner');
      fs.mkdirSync(inner);
      fs.writeFileSync(path.join(outer, 'x'), 'escaped');
      const climbing = await crafted(inner, ['../x'], { ...base, files: 1, bytes: 7 });
      const names: string[] = [];
      await tar.list({ file: climbing, onReadEntry: (entry) => names.push(entry.path) });
      assert.deepEqual(names, [MANIFEST_NAME, '../x'], 'the crafted archive holds the escaping name');
      const parent = folder('parent');
      const into = path.join(parent, 'into');
      fs.mkdirSync(into);
      await refused(climbing, /^an entry named "\.\.\/x" would leave the target directory \(.+\)$/, false, into);
      assert.deepEqual(fs.readdirSync(parent), ['into'], 'nothing written beside the target');
      assert.deepEqual(fs.readdirSync(into), []);

      const absolute = path.join(outer, 'x');
      const rooted = await crafted(inner, [absolute], { ...base, files: 1, bytes: 7 }, { preservePaths: true });
      const rootedInto = folder('into');
      await refused(rooted, /^an entry named ".*x" would leave the target directory \(.+\)$/, false, rootedInto);
      assert.deepEqual(fs.readdirSync(rootedInto), []);
    });

    it('an entry other than a directory or a regular file (a symbolic link)', async () => {
      const from = folder('from');
      fs.symlinkSync('/etc/passwd', path.join(from, 'passwd'));
      const into = folder('into');
      await refused(
        await crafted(from, ['passwd'], { ...base, files: 1, bytes: 0 }),
        /^passwd: an entry of type SymbolicLink$/,
        false,
        into,
      );
      assert.deepEqual(fs.readdirSync(into), []);
    });
  });
});
