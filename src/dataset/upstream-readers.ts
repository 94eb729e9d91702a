/** One reader per upstream file format: a source file's rows into the build's inputs by its kind. */
import { gunzipSync } from 'node:zlib';
import {
  type AddrRange,
  type ParseResult,
  type ProxyListResult,
  parseAsnDropJson,
  parseAsnDropText,
  parseAsnList,
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseCaidaAsClass,
  parseCloudIpsJson,
  parseDropJson,
  parseDropText,
  parseFastlyRanges,
  parseFireholNetset,
  parseGeofeedCsv,
  parseGithubMeta,
  parseGoogleStyleRanges,
  parseIanaRegistry,
  parseIp4SetZone,
  parseIpPortList,
  parseOracleRanges,
  parsePlainList,
  parseRirDelegated,
  parseRpkiClientJson,
  parseSpysProxyList,
  parseTorExitAddresses,
  parseVultrGeofeed,
} from './importers/index.ts';
import { type Inputs, sourceInfo } from './input-rows.ts';
import type { SourceSpec } from './sources.ts';
import { FLAG } from './types.ts';

const FLAG_OF: Partial<Record<SourceSpec['kind'], number>> = {
  'tor-exit-addresses': FLAG.TOR_EXIT,
  'tor-list': FLAG.TOR_EXIT,
  'datacenter-list': FLAG.DATACENTER_LIST,
  'vpn-list': FLAG.VPN,
  drop: FLAG.DROP,
  edrop: FLAG.EDROP,
  uce1: FLAG.UCE1,
  uce2: FLAG.UCE2,
  uce3: FLAG.UCE3,
};

type Format = SourceSpec['format'];

/** Formats whose rows are address ranges: a flag list, cloud ranges or crawler ranges by kind. */
const RANGE_PARSERS: Partial<Record<Format, (bytes: Buffer) => ParseResult<AddrRange>>> = {
  plain: parsePlainList,
  'tor-exit': parseTorExitAddresses,
  aws: parseAwsIpRanges,
  google: parseGoogleStyleRanges,
  azure: parseAzureServiceTags,
  oracle: parseOracleRanges,
  fastly: parseFastlyRanges,
  github: parseGithubMeta,
  'cloud-ips': parseCloudIpsJson,
  'drop-text': parseDropText,
  'drop-json': parseDropJson,
};

/** Open-proxy list formats. */
const PROXY_PARSERS: Partial<Record<Format, (bytes: Buffer) => ProxyListResult>> = {
  'spys-proxy': parseSpysProxyList,
  'ip-port': parseIpPortList,
  netset: parseFireholNetset,
};

/** Formats read into a list of their own (AS classes, geofeeds, zones, ASN lists, RIRs, ROAs). */
const FORMAT_READERS: Partial<Record<Format, (into: Inputs, spec: SourceSpec, bytes: Buffer) => void>> = {
  'caida-as2types': readCaidaAsClasses,
  'geofeed-csv': readGeofeed,
  'vultr-json': readGeofeed,
  ip4set: readIp4Set,
  'asn-list': readAsnList,
  'asndrop-json': readAsnDrop,
  'asndrop-text': readAsnDrop,
  rir: readRir,
  iana: readIana,
  'rpki-json': readRpki,
};

/** Reads one upstream file (the bytes of `spec.path`) into `into`. */
export function readUpstream(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const ranges = RANGE_PARSERS[spec.format];
  const proxies = PROXY_PARSERS[spec.format];
  if (ranges) addRanges(into, spec, ranges(bytes));
  else if (proxies) addProxies(into, spec, proxies(bytes));
  else FORMAT_READERS[spec.format]?.(into, spec, bytes);
}

/** Gunzips bytes that start with the gzip magic, else returns them as they are. */
function gunzipped(bytes: Buffer): Buffer {
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
}

/** Each range sets (or, `exclude`, clears) `flag`, on behalf of source `source`. */
function pushFlags(
  into: Inputs,
  rows: readonly AddrRange[],
  flag: number,
  exclude: boolean,
  source: string,
): void {
  for (const x of rows)
    into.flags.push({ family: x.family, start: x.start, end: x.end, flag, exclude, source });
}

