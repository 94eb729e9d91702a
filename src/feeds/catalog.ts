import {
  FEED_FORMATS,
  FEED_NAMES,
  type FeedCatalog,
  type FeedCatalogItem,
  type FeedDefinition,
  type FeedFormat,
  type FeedManifest,
  type FeedName,
  type KeyTier,
} from './types.ts';

/** The six feeds of spec §2.10; licenses follow each feed's upstream sources (data/SOURCES.md). */
export const FEEDS: readonly FeedDefinition[] = [
  {
    name: 'tor_exits',
    title: 'Tor exit relays',
    description:
      'IP addresses of Tor exit relays, from the Tor Project exit lists (TorDNSEL exit-addresses).',
    tier: 'free',
    license:
      'Tor Project exit-list data, published by The Tor Project as CC0 1.0 public domain data. ' +
      'Free to use and redistribute.',
    has_brand: false,
  },
  {
    name: 'ai_crawlers',
    title: 'AI crawler and search bot ranges',
    description:
      'Networks that AI and search crawler operators publish for their bots (OpenAI, Google, Bing, Apple, ' +
      'Perplexity, DuckDuckGo), with the operator as brand. Supports the brand filter.',
    tier: 'free',
    license:
      'Compiled from IP range files the crawler operators publish for bot verification. Free to use ' +
      'for identifying and filtering crawler traffic; the ranges remain the statements of their operators.',
    has_brand: true,
  },
  {
    name: 'vpn_proxy',
    title: 'Consumer VPN and proxy egress',
    description: 'Egress networks of consumer VPN and proxy services, from X4BNet lists_vpn (VPN list).',
    tier: 'free',
    license:
      'Derived from X4BNet/lists_vpn, MIT License (Copyright (c) X4BNet). Keep the MIT notice when ' +
      'redistributing.',
    has_brand: false,
  },
  {
    name: 'datacenter_ranges',
    title: 'Datacenter network blocks',
    description:
      'Network blocks of hosting and datacenter providers, from X4BNet lists_vpn (datacenter list) and ' +
      'the cloud providers’ published ranges.',
    tier: 'free',
    license:
      'Derived from X4BNet/lists_vpn, MIT License (Copyright (c) X4BNet), and cloud providers’ public ' +
      'range files. Keep the MIT notice when redistributing.',
    has_brand: false,
  },
  {
    name: 'trap_confirmed',
    title: 'Pristine-trap confirmed senders',
    description: 'IPs that delivered mail to netrep pristine spam traps (never-published addresses).',
    tier: 'premium',
    license:
      'netrep premium data: licensed to the subscribing account for filtering its own traffic. ' +
      'No redistribution or resale.',
    has_brand: false,
  },
  {
    name: 'asn_wide_blocked',
    title: 'DROP/EDROP and ASN-wide blocked prefixes',
    description:
      'Prefixes on the Spamhaus DROP/EDROP lists plus prefixes of ASNs listed at UCEPROTECT level 3.',
    tier: 'premium',
    license:
      'Spamhaus DROP/EDROP data under the Spamhaus DROP terms (https://www.spamhaus.org/drop/terms/: ' +
      'free for filtering, no resale) and UCEPROTECT level 3 data, used with its notice. No redistribution.',
    has_brand: false,
  },
];

export interface FormatInfo {
  format: FeedFormat;
  /** Content-Type of the download (CONTRACT §9). */
  contentType: string;
  /** File name inside a snapshot directory and in Content-Disposition (prefixed with the feed name). */
  suffix: string;
}

export const FORMATS: Readonly<Record<FeedFormat, FormatInfo>> = {
  csv: { format: 'csv', contentType: 'text/csv; charset=utf-8; header=present', suffix: '.csv' },
  json: { format: 'json', contentType: 'application/json; charset=utf-8', suffix: '.json' },
  plain: { format: 'plain', contentType: 'text/plain; charset=utf-8', suffix: '.txt' },
  // RFC 4027: text/dns is the media type of a DNS master file.
  bind: { format: 'bind', contentType: 'text/dns; charset=utf-8', suffix: '.rpz.zone' },
  nginx: { format: 'nginx', contentType: 'text/plain; charset=utf-8', suffix: '.nginx.conf' },
  caddy: { format: 'caddy', contentType: 'text/plain; charset=utf-8', suffix: '.caddy' },
  iptables: { format: 'iptables', contentType: 'text/x-shellscript; charset=utf-8', suffix: '.iptables.sh' },
  cloudflare: { format: 'cloudflare', contentType: 'text/plain; charset=utf-8', suffix: '.cloudflare.txt' },
};

export function isFeedName(value: unknown): value is FeedName {
  return typeof value === 'string' && (FEED_NAMES as readonly string[]).includes(value);
}

export function isFeedFormat(value: unknown): value is FeedFormat {
  return typeof value === 'string' && (FEED_FORMATS as readonly string[]).includes(value);
}

export function feedDefinition(name: FeedName): FeedDefinition {
  const def = FEEDS.find((f) => f.name === name);
  if (!def) throw new Error(`feed ${name} is missing from FEEDS`);
  return def;
}

export function feedFileName(feed: FeedName, format: FeedFormat): string {
  return `${feed}${FORMATS[format].suffix}`;
}

export function feedDownloadPath(feed: FeedName, format: FeedFormat): string {
  return `/v1/feeds/${feed}/download/${format}`;
}

/** CONTRACT §3: premium feeds are entitled for pro and enterprise keys. */
export function isEntitled(def: FeedDefinition, tier: KeyTier): boolean {
  return def.tier === 'free' || tier === 'pro' || tier === 'enterprise';
}

/** One catalog item from the feed's definition and its latest manifest (null before the first build). */
export function catalogItem(
  def: FeedDefinition,
  tier: KeyTier,
  latest: FeedManifest | null,
): FeedCatalogItem {
  const download_url = {} as Record<FeedFormat, string>;
  for (const format of FEED_FORMATS) download_url[format] = feedDownloadPath(def.name, format);
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    tier: def.tier,
    license: def.license,
    entitled: isEntitled(def, tier),
    row_count: latest?.row_count ?? 0,
    generated_at: latest?.generated_at ?? null,
    sha256: latest?.sha256 ?? null,
    formats: [...FEED_FORMATS],
    download_url,
  };
}

export function buildCatalog(tier: KeyTier, latest: (name: FeedName) => FeedManifest | null): FeedCatalog {
  return { feeds: FEEDS.map((def) => catalogItem(def, tier, latest(def.name))), user_tier: tier };
}
