// A hostile-and-friendly image host on loopback: the true boundary of the image fetcher, as a
// real HTTP server. Every attack of the issue has a route here.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import sharp from 'sharp';

export interface ImageHost {
  url: string;
  port: number;
  /** host:port, for IMAGE_FETCH_ALLOW_HOSTS. */
  hostPort: string;
  /** How many times each path was requested. */
  hits: Map<string, number>;
  /** Make the next `count` requests of a path answer `status`. */
  failNext(path: string, count: number, status?: number): void;
  /** Requests whose body was cut off by the client before it ended. */
  aborted: string[];
  close(): Promise<void>;
}

export const MiB = 1024 * 1024;

export async function makeJpeg(width = 8, height = 6, color = '#c0392b'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .jpeg()
    .toBuffer();
}
export async function makePng(width = 5, height = 4): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: '#2980b9' } })
    .png()
    .toBuffer();
}
export async function makeWebp(): Promise<Buffer> {
  return sharp({ create: { width: 3, height: 3, channels: 3, background: '#27ae60' } })
    .webp()
    .toBuffer();
}
export async function makeGif(): Promise<Buffer> {
  return sharp({ create: { width: 2, height: 2, channels: 3, background: '#8e44ad' } })
    .gif()
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/** A real PNG of 12,000 × 12,000 grey pixels (144 MP, 144 MB decoded) in about 140 KB. */
export async function makeDecompressionBomb(side = 12_000): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const rows = Buffer.alloc((side + 1) * 100); // 100 rows of zeros (filter byte + pixels)
  const deflate = zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  for (let i = 0; i < side / 100; i++)
    if (!deflate.write(rows)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await ended;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.concat(out)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface ImageHostOptions {
  /** Where /redirect-elsewhere sends the client (e.g. a private address). */
  redirectTarget?: string;
}

export async function startImageHost(options: ImageHostOptions = {}): Promise<ImageHost> {
  const jpeg = await makeJpeg();
  const png = await makePng();
  const webp = await makeWebp();
  const gif = await makeGif();
  // Made before the server listens: building it takes the CPU for a moment.
  const bomb = await makeDecompressionBomb();
  const hits = new Map<string, number>();
  const failures = new Map<string, { count: number; status: number }>();
  const aborted: string[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.on('close', () => {
      if (!res.writableFinished) aborted.push(path);
    });
    const failure = failures.get(path);
    if (failure && failure.count > 0) {
      failure.count--;
      res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('try later');
      return;
    }
    const send = (type: string, body: Buffer) =>
      res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
    const variant = url.searchParams.get('v');
    if (path.startsWith('/img/')) {
      // /img/<anything>.jpg: a distinct JPEG per name (unless ?same), to test storage per content.
      if (url.searchParams.has('same')) return send('image/jpeg', jpeg);
      const seed = [...path].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
      void makeJpeg(8 + (seed % 13), 6 + (seed % 7), `#${(seed & 0xffffff).toString(16).padStart(6, '0')}`).then(
        (body) => send('image/jpeg', body),
      );
      return;
    }
    switch (path) {
      case '/photo.jpg':
        return send('image/jpeg', jpeg);
      case '/same-photo-again.jpg':
        return send('image/jpeg', jpeg);
      case '/photo.png':
        return send('image/png', png);
      case '/photo.webp':
        return send('image/webp', webp);
      case '/photo.gif':
        return send('image/gif', gif);
      case '/claims-jpeg.html':
        // HTML that lies about its type.
        return send(
          'image/jpeg',
          Buffer.from(`<!doctype html><html><body>${'<p>not an image</p>'.repeat(400)}${variant ?? ''}</body></html>`),
        );
      case '/svg-as-png':
        return send('image/png', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'));
      case '/huge-declared.jpg': {
        // Declares 50 MB; sends a JPEG head and then zeros until the client gives up.
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 50 * MiB });
        res.write(jpeg.subarray(0, 100));
        return sendZeros(res, 100);
      }
      case '/huge-chunked.jpg': {
        // No Content-Length: a JPEG head and then 50 MB, chunked.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        res.write(jpeg.subarray(0, jpeg.length - 2));
        return sendZeros(res, 0);
      }
      case '/drip.jpg': {
        // A body that never ends: one byte every 100 ms.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        let i = 0;
        const timer = setInterval(() => {
          if (res.destroyed) {
            clearInterval(timer);
            timers.delete(timer);
            return;
          }
          res.write(jpeg.subarray(i % jpeg.length, (i % jpeg.length) + 1));
          i++;
        }, 100);
        timers.add(timer);
        return;
      }
      case '/bomb.png':
        return send('image/png', bomb);
      case '/redirect-elsewhere':
        return res
          .writeHead(302, { location: url.searchParams.get('to') ?? options.redirectTarget ?? 'http://127.0.0.1:1/' })
          .end();
      case '/redirect-to-photo':
        return res.writeHead(301, { location: '/photo.jpg' }).end();
      case '/redirect-chain': {
        const n = Number(url.searchParams.get('n') ?? '0');
        return res.writeHead(302, { location: n > 0 ? `/redirect-chain?n=${n - 1}` : '/photo.jpg' }).end();
      }
      case '/redirect-loop':
        return res.writeHead(302, { location: '/redirect-loop' }).end();
      case '/missing.jpg':
        return res.writeHead(404, { 'content-type': 'text/plain' }).end('no such image');
      default:
        return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    hits,
    aborted,
    failNext(path, count, status = 503) {
      failures.set(path, { count, status });
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes zeros, as fast as the client reads them, until 50 MB are sent (counting `sent` already) or it gives up. */
function sendZeros(res: http.ServerResponse, sent: number): void {
  const zeros = Buffer.alloc(64 * 1024);
  const pump = () => {
    while (sent < 50 * MiB && !res.destroyed) {
      sent += zeros.length;
      if (!res.write(zeros)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}
