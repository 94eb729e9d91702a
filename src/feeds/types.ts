import { type Static, Type } from '@sinclair/typebox';

/** The six feeds of spec §2.10. */
export const FEED_NAMES = [
  'tor_exits',
  'ai_crawlers',
  'vpn_proxy',
  'datacenter_ranges',
  'trap_confirmed',
  'asn_wide_blocked',
] as const satisfies readonly FeedName[];
export const FeedNameSchema = Type.Union(
  [
    Type.Literal('tor_exits'),
    Type.Literal('ai_crawlers'),
    Type.Literal('vpn_proxy'),
    Type.Literal('datacenter_ranges'),
    Type.Literal('trap_confirmed'),
    Type.Literal('asn_wide_blocked'),
  ],
  { description: 'Feed name' },
);
export type FeedName = Static<typeof FeedNameSchema>;

/** The eight formats of spec §2.10, in the order the catalog lists them. */
export const FEED_FORMATS = [
  'csv',
  'json',
  'plain',
  'bind',
  'nginx',
  'caddy',
  'iptables',
  'cloudflare',
] as const satisfies readonly FeedFormat[];
export const FeedFormatSchema = Type.Union(
  [
    Type.Literal('csv'),
    Type.Literal('json'),
    Type.Literal('plain'),
    Type.Literal('bind'),
    Type.Literal('nginx'),
    Type.Literal('caddy'),
    Type.Literal('iptables'),
    Type.Literal('cloudflare'),
  ],
  { description: 'Download format' },
);
export type FeedFormat = Static<typeof FeedFormatSchema>;

export const FeedTierSchema = Type.Union([Type.Literal('free'), Type.Literal('premium')], {
  description: 'free: every key; premium: pro and enterprise keys only',
});

/** Key tiers of CONTRACT §3. */
export const KeyTierSchema = Type.Union(
  [Type.Literal('free'), Type.Literal('starter'), Type.Literal('pro'), Type.Literal('enterprise')],
  { description: "The calling key's tier" },
);
export type KeyTier = Static<typeof KeyTierSchema>;

/**
 * The longest `source` a feed row carries. Every input that becomes a row's source keeps to it
 * (POST /v1/admin/evidence's `source` is checked against it), so a row is never refused for it.
 */
export const MAX_FEED_SOURCE_LENGTH = 128;

const Iso = (description: string) => Type.String({ description, minLength: 1, maxLength: 64 });

/** One feed row, as the csv and json files carry it (CONTRACT §9). */
export const FeedRowSchema = Type.Object(
  {
    network: Type.String({
      description: 'IP address or CIDR, normalized (host routes are written as a bare address)',
      minLength: 1,
      maxLength: 64,
    }),
    kind: Type.String({
      description: 'What the network is, e.g. tor_exit, ai_crawler',
      minLength: 1,
      maxLength: 64,
    }),
    source: Type.String({
      description: 'Upstream source of the row',
      minLength: 1,
      maxLength: MAX_FEED_SOURCE_LENGTH,
    }),
    first_seen: Iso('When the network was first seen (RFC 3339 UTC)'),
    last_seen: Iso('When the network was last seen (RFC 3339 UTC)'),
    brand: Type.Optional(
      Type.String({ description: 'Crawler operator (ai_crawlers only)', minLength: 1, maxLength: 64 }),
    ),
    asn: Type.Optional(
      Type.Integer({ description: 'Origin ASN where known', minimum: 0, maximum: 4294967295 }),
    ),
  },
  { additionalProperties: false },
);
export type FeedRow = Static<typeof FeedRowSchema>;

export const FeedDefinitionSchema = Type.Object({
  name: FeedNameSchema,
  title: Type.String({ description: 'Short human title' }),
  description: Type.String({ description: 'What the feed lists and where it comes from' }),
  tier: FeedTierSchema,
  license: Type.String({ description: 'Terms under which the feed may be used, from its upstream sources' }),
  has_brand: Type.Boolean({ description: 'Rows carry a brand and downloads accept the brand filter' }),
});
export type FeedDefinition = Static<typeof FeedDefinitionSchema>;

export const FeedFileSchema = Type.Object({
  path: Type.String({ description: 'Download path of the file' }),
  sha256: Type.String({ description: 'SHA-256 of the file (lower-case hex)', pattern: '^[0-9a-f]{64}$' }),
  bytes: Type.Integer({ description: 'File size in bytes', minimum: 0 }),
});
export type FeedFile = Static<typeof FeedFileSchema>;

/** The manifest of one daily snapshot (CONTRACT §9). */
export const FeedManifestSchema = Type.Object({
  feed: FeedNameSchema,
  title: Type.String({ description: 'Feed title' }),
  tier: FeedTierSchema,
  license: Type.String({ description: 'Feed license' }),
  generated_at: Type.String({ description: 'When the snapshot was built (RFC 3339 UTC)' }),
  snapshot_date: Type.String({
    description: 'UTC day of the snapshot (YYYY-MM-DD)',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  }),
  row_count: Type.Integer({ description: 'Rows in the snapshot after normalization and dedupe', minimum: 0 }),
  sha256: Type.String({ description: 'SHA-256 of the csv file', pattern: '^[0-9a-f]{64}$' }),
  dataset_version: Type.Integer({ description: 'Dataset version the rows came from', minimum: 0 }),
  files: Type.Record(FeedFormatSchema, FeedFileSchema, {
    description: 'Per-format file: download path, SHA-256 and size',
  }),
});
export type FeedManifest = Static<typeof FeedManifestSchema>;

/** One item of `GET /v1/feeds` (spec §2.10). */
export const FeedCatalogItemSchema = Type.Object({
  name: FeedNameSchema,
  title: Type.String({ description: 'Feed title' }),
  description: Type.String({ description: 'Feed description' }),
  tier: FeedTierSchema,
  license: Type.String({ description: 'Feed license' }),
  entitled: Type.Boolean({ description: "Whether the caller's tier may download the feed" }),
  row_count: Type.Integer({
    description: 'Rows in the latest snapshot (0 before the first build)',
    minimum: 0,
  }),
  generated_at: Type.Union([Type.String(), Type.Null()], {
    description: 'When the latest snapshot was built; null before the first build',
  }),
  sha256: Type.Union([Type.String(), Type.Null()], {
    description: "SHA-256 of the latest snapshot's csv file; null before the first build",
  }),
  formats: Type.Array(FeedFormatSchema, { description: 'The eight download formats' }),
  download_url: Type.Record(FeedFormatSchema, Type.String(), { description: 'Download path per format' }),
});
export type FeedCatalogItem = Static<typeof FeedCatalogItemSchema>;

/** `GET /v1/feeds`: the one response without the data/meta envelope (spec §2.1). */
export const FeedCatalogSchema = Type.Object({
  feeds: Type.Array(FeedCatalogItemSchema, { description: 'Every feed, entitled or not' }),
  user_tier: KeyTierSchema,
});
export type FeedCatalog = Static<typeof FeedCatalogSchema>;
