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
    title: 'AI crawler ranges',
    description:
      'Networks that AI crawler, assistant and agent operators publish for their bots (OpenAI GPTBot, ' +
      'OAI-SearchBot, ChatGPT-User; PerplexityBot, Perplexity-User), kind ai_crawler, with the operator as ' +
      'brand. Search engine crawlers (Googlebot and Google fetchers, Bingbot, Applebot, DuckDuckBot; kind ' +
      'search_crawler) are left out unless the download asks for them with include=search. Supports the ' +
      'brand filter.',
    tier: 'free',
    license:
      'Compiled from IP range files the crawler operators publish for bot verification. Free to use ' +
      'for identifying and filtering crawler traffic; the ranges remain the statements of their operators.',
    has_brand: true,
  },
  {
    name: 'vpn_proxy',
    title: 'Consumer VPN and open proxy egress',
    description:
      'Egress networks of consumer VPN services (X4BNet lists_vpn, kind vpn) and open proxies from public ' +
      'proxy lists (spys.me, clarketm/proxy-list, TheSpeedX/PROXY-List, FireHOL firehol_proxies; kind ' +
      'proxy). Proxy lists older than three days are left out.',
    tier: 'free',
    license:
      'Derived from X4BNet/lists_vpn, MIT License (Copyright (c) X4BNet), and public proxy lists ' +
      '(clarketm/proxy-list, MIT License, Copyright (c) 2018 Travis Clarke; spys.me, TheSpeedX/PROXY-List ' +
      'and FireHOL publish theirs freely). Keep the MIT notices when redistributing.',
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

/**
 * Rows a feed keeps beside its daily files rather than in them, by `include` value: the row kind
 * and the csv file that holds them in the snapshot directory. A download with `include=<value>`
 * adds them (encoded on the fly, like a brand filter).
 */
export const FEED_INCLUDES: Partial<
  Record<FeedName, Readonly<Record<string, { kind: string; file: string }>>>
> = {
  ai_crawlers: { search: { kind: 'search_crawler', file: 'ai_crawlers.include-search.csv' } },
};

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
