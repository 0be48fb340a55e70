// The backup archive: a gzip-compressed tar, written and read by the `tar` package (so `tar -tzvf`
// lists it and `gzip -t` checks it anywhere). Its first entry is the manifest (what made it, when,
// how many entries and bytes follow); then directories and regular files only. What is ours on top
// of the library: the manifest first and the counts against it, the temporary name renamed into
// place, and the refusals in words. The library checks every header's checksum and gzip's CRC and
// length; with `strict` it refuses a name that would leave the target (`..`, an absolute path).
import fs from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';

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
  /** Its bytes (0 for a directory). */
  size: number;
}

/** Every directory and regular file under `dir`, named under `as`, parents first, in a stable order. */
export function listTree(dir: string, as: string): ArchiveItem[] {
  if (!fs.existsSync(dir)) return [];
  const items: ArchiveItem[] = [];
  const walk = (from: string, name: string) => {
    const stats = fs.statSync(from);
    if (stats.isDirectory()) {
      items.push({ name, from, size: 0 });
      for (const child of fs.readdirSync(from).sort()) walk(`${from}/${child}`, `${name}/${child}`);
    } else if (stats.isFile()) {
      items.push({ name, from, size: stats.size });
    }
    // Anything else (a socket, a fifo) is not data: left out.
  };
  walk(dir, as);
  return items;
}

/**
 * A link cache that remembers nothing: tar would archive a second name of a hard-linked file as a
 * link, which restore refuses; every file goes in whole instead.
 */
class NoHardLinks extends Map<`${number}:${number}`, string> {
  override set(): this {
    return this;
  }
}

/**
 * Writes the archive to `file` by way of a temporary file beside it, renamed into place once
 * complete: a failure never leaves a half archive under the name asked for. The items are read
 * from where they are (`from`) and named as listed (`name`), the manifest first; exactly these
 * items, so that the manifest counts what follows it.
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
  const manifestFile = path.resolve(`${file}.${process.pid}.manifest`);
  // By absolute path, as tar resolves them (entry.absolute), whatever the caller gave.
  const sources = items.map((item) => path.resolve(item.from));
  const names = new Map([[manifestFile, MANIFEST_NAME], ...items.map((item, i) => [sources[i]!, item.name] as const)]);
  let files = 0;
  let bytes = 0;
  try {
    fs.writeFileSync(manifestFile, `${JSON.stringify(complete, null, 2)}\n`, { mode: 0o644 });
    await tar.create(
      {
        file: temporary,
        mode: 0o600,
        gzip: true,
        portable: true,
        strict: true,
        // The items are named by absolute path (they live in more than one folder); each is renamed below.
        preservePaths: true,
        // Whatever the command's working directory: cwd only decides which hard links tar would record
        // as links (those under it, here all), and the link cache below records none.
        cwd: '/',
        noDirRecurse: true,
        // As listTree: a symbolic link is archived as what it points to.
        follow: true,
        linkCache: new NoHardLinks(),
        onWriteEntry(entry) {
          const name = names.get(entry.absolute);
          // Only what was listed is added (noDirRecurse). A stranger would be a bug: thrown in the entry's
          // constructor (the stat is cached by then), so the archive fails rather than holding a wrong name.
          if (name === undefined) throw new Error(`${entry.absolute} was not listed for the archive`);
          entry.path = entry.type === 'Directory' ? `${name}/` : name;
          if (entry.absolute === manifestFile) return;
          files++;
          bytes += entry.stat?.size ?? 0;
        },
      },
      [manifestFile, ...sources],
    );
    // tar sizes each file when it reaches it: one that changed since it was listed is caught here.
    if (files !== complete.files || bytes !== complete.bytes)
      throw new ArchiveError(
        `the files changed while they were archived (${files} entries of ${bytes} bytes; ${complete.files} of ${complete.bytes} were listed)`,
      );
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    // A listed file that shrank (tar reads exactly the size it found) or went away meanwhile.
    const { code, path: failed } = error as NodeJS.ErrnoException;
    if ((code === 'EOF' || code === 'ENOENT') && failed && names.has(failed))
      throw new ArchiveError(`${failed} changed while it was archived`);
    throw error;
  } finally {
    fs.rmSync(manifestFile, { force: true });
  }
  return complete;
}

/** What tar attaches to the errors it raises. */
type TarError = Error & { tarCode?: string; code?: string; syscall?: string; path?: string };

