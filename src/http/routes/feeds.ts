import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  entitledFeed,
  FeedCatalogSchema,
  type FeedDownload,
  FeedFormatSchema,
  FeedManifestSchema,
  FeedNameSchema,
  FORMATS,
  feedsDir,
  type KeyTier,
  listFeedCatalog,
  missingSnapshot,
  openFeedFile,
  requireFeedManifest,
} from '../../feeds/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { downloadFeedExample, getFeedManifestExample, listFeedsExample } from '../examples/feeds.ts';
import { documentedAs, envelope, errorResponses } from '../schemas.ts';

const access = { kind: 'key', permission: 'feeds:read' } as const;
// Documented as the enums of names and formats; the handler checks them, so an unknown feed is
// 404 NOT_FOUND (an unknown resource) and an unknown format 400 INVALID_PARAMETER.
const FeedParam = documentedAs(Type.String({ description: 'Feed name', maxLength: 64 }), FeedNameSchema);
const FormatParam = documentedAs(Type.String({ description: 'Format', maxLength: 32 }), FeedFormatSchema);
/** The media types of the download formats (feeds/catalog.ts), without their parameters. */
const DOWNLOAD_TYPES = [...new Set(Object.values(FORMATS).map((f) => f.contentType.split(';')[0] ?? ''))];
const DateQuery = Type.Optional(
  Type.String({
    description: 'A past snapshot day (YYYY-MM-DD); default: the latest snapshot',
    maxLength: 10,
  }),
);

function tierOf(request: FastifyRequest): KeyTier {
  return request.principal?.tier.name ?? 'free';
}

/** RFC 9110 §13.1.2: a list of entity tags (weak or strong), or `*`. */
function etagMatches(header: string | string[] | undefined, sha256: string): boolean {
  if (header === undefined) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',');
  return tags.some((t) => {
    const tag = t.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    return tag === '*' || tag === sha256;
  });
}

function sendDownload(request: FastifyRequest, reply: FastifyReply, d: FeedDownload): FastifyReply {
  const date = d.manifest.snapshot_date;
  reply.header('last-modified', new Date(d.lastModified).toUTCString());
  reply.header('cache-control', 'private, no-cache');
  reply.header('x-feed-snapshot-date', date);
  if (d.brand !== null) reply.header('x-feed-brand', d.brand);
  if (d.include !== null) reply.header('x-feed-include', d.include);
  if (d.sha256 !== null) {
    reply.header('etag', `"${d.sha256}"`);
    if (etagMatches(request.headers['if-none-match'], d.sha256)) {
      d.stream.destroy();
      return reply.code(304).send();
    }
  }
  if (d.bytes !== null) reply.header('content-length', d.bytes);
  const name = d.fileName.replace(/^([a-z_]+)/, `$1-${date}`);
  reply.header('content-disposition', `attachment; filename="${name}"`);
  return reply.type(d.contentType).send(d.stream);
}

export function feedRoutes(app: HttpApp, services: HttpServices): void {
  const dir = feedsDir(services.config.dataDir);

  app.get(
    '/v1/feeds',
    {
      config: { access, envelope: false },
      schema: {
        tags: ['feeds'],
        operationId: 'listFeeds',
        examples: listFeedsExample,
        summary:
          'The feed catalog: every feed with its latest snapshot and whether your key may download it.',
        response: { 200: FeedCatalogSchema },
      },
    },
    async (request) => listFeedCatalog(dir, tierOf(request)),
  );

  app.get(
    '/v1/feeds/:feed/manifest',
    {
      config: { access },
      schema: {
        tags: ['feeds'],
        operationId: 'getFeedManifest',
        examples: getFeedManifestExample,
        summary: "A feed snapshot's manifest: checksum, row count, generation time and per-format files.",
        params: Type.Object({ feed: FeedParam }),
        querystring: Type.Object({ date: DateQuery }),
        response: { 200: envelope(FeedManifestSchema), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const { feed } = request.params;
      const { date } = request.query;
      return { data: await requireFeedManifest(dir, entitledFeed(feed, tierOf(request)), date) };
    },
  );

  app.get(
    '/v1/feeds/:feed/download/:format',
    {
      config: { access },
      schema: {
        tags: ['feeds'],
        operationId: 'downloadFeed',
        examples: downloadFeedExample,
        produces: DOWNLOAD_TYPES,
        summary:
          'Download a feed snapshot in one format (streamed). ETag is the file SHA-256; brand filters ai_crawlers, include=search adds search engine crawlers to it.',
        params: Type.Object({
          feed: FeedParam,
          format: FormatParam,
        }),
        querystring: Type.Object({
          brand: Type.Optional(
            Type.String({
              description: 'ai_crawlers only: keep one operator (case-insensitive)',
              maxLength: 64,
            }),
          ),
          include: Type.Optional(
            Type.String({
              description:
                'ai_crawlers only: `search` adds search engine crawlers (Googlebot, Bingbot, Applebot, DuckDuckBot; ' +
                'kind search_crawler), which the feed leaves out by default. Encoded on the fly: no ETag; the ' +
                'response says X-Feed-Include',
              maxLength: 32,
            }),
          ),
          date: DateQuery,
        }),
        response: {
          200: Type.String({ description: 'The file in the requested format' }),
          304: Type.Null({ description: 'Not modified: If-None-Match names the current file' }),
          ...errorResponses('NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const { feed, format } = request.params;
      const { brand, include, date } = request.query;
      const name = entitledFeed(feed, tierOf(request));
      const download = await openFeedFile(dir, name, date, format, {
        ...(brand === undefined ? {} : { brand }),
        ...(include === undefined ? {} : { include }),
      });
      if (!download) throw missingSnapshot(name, date);
      return sendDownload(request, reply, download);
    },
  );
}
