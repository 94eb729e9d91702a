/**
 * Per-feed source rows written beside a snapshot (`feed-rows/<feed>.tsv`): the flattened
 * tables keep only flag bits per interval, but feeds need each listed network with its
 * source and dates. One TSV per dataset-derived feed, header line first, read back as a stream.
 *
 * Dates: Tor exit-addresses carries a per-address sighting time (first_seen and last_seen
 * come from it); other sources carry none, so last_seen is the build time and first_seen is
 * the network's first_seen in the previous version's file (the build time when it is new).
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import {
  type AddrRange,
  type Family,
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseCloudIpsJson,
  parseDropJson,
  parseDropText,
  parseFastlyRanges,
  parseFireholNetset,
  parseGeofeedCsv,
  parseGithubMeta,
  parseGoogleStyleRanges,
  parseIp4SetZone,
  parseIpPortList,
  parseOracleRanges,
  parsePlainList,
  parseSpysProxyList,
  parseTorExitAddresses,
  parseVultrGeofeed,
  rangeToCidrs,
} from './importers/index.ts';
import type { AsnRangeRow } from './importers/ip-location-db.ts';
import { isAiPurpose, type SourceKind, type SourceSpec, UPSTREAM_SOURCES } from './sources.ts';

/** The feeds whose rows come from the dataset (trap_confirmed comes from the store). */
export const DATASET_FEEDS = [
  'tor_exits',
  'ai_crawlers',
  'vpn_proxy',
  'datacenter_ranges',
  'asn_wide_blocked',
] as const;
export type DatasetFeed = (typeof DATASET_FEEDS)[number];

export const FEED_ROWS_DIR = 'feed-rows';
const COLUMNS = ['network', 'kind', 'source', 'first_seen', 'last_seen', 'brand', 'asn'] as const;

/** One row as feeds/ expects it (`FeedRow` of the feeds module). */
export interface DatasetFeedRow {
  network: string;
  kind: string;
  source: string;
  first_seen: string;
  last_seen: string;
  brand?: string;
  asn?: number;
}

/** Which feed a source kind lists into, under which row kind. Order of UPSTREAM_SOURCES = precedence. */
const FEED_OF: Partial<Record<SourceKind, { feed: DatasetFeed; kind: string }>> = {
  'tor-exit-addresses': { feed: 'tor_exits', kind: 'tor_exit' },
  'tor-list': { feed: 'tor_exits', kind: 'tor_exit' },
  'ai-crawler': { feed: 'ai_crawlers', kind: 'ai_crawler' },
  'vpn-list': { feed: 'vpn_proxy', kind: 'vpn' },
  'proxy-list': { feed: 'vpn_proxy', kind: 'proxy' },
  'datacenter-list': { feed: 'datacenter_ranges', kind: 'datacenter' },
  cloud: { feed: 'datacenter_ranges', kind: 'cloud' },
  drop: { feed: 'asn_wide_blocked', kind: 'drop' },
  edrop: { feed: 'asn_wide_blocked', kind: 'edrop' },
  uce3: { feed: 'asn_wide_blocked', kind: 'uceprotect_level3' },
};

type DatedRange = AddrRange & { seenAt?: string };

function parseRanges(spec: SourceSpec, bytes: Buffer): DatedRange[] {
  switch (spec.format) {
    case 'plain':
      return parsePlainList(bytes).rows;
    case 'tor-exit':
      return parseTorExitAddresses(bytes).rows;
    case 'aws':
      return parseAwsIpRanges(bytes).rows;
    case 'google':
      return parseGoogleStyleRanges(bytes).rows;
    case 'azure':
      return parseAzureServiceTags(bytes).rows;
    case 'oracle':
      return parseOracleRanges(bytes).rows;
    case 'fastly':
      return parseFastlyRanges(bytes).rows;
    case 'github':
      return parseGithubMeta(bytes).rows;
    case 'cloud-ips':
      return parseCloudIpsJson(bytes).rows;
    case 'drop-text':
      return parseDropText(bytes).rows;
    case 'drop-json':
      return parseDropJson(bytes).rows;
    case 'geofeed-csv':
      return parseGeofeedCsv(bytes).rows;
    case 'vultr-json':
      return parseVultrGeofeed(bytes).rows;
    case 'ip4set':
      // Carve-outs are not listings; a feed lists what the zone lists.
      return parseIp4SetZone(bytes).rows;
    case 'spys-proxy':
      return parseSpysProxyList(bytes).rows;
    case 'ip-port':
      return parseIpPortList(bytes).rows;
    case 'netset':
      return parseFireholNetset(bytes).rows;
    default:
      return [];
  }
}

