// GET /media/<sha256>.<ext>: stored images (media.ts). Public: an auction's pictures are public
// by nature, and a content address cannot be guessed. The name is the content, so the answer
// never changes: immutable caching, a strong ETag, and headers that stop a browser from treating
// the bytes as anything but the image type they were verified to be.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../errors.ts';
import { PUBLIC } from '../../http/access.ts';
import type { Auctions } from '../index.ts';
import { importTags as tags } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
const IMAGE = { type: 'string', format: 'binary' };

/** Whether an If-None-Match header names this entity tag (strong or weak) or any (`*`). */
const matches = (ifNoneMatch: string | undefined, etag: string) =>
  typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((t) => [etag, `W/${etag}`, '*'].includes(t.trim()));

export const mediaRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  app.get(
    '/media/:name',
    {
      config: PUBLIC,
      schema: {
        operationId: 'getAuctionImage',
        tags,
        summary: 'A stored auction image.',
        description:
          'Public. `Cache-Control: public, max-age=31536000, immutable`; strong ETag (the SHA-256), ' +
          'so If-None-Match answers 304. Only JPEG, PNG, WebP and GIF, verified by their bytes, ' +
          'are ever stored.',
        params: Type.Object({ name: Type.String({ maxLength: 80 }) }),
        // The bytes are sent as they are (a stream is never serialized).
        response: {
          200: {
            description: 'The image, in the type its bytes were verified to be.',
            content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: IMAGE }])),
          },
          // No body (`type: 'null'` keeps content out of the document; the handler sends nothing).
          304: Type.Unsafe<undefined>({
            type: 'null',
            description: 'Not modified: If-None-Match names this image’s ETag.',
          }),
          404: Refused('No image is stored under that name (NOT_FOUND).'),
        },
      },
    },
    async (request, reply) => {
      const image = await face.findStoredImage(request.params.name);
      if (!image) throw notFound('The image');
      reply.headers({
        'cache-control': 'public, max-age=31536000, immutable',
        etag: image.etag,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cross-origin-resource-policy': 'cross-origin',
      });
      if (matches(request.headers['if-none-match'], image.etag)) return reply.code(304).send();
      const stored = await face.readStoredImage(image);
      if (!stored) throw notFound('The image');
      return reply.type(image.contentType).header('content-length', stored.size).send(stored.body);
    },
  );
};