/** Ranges of a flag list (FLAG_OF its kind), of a cloud or of a crawler; other kinds only count. */
function addRanges(into: Inputs, spec: SourceSpec, r: ParseResult<AddrRange>): void {
  const flag = FLAG_OF[spec.kind];
  if (flag !== undefined) {
    pushFlags(into, r.rows, flag, false, spec.id);
  } else if (spec.kind === 'cloud' || spec.kind === 'ai-crawler') {
    const list = spec.kind === 'cloud' ? into.cloud : into.ai;
    for (const x of r.rows)
      list.push({
        family: x.family,
        start: x.start,
        end: x.end,
        label: spec.label ?? spec.id,
        source: spec.id,
      });
  }
  const i = sourceInfo(spec.id, spec.path, r, spec.kind);
  if (spec.crawler) i.crawler = spec.crawler;
  into.sources.push(i);
}

/** The flag of each anonymity level an open-proxy list states. */
const PROXY_LEVEL = {
  transparent: FLAG.PROXY_TRANSPARENT,
  anonymous: FLAG.PROXY_ANONYMOUS,
  elite: FLAG.PROXY_ELITE,
};

/** One layer per bit and file (merge.ts): PROXY, and the anonymity where the list states it. */
function addProxies(into: Inputs, spec: SourceSpec, r: ProxyListResult): void {
  for (const x of r.rows) {
    const at = { family: x.family, start: x.start, end: x.end, exclude: false, source: spec.id };
    into.flags.push({ ...at, flag: FLAG.PROXY });
    if (x.anonymity) into.flags.push({ ...at, flag: PROXY_LEVEL[x.anonymity] });
  }
  const i = sourceInfo(spec.id, spec.path, r, spec.kind);
  if (r.listedAt) i.listed_at = r.listedAt;
  into.sources.push(i);
}

function readCaidaAsClasses(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  // Upstream publishes it gzipped (YYYYMMDD.as2types.txt.gz).
  const r = parseCaidaAsClass(gunzipped(bytes));
  for (const x of r.rows) into.asClasses.set(x.asn, x);
  into.sources.push(sourceInfo(spec.id, spec.path, r, spec.kind));
}

function readGeofeed(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const r = spec.format === 'vultr-json' ? parseVultrGeofeed(bytes) : parseGeofeedCsv(bytes);
  // A provider's own geofeed is also its range publication (Linode, Vultr, DigitalOcean).
  if (spec.label)
    for (const x of [...r.rows, ...r.prefixesOnly])
      into.cloud.push({
        family: x.family,
        start: x.start,
        end: x.end,
        label: spec.label,
        source: spec.id,
      });
  for (const x of r.rows) into.geofeed.push({ ...x, label: spec.id });
  into.sources.push(sourceInfo(spec.id, spec.path, r, spec.kind));
}

/** An rbldnsd ip4set zone: its listings set the kind's flag, its `!` exclusions clear it. */
function readIp4Set(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const z = parseIp4SetZone(bytes);
  const flag = FLAG_OF[spec.kind] ?? 0;
  pushFlags(into, z.rows, flag, false, spec.id);
  pushFlags(into, z.exclusions, flag, true, spec.id);
  into.sources.push(sourceInfo(spec.id, spec.path, z, spec.kind));
}

function readAsnList(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const r = parseAsnList(bytes);
  const set = spec.kind === 'vpn-asns' ? into.vpnAsns : into.datacenterAsns;
  for (const x of r.rows) set.add(x.asn);
  into.sources.push(sourceInfo(spec.id, spec.path, r, spec.kind));
}

function readAsnDrop(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const r = spec.format === 'asndrop-json' ? parseAsnDropJson(bytes) : parseAsnDropText(bytes);
  for (const x of r.rows) into.asnDrop.set(x.asn, x);
  into.sources.push(sourceInfo(spec.id, spec.path, r, spec.kind));
}

function readRir(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const r = parseRirDelegated(bytes);
  for (const x of r.rows) into.rirRanges.push({ ...x, source: spec.id });
  for (const x of r.asns) into.rirAsns.push({ ...x, source: spec.id });
  into.sources.push({ ...sourceInfo(spec.id, spec.path, r, spec.kind), rows: r.rows.length + r.asns.length });
}

/** IANA blocks name the RIR a /8 was delegated to: a coarse registry layer under RIR statistics. */
function readIana(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const r = parseIanaRegistry(bytes);
  for (const x of r.rows) {
    if (x.rir)
      into.rirRanges.push({
        family: x.family,
        start: x.start,
        end: x.end,
        rir: x.rir,
        country: null,
        date: null,
        status: 'iana',
        source: spec.id,
      });
  }
  into.sources.push(sourceInfo(spec.id, spec.path, r, spec.kind));
}

function readRpki(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const r = parseRpkiClientJson(gunzipped(bytes));
  for (const x of r.rows) into.roas.push(x);
  into.sources.push(sourceInfo(spec.id, spec.path, r, spec.kind));
}
