// The backup archive: a gzip-compressed POSIX tar (ustar), so that `tar -tzvf` lists it and `gzip
// -t` checks it anywhere, written and read here with no dependency. Its first entry is the
// manifest (what made it, when, how many files and bytes follow); then directories and regular
// files only. Reading checks every header's checksum, gzip's CRC and length (a damaged or cut file
// fails), the manifest first, and the counts against it; a name that would leave the target
// directory, or an entry of another type (a link, a device), is refused.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

export const MANIFEST_NAME = 'gatehouse-backup.json';
export const ARCHIVE_FORMAT = 'gatehouse-backup';
export const ARCHIVE_VERSION = 1;

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  createdAt: string;
  gatehouse: string;
  database: 'embedded';
  /** How the database was copied: from the running server (its pid), or a stopped data directory. */
  snapshot: string;
  /** Entries after the manifest, and the bytes of their files. */
  files: number;
  bytes: number;
}

/** An archive that is not one, or is damaged: the reason, in words. */
export class ArchiveError extends Error {
  override name = 'ArchiveError';
  constructor(
    message: string,
    /** Not a Gatehouse backup at all (a foreign file), rather than a damaged one. */
    readonly foreign = false,
  ) {
    super(message);
  }
}

export interface ArchiveItem {
  /** Its name in the archive (a relative path with /). */
  name: string;
  /** The file or directory it is read from. */
  from: string;
  directory: boolean;
  size: number;
  mode: number;
  mtimeMs: number;
}

/** Every directory and regular file under `dir`, named under `as`, parents first, in a stable order. */
export function listTree(dir: string, as: string): ArchiveItem[] {
  if (!fs.existsSync(dir)) return [];
  const items: ArchiveItem[] = [];
  const walk = (from: string, name: string) => {
    const stats = fs.statSync(from);
    if (stats.isDirectory()) {
      items.push({ name, from, directory: true, size: 0, mode: stats.mode, mtimeMs: stats.mtimeMs });
      for (const child of fs.readdirSync(from).sort()) walk(path.join(from, child), `${name}/${child}`);
    } else if (stats.isFile()) {
      items.push({ name, from, directory: false, size: stats.size, mode: stats.mode, mtimeMs: stats.mtimeMs });
    }
    // Anything else (a socket, a fifo) is not data: left out.
  };
  walk(dir, as);
  return items;
}

const BLOCK = 512;

function octal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii');
}