/** Row kind of ai_crawlers rows that are not AI crawlers: the feed lists them only on request. */
export const SEARCH_CRAWLER_KIND = 'search_crawler';

/**
 * The feed a source lists into: geofeeds of labelled providers are their range publications;
 * crawler ranges are `ai_crawler` rows for AI purposes and `search_crawler` rows otherwise.
 */
function feedFor(spec: SourceSpec): { feed: DatasetFeed; kind: string } | null {
  if (spec.kind === 'geofeed') return spec.label ? { feed: 'datacenter_ranges', kind: 'cloud' } : null;
  if (spec.kind === 'ai-crawler')
    return {
      feed: 'ai_crawlers',
      kind: spec.crawler && !isAiPurpose(spec.crawler.purpose) ? SEARCH_CRAWLER_KIND : 'ai_crawler',
    };
  return FEED_OF[spec.kind] ?? null;
}

function readPrevious(file: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(file)) return out;
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 1; i < lines.length; i++) {
    const cols = (lines[i] as string).split('\t');
    if (cols[0] && cols[3]) out.set(cols[0], cols[3]);
  }
  return out;
}

function clean(text: string): string {
  return text.replace(/[\t\r\n]/g, ' ');
}

class FeedCollector {
  readonly rows = new Map<string, DatasetFeedRow>();
  constructor(
    private readonly previous: Map<string, string>,
    private readonly createdAt: string,
  ) {}

  /** The first source to list a network wins (precedence = source order); later ones are dropped. */
  add(family: Family, r: DatedRange, kind: string, source: string, extra: { brand?: string; asn?: number }) {
    for (const network of rangeToCidrs(family, r.start, r.end)) {
      if (this.rows.has(network)) continue;
      const prev = this.previous.get(network);
      const seen = r.seenAt ? new Date(r.seenAt).toISOString() : this.createdAt;
      const row: DatasetFeedRow = {
        network,
        kind,
        source,
        first_seen: prev !== undefined && prev < seen ? prev : seen,
        last_seen: seen,
      };
      if (extra.brand) row.brand = clean(extra.brand);
      if (extra.asn !== undefined) row.asn = extra.asn;
      this.rows.set(network, row);
    }
  }
}

export interface WriteFeedRowsInput {
  /** The snapshot directory being written. */
  dir: string;
  /** The build's upstream directory (`--from`; without it only ASN-derived rows can exist) and source list. */
  build: { from?: string; sources?: readonly SourceSpec[] };
  /**
   * ip-location-db ASN ranges (ASN-DROP ASNs' prefixes), the ASN-DROP list of the build, and the
   * build's sources (those it left out, e.g. aged-out proxy lists, list nothing here either).
   */
  inputs: {
    asn: readonly AsnRangeRow[];
    asnDrop: ReadonlyMap<number, unknown>;
    sources?: readonly { id: string; skipped?: string }[];
  };
  createdAt: string;
  /** The previous version's snapshot directory, for first_seen. */
  previousDir?: string;
}

/** Writes `feed-rows/<feed>.tsv` for every dataset feed into a snapshot directory (builds with upstream files only). */
export function writeFeedRows(input: WriteFeedRowsInput): void {
  // Without upstream files (a build from the npm packages alone) there is nothing to publish.
  // Writing empty files would let the daily feed job freeze an empty snapshot for the whole
  // day; without them the feeds answer NOT_READY until a `--from`/`update` build brings data.
  const { from } = input.build;
  if (!from) return;
  const out = path.join(input.dir, FEED_ROWS_DIR);
  mkdirSync(out, { recursive: true });
  const collectors = openCollectors(input);
  collectSources(input, from, collectors);
  for (const [feed, collector] of collectors) writeFeedFile(path.join(out, `${feed}.tsv`), collector);
}

