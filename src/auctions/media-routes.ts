// Stored images, served at /media/<sha256>.<ext> (public: an auction's pictures are public by
// nature, and a content address cannot be guessed). The name is the content, so the answer never
// changes: immutable caching, a strong ETag, and headers that stop a browser from treating the
// bytes as anything but the image type they were verified to be.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.ts';
import type { Auctions } from './index.ts';

const MEDIA_NAME = /^([0-9a-f]{64})\.(jpg|png|webp|gif)$/;

export const mediaRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  const { db } = face;
  app.get(
    '/media/:name',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auction import'],
        summary: 'A stored auction image.',
        description: 'Public. `Cache-Control: public, max-age=31536000, immutable`; strong ETag (the SHA-256), so If-None-Match answers 304. Only JPEG, PNG, WebP and GIF, verified by their bytes, are ever stored.',
        params: Type.Object({ name: Type.String({ maxLength: 80 }) }),
        produces: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
      },
    },
    async (request, reply) => {
      const match = MEDIA_NAME.exec(request.params.name);
      if (!match) throw notFound('The image');
      const [, sha256, ext] = match;
      const blob = await db.selectFrom('media_blobs').select(['content_type', 'extension', 'bytes']).where('sha256', '=', sha256!).executeTakeFirst();
      if (!blob || blob.extension !== ext) throw notFound('The image');
      const etag = `"${sha256}"`;
      reply.headers({
        'cache-control': 'public, max-age=31536000, immutable',
        etag,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cross-origin-resource-policy': 'cross-origin',
      });
      const ifNoneMatch = request.headers['if-none-match'];
      if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')) {
        return reply.code(304).send();
      }
      const stored = await face.blobs.get(`${sha256}.${ext}`);
      if (!stored) throw notFound('The image');
      return reply.type(blob.content_type).header('content-length', stored.size).send(stored.body);
    },
  );
};