/** A ustar header; a name over 100 bytes is split at a / into prefix (155) and name (100). */
function header(name: string, size: number, mode: number, mtimeMs: number, directory: boolean): Buffer {
  const full = directory ? `${name}/` : name;
  let prefix = '';
  let base = full;
  if (Buffer.byteLength(full) > 100) {
    const cut = full.lastIndexOf('/', full.length - 2);
    prefix = full.slice(0, cut);
    base = full.slice(cut + 1);
    if (cut <= 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(base) > 100)
      throw new ArchiveError(`${name}: too long a path for the archive`);
  }
  if (size > 0o77777777777) throw new ArchiveError(`${name}: too large a file for the archive`);
  const block = Buffer.alloc(BLOCK);
  block.write(base, 0, 100, 'utf8');
  octal(block, 100, 8, mode & 0o7777);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, Math.floor(mtimeMs / 1000));
  block.fill(' ', 148, 156);
  block.write(directory ? '5' : '0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

async function* tarBlocks(manifest: Manifest, items: ArchiveItem[]): AsyncGenerator<Buffer> {
  const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  yield header(MANIFEST_NAME, text.length, 0o644, Date.parse(manifest.createdAt), false);
  yield text;
  yield padding(text.length);
  for (const item of items) {
    yield header(item.name, item.size, item.mode, item.mtimeMs, item.directory);
    if (item.directory || item.size === 0) continue;
    // Exactly the size listed: a file that changed since is caught, not archived half.
    let read = 0;
    for await (const chunk of fs.createReadStream(item.from, { end: item.size - 1 })) {
      read += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (read !== item.size) throw new ArchiveError(`${item.from} changed while it was archived`);
    yield padding(item.size);
  }
  yield Buffer.alloc(2 * BLOCK);
}

/**
 * Writes the archive to `file` by way of a temporary file beside it, renamed into place once
 * complete: a failure never leaves a half archive under the name asked for.
 */
export async function writeArchive(
  file: string,
  manifest: Omit<Manifest, 'files' | 'bytes'>,
  items: ArchiveItem[],
): Promise<Manifest> {
  const complete: Manifest = {
    ...manifest,
    files: items.length,
    bytes: items.reduce((sum, item) => sum + item.size, 0),
  };
  const temporary = `${file}.${process.pid}.partial`;
  try {
    await pipeline(
      Readable.from(tarBlocks(complete, items)),
      zlib.createGzip(),
      fs.createWriteStream(temporary, { mode: 0o600 }),
    );
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return complete;
}

function parseOctal(block: Buffer, offset: number, length: number): number {
  const text = block
    .toString('ascii', offset, offset + length)
    .replace(/\0.*$/s, '')
    .trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return parseOctal(block, 148, 8) === sum;
}

const cString = (block: Buffer, offset: number, length: number) => {
  const end = block.indexOf(0, offset);
  return block.toString('utf8', offset, end === -1 || end > offset + length ? offset + length : end);
};

/** A name that stays inside the target: relative, no `..`, no empty or `.` parts. */
function safeName(name: string): string {
  const trimmed = name.replace(/\/$/, '');
  const parts = trimmed.split('/');
  if (trimmed === '' || name.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new ArchiveError(`an entry named ${JSON.stringify(name)} would leave the target directory`);
  return trimmed;
}

/**
 * Extracts the archive into the directory `into` (which exists), checking it as it goes; answers
 * its manifest once every entry was written and the counts agree with it.
 */
export async function extractArchive(file: string, into: string): Promise<Manifest> {
  return readArchive(file, into);
}

async function readArchive(file: string, into: string | null): Promise<Manifest> {
  let buffer: Buffer = Buffer.alloc(0);
  let manifest: Manifest | null = null;
  let manifestText: Buffer[] | null = null;
  type Open = { fd: number | null; remaining: number; pad: number; name: string };
  let current = null as Open | null;
  let skip = 0;
  let ended = false;
  let files = 0;
  let bytes = 0;

  const take = (block: Buffer) => {
    if (!checksumOk(block)) {
      throw new ArchiveError(
        manifest ? 'a damaged entry (its header checksum does not match)' : 'it is not a tar archive',
        !manifest,
      );
    }
    const name = `${cString(block, 345, 155) ? `${cString(block, 345, 155)}/` : ''}${cString(block, 0, 100)}`;
    const size = parseOctal(block, 124, 12);
    const type = String.fromCharCode(block[156]!);
    const mode = parseOctal(block, 100, 8) & 0o777;
    if (!manifest) {
      if (name !== MANIFEST_NAME || type !== '0' || size > 1 << 20)
        throw new ArchiveError(`its first entry is ${JSON.stringify(name)}, not ${MANIFEST_NAME}`, true);
      manifestText = [];
      current = { fd: null, remaining: size, pad: padding(size).length, name };
      return;
    }
    const relative = safeName(name);
    if (type === '5') {
      if (into) fs.mkdirSync(path.join(into, relative), { recursive: true, mode: mode || 0o700 });
      files++;
      return;
    }
    if (type !== '0' && type !== '\0') throw new ArchiveError(`${relative}: an entry of type ${JSON.stringify(type)}`);
    files++;
    bytes += size;
    let fd: number | null = null;
    if (into) {
      const target = path.join(into, relative);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fd = fs.openSync(target, 'wx', mode || 0o600);
    }
    current = { fd, remaining: size, pad: padding(size).length, name: relative };
    if (size === 0) finishFile();
  };

  const finishFile = () => {
    const done = current!;
    current = null;
    skip = done.pad;
    if (done.fd !== null) fs.closeSync(done.fd);
    if (manifestText) {
      try {
        manifest = JSON.parse(Buffer.concat(manifestText).toString('utf8')) as Manifest;
      } catch {
        throw new ArchiveError(`its ${MANIFEST_NAME} is not JSON`, true);
      }
      manifestText = null;
      if (manifest.format !== ARCHIVE_FORMAT)
        throw new ArchiveError(`its ${MANIFEST_NAME} is not a Gatehouse manifest`, true);
      if (manifest.version !== ARCHIVE_VERSION)
        throw new ArchiveError(
          `it is of format version ${manifest.version}; this Gatehouse reads version ${ARCHIVE_VERSION}`,
        );
    }
  };

  const consume = () => {
    while (!ended) {
      if (current) {
        if (buffer.length === 0 && current.remaining > 0) return;
        const part = buffer.subarray(0, Math.min(current.remaining, buffer.length));
        if (current.fd !== null) fs.writeSync(current.fd, part);
        if (manifestText) manifestText.push(Buffer.from(part));
        current.remaining -= part.length;
        buffer = buffer.subarray(part.length);
        if (current.remaining === 0) finishFile();
        continue;
      }
      if (skip > 0) {
        const skipped = Math.min(skip, buffer.length);
        if (skipped === 0) return;
        skip -= skipped;
        buffer = buffer.subarray(skipped);
        continue;
      }
      if (buffer.length < BLOCK) return;
      const block = buffer.subarray(0, BLOCK);
      buffer = buffer.subarray(BLOCK);
      if (block.every((byte) => byte === 0)) {
        ended = true;
        return;
      }
      take(block);
    }
  };

  // The archive's own failure, kept: pipeline may answer with the abort of the streams it ended instead.
  let refusal: ArchiveError | null = null;
  try {
    await pipeline(fs.createReadStream(file), zlib.createGunzip(), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        try {
          consume();
        } catch (error) {
          if (error instanceof ArchiveError) refusal = error;
          throw error;
        }
      }
    });
  } catch (caught) {
    const error = refusal ?? caught;
    const open = current as Open | null;
    if (open?.fd != null) fs.closeSync(open.fd);
    if (error instanceof ArchiveError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_DATA_ERROR' && !manifest) throw new ArchiveError('it is not a gzip file', true);
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR')
      throw new ArchiveError(`it is damaged (${(error as Error).message})`);
    throw error;
  }
  if (!manifest) throw new ArchiveError('it is empty or cut short before its manifest', true);
  if (!ended || current) throw new ArchiveError('it is cut short');
  const found = manifest as Manifest;
  if (found.files !== files || found.bytes !== bytes)
    throw new ArchiveError(
      `it holds ${files} entries of ${bytes} bytes; its manifest says ${found.files} of ${found.bytes}`,
    );
  return found;
}