/** One collector per dataset feed, each knowing the previous version's first_seen dates. */
function openCollectors(input: WriteFeedRowsInput): Map<DatasetFeed, FeedCollector> {
  const collectors = new Map<DatasetFeed, FeedCollector>();
  for (const feed of DATASET_FEEDS) {
    const prev = input.previousDir ? path.join(input.previousDir, FEED_ROWS_DIR, `${feed}.tsv`) : '';
    collectors.set(feed, new FeedCollector(prev ? readPrevious(prev) : new Map(), input.createdAt));
  }
  return collectors;
}

/** ASN-DROP lists whole ASNs: their announced prefixes (ip-location-db) join the feed. */
function addAsnDrop(blocked: FeedCollector, inputs: WriteFeedRowsInput['inputs']): void {
  for (const r of inputs.asn)
    if (inputs.asnDrop.has(r.asn)) blocked.add(r.family, r, 'asn_drop', 'spamhaus-asndrop', { asn: r.asn });
}

/** Precedence in the feed: DROP/EDROP, then ASN-DROP, then UCEPROTECT level 3. */
function followsAsnDrop(spec: SourceSpec): boolean {
  return spec.kind === 'asn-drop' || spec.kind === 'uce3';
}

/** Every listing source's rows into its feed's collector, in source order (= precedence). */
function collectSources(
  input: WriteFeedRowsInput,
  from: string,
  collectors: Map<DatasetFeed, FeedCollector>,
): void {
  const blocked = collectors.get('asn_wide_blocked') as FeedCollector;
  let asnDropDone = false;
  const skipped = new Set((input.inputs.sources ?? []).filter((x) => x.skipped).map((x) => x.id));
  for (const spec of input.build.sources ?? UPSTREAM_SOURCES) {
    if (!asnDropDone && followsAsnDrop(spec)) {
      addAsnDrop(blocked, input.inputs);
      asnDropDone = true;
    }
    const target = feedFor(spec);
    const file = path.join(from, spec.path);
    if (!target || skipped.has(spec.id) || !existsSync(file)) continue;
    const collector = collectors.get(target.feed) as FeedCollector;
    const extra = target.feed === 'ai_crawlers' && spec.label ? { brand: spec.label } : {};
    for (const r of parseRanges(spec, readFileSync(file)))
      collector.add(r.family, r, target.kind, spec.id, extra);
  }
  if (!asnDropDone) addAsnDrop(blocked, input.inputs);
}

function writeFeedFile(file: string, collector: FeedCollector): void {
  const lines = [COLUMNS.join('\t')];
  for (const r of collector.rows.values()) {
    lines.push(
      [r.network, r.kind, r.source, r.first_seen, r.last_seen, r.brand ?? '', r.asn ?? ''].join('\t'),
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Whether a snapshot directory carries feed rows (snapshots built before feeds existed do not). */
export function hasFeedRows(datasetDir: string): boolean {
  return DATASET_FEEDS.every((feed) => existsSync(path.join(datasetDir, FEED_ROWS_DIR, `${feed}.tsv`)));
}

/** Streams one feed's rows from a snapshot directory. */
export async function* readFeedRows(datasetDir: string, feed: DatasetFeed): AsyncGenerator<DatasetFeedRow> {
  const file = path.join(datasetDir, FEED_ROWS_DIR, `${feed}.tsv`);
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let header = true;
  for await (const line of lines) {
    if (header) {
      if (line !== COLUMNS.join('\t')) throw new Error(`${file}: unexpected header`);
      header = false;
      continue;
    }
    if (line === '') continue;
    const [network = '', kind = '', source = '', first_seen = '', last_seen = '', brand = '', asn = ''] =
      line.split('\t');
    const row: DatasetFeedRow = { network, kind, source, first_seen, last_seen };
    if (brand) row.brand = brand;
    if (asn) row.asn = Number(asn);
    yield row;
  }
}