/** The one-line reason for a refusal the library raised, given whether the manifest was read. */
function refusal(error: TarError, manifestRead: boolean): Error {
  if (error instanceof ArchiveError) return error;
  // A file system failure while writing (a full disk) is not the archive's fault.
  if (error.syscall) return error;
  const reason = error.message.replace(/^(TAR_\w+|zlib): /, '');
  switch (error.tarCode) {
    case 'TAR_ABORT':
      // zlib's refusal: a cut or corrupted file (its CRC, its length).
      return new ArchiveError(`it is damaged (${reason})`);
    case 'TAR_ENTRY_INVALID':
    case 'TAR_BAD_ARCHIVE':
      // A header that is not one: before the manifest, a gzip of something else.
      return manifestRead
        ? new ArchiveError(`it is damaged (${reason})`)
        : new ArchiveError('it is not a tar archive', true);
    case 'TAR_ENTRY_ERROR':
    case 'TAR_ENTRY_INFO':
      // `..` in a name, an absolute name, a path through a link: strict mode refuses what would land elsewhere.
      return /\.\.|absolute|escape|symbolic link/.test(reason)
        ? new ArchiveError(`an entry named ${JSON.stringify(error.path)} would leave the target directory (${reason})`)
        : new ArchiveError(`${error.path}: ${reason}`);
    default:
      return error;
  }
}

/** Refuses what is not gzip: tar reads an uncompressed tar just as well, but a backup is always gzip. */
function requireGzip(file: string): void {
  const magic = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try {
    const read = fs.readSync(fd, magic, 0, 2, 0);
    if (read < 2 || magic[0] !== 0x1f || magic[1] !== 0x8b) throw new ArchiveError('it is not a gzip file', true);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The manifest, checked (format, version): the first entry, read without reading further — before
 * anything is extracted, and so that a foreign file is told apart from a damaged one.
 */
function readManifest(file: string): Promise<Manifest> {
  return new Promise((resolve, reject) => {
    const source = fs.createReadStream(file);
    // No ratio limit here either (see extractArchive): only the first entry is read.
    const parser = new tar.Parser({ strict: true, maxDecompressionRatio: Number.POSITIVE_INFINITY });
    const settle = (error: Error | null, manifest?: Manifest) => {
      source.destroy();
      if (error) reject(error);
      else resolve(manifest!);
    };
    parser.once('entry', (entry: tar.ReadEntry) => {
      if (entry.path !== MANIFEST_NAME || entry.type !== 'File' || entry.size > 1 << 20) {
        settle(new ArchiveError(`its first entry is ${JSON.stringify(entry.path)}, not ${MANIFEST_NAME}`, true));
        return;
      }
      const text: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => text.push(chunk));
      entry.on('end', () => {
        try {
          settle(null, checkManifest(Buffer.concat(text).toString('utf8')));
        } catch (error) {
          settle(error as Error);
        }
      });
    });
    parser.on('error', (error: TarError) => settle(refusal(error, false)));
    // tar raises an error for an archive without a valid entry; this only keeps the promise from hanging.
    parser.on('end', () => settle(new ArchiveError('it is empty or cut short before its manifest', true)));
    source.on('error', (error) => settle(error));
    source.pipe(parser);
  });
}

/**
 * Extracts the archive into the directory `into` (which exists), checking it as it goes; answers
 * its manifest once every entry was written and the counts agree with it. The manifest is read
 * first and not extracted; an entry other than a directory or a regular file is refused, as is
 * one more than the manifest counts (which bounds what a damaged or hostile archive can write).
 */
export async function extractArchive(file: string, into: string): Promise<Manifest> {
  requireGzip(file);
  const manifest = await readManifest(file);
  let seen = 0;
  let files = 0;
  let bytes = 0;
  try {
    await tar.extract({
      file,
      cwd: into,
      strict: true,
      // Owned by whoever restores, as any file they write; modes as archived (keys 0600).
      preserveOwner: false,
      // The manifest bounds what is written instead: a data directory's WAL can be mostly zeros.
      maxDecompressionRatio: Number.POSITIVE_INFINITY,
      filter(this: tar.Unpack, name, entry) {
        if (seen++ === 0) return false; // the manifest, read above
        const { type, size } = entry as tar.ReadEntry;
        if (type !== 'File' && type !== 'Directory') {
          this.abort(new ArchiveError(`${name}: an entry of type ${type}`));
          return false;
        }
        files++;
        bytes += size;
        if (files > manifest.files || bytes > manifest.bytes) {
          this.abort(
            new ArchiveError(
              `it holds more than its manifest says (${manifest.files} entries of ${manifest.bytes} bytes)`,
            ),
          );
          return false;
        }
        return true;
      },
    });
  } catch (error) {
    throw refusal(error as TarError, true);
  }
  if (manifest.files !== files || manifest.bytes !== bytes)
    throw new ArchiveError(
      `it holds ${files} entries of ${bytes} bytes; its manifest says ${manifest.files} of ${manifest.bytes}`,
    );
  return manifest;
}

function checkManifest(text: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new ArchiveError(`its ${MANIFEST_NAME} is not JSON`, true);
  }
  if (manifest?.format !== ARCHIVE_FORMAT)
    throw new ArchiveError(`its ${MANIFEST_NAME} is not a Gatehouse manifest`, true);
  if (manifest.version !== ARCHIVE_VERSION)
    throw new ArchiveError(
      `it is of format version ${manifest.version}; this Gatehouse reads version ${ARCHIVE_VERSION}`,
    );
  return manifest;
}
