// The support console (SPEC.md §3.5): a web page at /console where support resolves support
// notifications — change an auction's type, enrol a facility in the charity programme, cancel —
// through the admin routes. The page itself is public and holds no data: it signs in with an
// operator application's credentials and calls the admin API with that token. A strict Content
// Security Policy allows only this origin's script and style, and no framing.
import fs from 'node:fs';
import path from 'node:path';
import { codeFile } from '../../code-dir.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';

const PAGE_DIR = codeFile('console', 'page');

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const FILES = {
  '/console': { file: 'index.html', type: 'text/html; charset=utf-8', summary: 'The support console (web page).' },
  '/console/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8', summary: 'The support console script.' },
  '/console/app.css': { file: 'app.css', type: 'text/css; charset=utf-8', summary: 'The support console style sheet.' },
} as const;

function secure(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .type(type)
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache');
}

export const consoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const [url, { file, type, summary }] of Object.entries(FILES)) {
    const body = fs.readFileSync(path.join(PAGE_DIR, file));
    app.get(
      url,
      {
        config: { access: 'public' },
        // A web page, not API: kept out of the OpenAPI documents.
        schema: {
          hide: true,
          tags: ['support'],
          summary,
          description:
            url === '/console'
              ? "Public page without data: support signs in with an operator application's client credentials; the page then uses the admin routes (scope admin)."
              : undefined,
          produces: [type.split(';')[0]!],
        },
      },
      async (_request, reply) => secure(reply, type).send(body),
    );
  }
};
