/**
 * Source agreement: the run's snapshot of the real upstream files of ../shared/data (built once
 * per run by buildDataset, as `netrep dataset build --from ../shared/data` builds it, and shared
 * with the other files that need it: test/helpers/datasets.ts; the command itself is tested in
 * test/e2e/fresh-start.test.ts and src/cli/dataset-build.test.ts), the real server answers, and for every upstream file up to 200 entries
 * (drawn with a seeded PRNG) are checked through `POST /v1/ip/batch` and
 * `GET /v1/public/ip/{ip}` against the file itself, read by test/helpers/upstream-truth.ts
 * (not by netrep's importers). Each entry is `agreed` (the flag, label, prefix, country,
 * registry, RPKI status and threat line are what the row says, and provenance names the file;
 * proxies are also in the vpn_proxy feed, AI crawler ranges in the default ai_crawlers feed and
 * search engine ranges only with include=search; an AS class gives the documented connection
 * type, and Enterprise and Content networks are never residential),
 * `explained` (a documented precedence rule let another source win, and that source really
 * covers the address at least as narrowly), or `wrong`. The suite prints the table and fails on
 * any wrong entry.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAiPurpose, type SourceSpec, UPSTREAM_SOURCES } from '../../src/dataset/index.ts';
import { seedDataset } from '../helpers/datasets.ts';
import { startZoneServer, type ZoneServer } from '../helpers/dns-zone-server.ts';
import { type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { repoPath, sharedDataPath } from '../helpers/shared-data.ts';
import { tempDir } from '../helpers/stores.ts';
import { narrowestCovering } from '../helpers/truth-addresses.ts';
import {
  addressIn,
  formatAddr,
  rangeOf,
  readNpmCsv,
  readTruth,
  sample,
  seededRandom,
  type TruthFile,
  type TruthRange,
} from '../helpers/upstream-truth.ts';

const PER_SOURCE = 200;
const SEED = 20261124;

type Verdict = 'agreed' | 'explained' | 'wrong';
type Json = Record<string, unknown>;
interface Answer {
  ip: string;
  prefix: string;
  asn: number | null;
  country: string | null;
  rir: string | null;
  connection_type?: string | null;
  bogon?: boolean;
  netrep: Json & { cloud_provider?: string; ai_company?: string };
  crawler?: { name: string; operator: string; purpose: 'ai_training' | 'ai_assistant' | 'search' };
  proxy?: { anonymity: string | null };
  threat: { score: number; explanation: string[] };
  rpki_status?: string;
  asn_reputation?: Json;
  provenance?: Record<string, { sources: string[]; dataset_version: number }>;
}
interface Sample {
  spec: SourceSpec;
  row: TruthRange | null;
  asn: number | null;
  family: 4 | 6;
  addr: bigint;
  ip: string;
  answer?: Answer | null;
  batch?: Json | null;
  /** AS classification samples: the class the file gives the ASN. */
  asClass?: string;
}
interface Tally {
  sampled: number;
  agreed: number;
  explained: number;
  wrong: number;
  examples: string[];
}

const hashSeed = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, SEED);
const width = (r: { start: bigint; end: bigint }) => r.end - r.start;
const rangeKey = (r: { family: 4 | 6; start: bigint; end: bigint }) => `${r.family}:${r.start}:${r.end}`;

/** Worst of several verdicts: one wrong makes the entry wrong. */
function combine(vs: Verdict[]): Verdict {
  if (vs.includes('wrong')) return 'wrong';
  return vs.includes('explained') ? 'explained' : 'agreed';
}

/** Runs `f` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await f(items[i++] as T);
    }),
  );
}

interface Reply {
  status: number;
  body: { data: Json };
}

/** The server's routes as the suite asks them: anonymous (one client IP each) and keyed. */
interface Client {
  base: string;
  key: string;
  publicGet(p: string): Promise<Reply>;
  keyed(p: string, body?: unknown): Promise<Reply>;
}

function serverEnv(dir: string): Record<string, string> {
  return {
    NETREP_DATA_DIR: dir,
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_DNSBL_LISTEN: '',
    NETREP_TRUSTED_PROXIES: '127.0.0.1/32',
    NETREP_ADMIN_EMAIL: 'ops@example.test',
    NETREP_ADMIN_PASSWORD: 'correct-horse-battery',
  };
}

/** An enterprise key for the IP, ASN and feed routes, made by `netrep keys create`. */
function createKey(env: Record<string, string>): string {
  const made = runNetrep(
    [
      'keys',
      'create',
      '--name',
      'agree',
      '--tier',
      'enterprise',
      '--permissions',
      'ip:read,asn:read,feeds:read',
    ],
    env,
  );
  expect(made.status, made.stderr).toBe(0);
  return made.stdout.trim().split('\n').at(-1) ?? '';
}

function createClient(base: string, key: string): Client {
  let client = 0;
  return {
    base,
    key,
    // Anonymous routes are limited per client IP: each request names its own client through
    // the trusted proxy (127.0.0.1), so the suite measures answers, not the limiter.
    async publicGet(p) {
      const n = client++;
      const res = await fetch(`${base}${p}`, {
        headers: { 'x-forwarded-for': `198.18.${(n >> 8) & 255}.${n & 255}` },
      });
      return { status: res.status, body: (await res.json()) as { data: Json } };
    },
    async keyed(p, body) {
      const res = await fetch(`${base}${p}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as { data: Json } };
    },
  };
}

/**
 * A keyed GET on a connection of its own: the server closes a connection after a streamed
 * download (seen 2026-11-27), and the pooled next request would fail with "other side closed".
 */
function getAlone(url: string, key: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'x-api-key': key }, agent: false }, (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => {
          text += c;
        });
        r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        r.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The `kind` column of a feed CSV by its `network` range (rangeKey). */
function feedKinds(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.trim().split('\n');
  const cols = (lines[0] ?? '').split(',');
  for (const l of lines.slice(1)) {
    const f = l.split(',');
    const r = rangeOf(f[cols.indexOf('network')] ?? '');
    if (r) out.set(rangeKey(r), f[cols.indexOf('kind')] ?? '');
  }
  return out;
}

/** A feed the server's worker builds from the snapshot at start (polled until written). */
async function feedRows(client: Client, p: string): Promise<Map<string, string>> {
  for (let i = 0; i < 240; i++) {
    const res = await getAlone(`${client.base}${p}`, client.key);
    if (res.status === 200) return feedKinds(res.text);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${p}: no feed snapshot after 120 s`);
}

interface Feeds {
  vpnProxy: Map<string, string>;
  ai: Map<string, string>;
  aiWithSearch: Map<string, string>;
}

async function readFeeds(client: Client): Promise<Feeds> {
  return {
    vpnProxy: await feedRows(client, '/v1/feeds/vpn_proxy/download/csv'),
    ai: await feedRows(client, '/v1/feeds/ai_crawlers/download/csv'),
    aiWithSearch: await feedRows(client, '/v1/feeds/ai_crawlers/download/csv?include=search'),
  };
}

/** The upstream files read on their own terms, and the npm packages' ranges read when asked. */
interface Sources {
  truth: Map<string, TruthFile>;
  npmRanges(id: string): TruthRange[];
}

function readSources(): Sources {
  const truth = new Map<string, TruthFile>();
  for (const spec of UPSTREAM_SOURCES) {
    const file = sharedDataPath(spec.path);
    if (fs.existsSync(file)) truth.set(spec.id, readTruth(file, spec.format));
  }
  const npm = (rel: string, kind: 'asn' | 'country') =>
    readNpmCsv(repoPath('node_modules/@ip-location-db', rel), kind);
  const npmTruth = new Map<string, TruthRange[]>();
  const npmRanges = (id: string): TruthRange[] => {
    let r = npmTruth.get(id);
    if (!r) {
      const kind = id === 'asn' ? 'asn' : 'country';
      r = [...npm(`${id}/${id}-ipv4.csv`, kind), ...npm(`${id}/${id}-ipv6.csv`, kind)];
      npmTruth.set(id, r);
    }
    return r;
  };
  return { truth, npmRanges };
}

/** The narrowest range source `id` has at addr (upstream file or npm package), or null. */
function coverOf(src: Sources, id: string, family: 4 | 6, addr: bigint): TruthRange | null {
  const t = src.truth.get(id);
  if (t) return narrowestCovering(t.ranges, family, addr);
  if (id === 'asn' || id === 'geo-whois-asn-country' || id === 'asn-country')
    return narrowestCovering(src.npmRanges(id), family, addr);
  return null;
}

/** Another source named in provenance covers addr at most `max` wide (precedence). */
function otherWins(
  src: Sources,
  named: string[] | undefined,
  self: string,
  s: Sample,
  max: bigint,
  strict = false,
): boolean {
  return (named ?? []).some((id) => {
    if (id === self) return false;
    const c = coverOf(src, id, s.family, s.addr);
    return c !== null && (strict ? width(c) < max : width(c) <= max);
  });
}

/** The first IPv4 row of each ASN in the ASN package. */
function firstRowsByAsn(src: Sources): Map<number, TruthRange> {
  const firstRow = new Map<number, TruthRange>();
  for (const r of src.npmRanges('asn')) {
    const cur = firstRow.get(r.asn ?? 0);
    if (r.family === 4 && (!cur || r.start < cur.start)) firstRow.set(r.asn ?? 0, r);
  }
  return firstRow;
}

/**
 * AS classification samples: each class on its own, a third of the samples each: ASNs the ASN
 * package announces, asked at the first address of their first row there (read here, not
 * through the API).
 */
function classSamples(src: Sources, spec: SourceSpec, t: TruthFile, random: () => number): Sample[] {
  const out: Sample[] = [];
  const asClass = t.asClass ?? new Map<number, string>();
  const firstRow = firstRowsByAsn(src);
  for (const cls of [...new Set(asClass.values())].sort()) {
    const asns = t.asns.filter((a) => asClass.get(a) === cls && firstRow.has(a));
    for (const asn of sample(asns, Math.ceil(PER_SOURCE / 3), random)) {
      const r = firstRow.get(asn) as TruthRange;
      out.push({ spec, row: null, asn, family: 4, addr: r.start, ip: formatAddr(4, r.start), asClass: cls });
    }
  }
  return out;
}

/** Up to 200 rows of a range file, one seeded address in each. */
function rangeSamples(spec: SourceSpec, t: TruthFile, random: () => number): Sample[] {
  const out: Sample[] = [];
  for (const row of sample(
    t.ranges.filter((r) => !r.exclude),
    PER_SOURCE,
    random,
  )) {
    const addr = addressIn(row, random);
    // Within one file too the narrowest row holding the address is the one that speaks.
    const own = narrowestCovering(t.ranges, row.family, addr) ?? row;
    out.push({ spec, row: own, asn: null, family: row.family, addr, ip: formatAddr(row.family, addr) });
  }
  return out;
}

interface AsnList {
  spec: SourceSpec;
  asns: number[];
  limit: number;
}

/** Samples of every file: address samples now, ASN lists to be asked (askAsnSamples). */
function drawSamples(src: Sources): { samples: Sample[]; asnLists: AsnList[] } {
  const samples: Sample[] = [];
  const asnLists: AsnList[] = [];
  for (const spec of UPSTREAM_SOURCES) {
    const t = src.truth.get(spec.id);
    if (!t) continue;
    const random = seededRandom(hashSeed(spec.id));
    if (t.asClass) samples.push(...classSamples(src, spec, t, random));
    else if (t.asns.length > 0)
      asnLists.push({ spec, asns: sample(t.asns, t.asns.length, random), limit: PER_SOURCE });
    else samples.push(...rangeSamples(spec, t, random));
  }
  return { samples, asnLists };
}

/**
 * One ASN of a list: the first address of its first prefix (null when the ASN data holds
 * none). ASN-DROP ASNs need not hold addresses: the ASN answer itself carries the flag.
 */
async function asnSample(client: Client, spec: SourceSpec, asn: number): Promise<Sample | null> {
  const res = await client.keyed(`/v1/asn/${asn}?include_prefixes=true&prefix_limit=1`);
  const first = (res.body.data.prefixes as { prefix: string }[] | undefined)?.[0]?.prefix;
  const r = first ? rangeOf(first) : null;
  if (spec.kind === 'asn-drop') {
    const pub = await client.publicGet(`/v1/public/asn/${asn}`);
    return {
      spec,
      row: null,
      asn,
      family: r?.family ?? 4,
      addr: r?.start ?? 0n,
      ip: r ? formatAddr(r.family, r.start) : '',
      batch: pub.status === 200 ? (pub.body.data as Json) : null,
    };
  }
  if (!r) return null;
  return { spec, row: null, asn, family: r.family, addr: r.start, ip: formatAddr(r.family, r.start) };
}

/**
 * ASN lists: the first `limit` ASNs of each (in drawn order) that the ASN data holds, one list
 * after the other. The ASNs still needed are asked 8 at a time and taken in list order, so the
 * samples are those of asking one by one.
 */
async function askAsnSamples(client: Client, asnLists: AsnList[], samples: Sample[]): Promise<void> {
  for (const { spec, asns, limit } of asnLists) {
    let taken = 0;
    let next = 0;
    while (taken < limit && next < asns.length) {
      const round = asns.slice(next, next + limit - taken);
      next += round.length;
      const found: (Sample | null)[] = new Array(round.length).fill(null);
      await pool(
        round.map((asn, i) => ({ asn, i })),
        8,
        async ({ asn, i }) => {
          found[i] = await asnSample(client, spec, asn);
        },
      );
      for (const s of found) if (s !== null) samples.push(s);
      taken += found.filter((s) => s !== null).length;
    }
  }
}

/** The public answer of each sample, and the batch answers (1,000 a request) by address. */
async function askAnswers(client: Client, samples: Sample[]): Promise<Map<string, Json | null>> {
  await pool(
    samples.filter((s) => s.ip !== ''),
    8,
    async (s) => {
      const res = await client.publicGet(`/v1/public/ip/${encodeURIComponent(s.ip)}`);
      s.answer = res.status === 200 ? (res.body.data as unknown as Answer) : null;
    },
  );
  const ips = [...new Set(samples.filter((s) => s.ip !== '').map((s) => s.ip))];
  const batch = new Map<string, Json | null>();
  for (let i = 0; i < ips.length; i += 1000) {
    const res = await client.keyed('/v1/ip/batch', { ips: ips.slice(i, i + 1000) });
    expect(res.status).toBe(200);
    for (const [ip, a] of Object.entries(res.body.data)) batch.set(ip, a as Json | null);
  }
  return batch;
}

type Roas = Map<string, { asn: number; maxLength: number }[]>;

/** The ROAs of the RPKI file by `family/length/start`. */
function roaIndex(src: Sources): Roas {
  const roas: Roas = new Map();
  for (const r of src.truth.get('rpki')?.ranges ?? []) {
    const k = `${r.family}/${r.prefixLength}/${r.start}`;
    const list = roas.get(k) ?? [];
    list.push({ asn: r.asn ?? 0, maxLength: r.maxLength ?? 0 });
    roas.set(k, list);
  }
  return roas;
}

/** RFC 6811 over the ROA file, for the answered prefix and origin. */
function expectedRpki(roas: Roas, family: 4 | 6, prefix: string, origin: number | null): string {
  const p = rangeOf(prefix);
  if (!p || p.prefixLength === undefined) return 'not-found';
  const length = p.prefixLength;
  const bits = family === 4 ? 32 : 128;
  let covered = false;
  for (let l = length; l >= 0; l--) {
    const host = BigInt(bits - l);
    const list = roas.get(`${family}/${l}/${(p.start >> host) << host}`);
    if (!list) continue;
    covered = true;
    if (list.some((x) => origin && x.asn === origin && x.maxLength >= length)) return 'valid';
  }
  return covered ? 'invalid' : 'not-found';
}

/** The documented mapping (src/dataset/README.md): the connection types each class may give. */
const AS_CLASS_MAP: Record<string, string[]> = {
  'Transit/Access': ['residential', 'mobile'],
  Enterprise: ['business', 'education'],
  Content: ['datacenter'],
};
const DROP_LINES = ['prefix on Spamhaus DROP', 'prefix on Spamhaus EDROP', 'on Spamhaus ASN-DROP'];

/** What the judge compares the answers with. */
interface Judge {
  src: Sources;
  batch: Map<string, Json | null>;
  feeds: Feeds;
  roas: Roas;
  /** AS class → connection type answered → samples (filled while judging). */
  classSeen: Map<string, Map<string, number>>;
}

const hasLine = (a: Answer, text: string) => a.threat.explanation.some((l) => l.includes(text));
const provOf = (a: Answer, field: string) => a.provenance?.[field]?.sources;
const flagVerdict = (a: Answer, on: boolean, field: string, id: string, needProv = true): Verdict =>
  on && (!needProv || (provOf(a, field) ?? []).includes(id)) ? 'agreed' : 'wrong';
const lineVerdict = (a: Answer, line: string, alternatives: string[] = []): Verdict =>
  hasLine(a, line) ? 'agreed' : alternatives.some((x) => hasLine(a, x)) ? 'explained' : 'wrong';

function labelVerdict(j: Judge, s: Sample, a: Answer, field: 'cloud_provider' | 'ai_company'): Verdict {
  const row = s.row as TruthRange;
  const named = provOf(a, `netrep.${field}`);
  if (a.netrep[field] === s.spec.label)
    return (named ?? []).includes(s.spec.id) || otherWins(j.src, named, s.spec.id, s, width(row))
      ? 'agreed'
      : 'wrong';
  return otherWins(j.src, named, s.spec.id, s, width(row)) ? 'explained' : 'wrong';
}

function prefixVerdict(j: Judge, s: Sample, a: Answer): Verdict {
  const row = s.row as TruthRange;
  const p = rangeOf(a.prefix);
  if (!p || p.start > s.addr || p.end < s.addr || p.start < row.start || p.end > row.end) return 'wrong';
  if (p.start === row.start && p.end === row.end) return 'agreed';
  return otherWins(j.src, provOf(a, 'prefix'), s.spec.id, s, width(row), true) ? 'explained' : 'wrong';
}

function countryVerdict(j: Judge, s: Sample, a: Answer, geofeed: boolean): Verdict {
  const row = s.row as TruthRange;
  if (!row.country || a.country === row.country) return 'agreed';
  const named = provOf(a, 'country') ?? [];
  // Narrowest wins; on equal width a geofeed beats RIR statistics, which beat geo-whois.
  const wins = named.some((id) => {
    if (id === s.spec.id) return false;
    const c = coverOf(j.src, id, s.family, s.addr);
    if (!c) return false;
    const otherIsGeofeed = j.src.truth
      .get(id)
      ?.ranges.some((r) => r.country !== undefined && r.rir === undefined);
    return width(c) < width(row) || (width(c) === width(row) && !geofeed && otherIsGeofeed === true);
  });
  return wins ? 'explained' : 'wrong';
}

type KindCheck = (j: Judge, s: Sample, a: Answer) => Verdict[];

const torChecks: KindCheck = (_j, s, a) => [
  flagVerdict(a, a.netrep.is_tor_exit === true, 'netrep.is_tor_exit', s.spec.id),
  lineVerdict(a, 'Tor exit relay'),
];

const vpnChecks: KindCheck = (_j, s, a) => [
  flagVerdict(a, a.netrep.is_vpn === true, 'netrep.is_vpn', s.spec.id),
  lineVerdict(a, 'VPN network'),
];

const datacenterChecks: KindCheck = (_j, s, a) => [
  flagVerdict(a, a.netrep.is_datacenter === true, 'netrep.is_datacenter', s.spec.id, false),
  // CONTRACT §6: no datacenter points for a known company's crawler.
  a.netrep.is_ai_crawler ? 'explained' : lineVerdict(a, 'datacenter network'),
];

function cloudChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const v: Verdict[] = [
    flagVerdict(a, a.netrep.is_datacenter === true, 'netrep.is_datacenter', s.spec.id, false),
    labelVerdict(j, s, a, 'cloud_provider'),
    prefixVerdict(j, s, a),
  ];
  if (s.row?.country !== undefined) v.push(countryVerdict(j, s, a, true));
  return v;
}

/** The public answer names the crawler whose range won. */
function crawlerVerdict(j: Judge, s: Sample, a: Answer): Verdict {
  const c = a.crawler;
  const named = provOf(a, 'crawler');
  const own = s.spec.crawler;
  if (
    c &&
    own &&
    c.name === own.name &&
    c.purpose === own.purpose &&
    c.operator === s.spec.label &&
    (named ?? []).includes(s.spec.id)
  )
    return 'agreed';
  return c && otherWins(j.src, named, s.spec.id, s, width(s.row as TruthRange)) ? 'explained' : 'wrong';
}

/** The default feed holds the AI crawlers' ranges, include=search adds the others. */
function crawlerFeedVerdict(j: Judge, s: Sample): Verdict {
  const k = rangeKey(s.row as TruthRange);
  if (isAiPurpose(s.spec.crawler?.purpose)) return j.feeds.ai.get(k) === 'ai_crawler' ? 'agreed' : 'wrong';
  if (j.feeds.ai.has(k)) return 'wrong';
  if (j.feeds.aiWithSearch.get(k) === 'search_crawler') return 'agreed';
  return j.feeds.aiWithSearch.has(k) ? 'explained' : 'wrong';
}

/** The AI flag and company follow the crawler's purpose (search engines are crawlers, not AI crawlers). */
function aiCrawlerChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const c = a.crawler;
  const ai = c !== undefined && isAiPurpose(c.purpose);
  const n = a.netrep;
  return [
    crawlerVerdict(j, s, a),
    n.is_ai_crawler === ai && n.ai_company === (ai ? c?.operator : undefined) ? 'agreed' : 'wrong',
    prefixVerdict(j, s, a),
    crawlerFeedVerdict(j, s),
  ];
}

function proxyChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const id = s.spec.id;
  // In vpn_proxy as a proxy; a VPN list that names the address first makes it a VPN row.
  const kind = j.feeds.vpnProxy.get(rangeKey(s.row as TruthRange));
  return [
    flagVerdict(a, a.netrep.is_proxy === true, 'netrep.is_proxy', id),
    lineVerdict(a, 'public proxy'),
    flagVerdict(a, true, 'threat.public_proxy', id),
    a.proxy !== undefined ? 'agreed' : 'wrong',
    kind === 'proxy' ? 'agreed' : kind === 'vpn' ? 'explained' : 'wrong',
  ];
}

/** The connection type an AS class gives, or the more specific evidence that came first. */
function asClassVerdict(s: Sample, a: Answer, cls: string, type: string | null): Verdict {
  const named = provOf(a, 'connection_type') ?? [];
  if (a.netrep.is_residential !== (type === 'residential')) return 'wrong';
  if (a.asn !== s.asn) return 'explained'; // a narrower row of another ASN holds the address
  if (cls !== 'Transit/Access' && type === 'residential') return 'wrong';
  if (named.includes(s.spec.id))
    return type !== null && (AS_CLASS_MAP[cls] ?? []).includes(type) ? 'agreed' : 'wrong';
  // More specific evidence (published ranges, lists, the curated table) came first.
  return named.some((x) => x !== 'netrep-unclassified' && x !== 'netrep-asn-name-words')
    ? 'explained'
    : 'wrong';
}

function asClassChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const cls = s.asClass ?? '';
  const type = a.connection_type ?? null;
  const verdict = asClassVerdict(s, a, cls, type);
  if (a.asn === s.asn) {
    const seen = j.classSeen.get(cls) ?? new Map<string, number>();
    seen.set(String(type), (seen.get(String(type)) ?? 0) + 1);
    j.classSeen.set(cls, seen);
  }
  return [verdict];
}

function geofeedChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const v = [countryVerdict(j, s, a, true), prefixVerdict(j, s, a)];
  if (s.spec.label) v.push(labelVerdict(j, s, a, 'cloud_provider'));
  return v;
}

const dropChecks: KindCheck = (_j, s, a) => [
  a.asn_reputation?.provider_drop === true ? 'agreed' : 'wrong',
  flagVerdict(a, true, 'threat.spamhaus_drop', s.spec.id),
  lineVerdict(a, DROP_LINES[0] as string),
];

const edropChecks: KindCheck = (_j, s, a) => [
  a.asn_reputation?.provider_edrop === true ? 'agreed' : 'wrong',
  flagVerdict(a, true, 'threat.spamhaus_edrop', s.spec.id),
  lineVerdict(a, DROP_LINES[1] as string, DROP_LINES),
];

/** The narrowest row of the file holding the sample's address (`!` lines included). */
function narrowestRow(t: TruthFile, s: Sample): TruthRange | null {
  let narrow: TruthRange | null = null;
  for (const r of t.ranges)
    if (
      r.family === s.family &&
      r.start <= s.addr &&
      r.end >= s.addr &&
      (!narrow || width(r) < width(narrow))
    )
      narrow = r;
  return narrow;
}

/** UCEPROTECT levels: an rbldnsd `!` line carves its range out of the listing (narrowest wins). */
function uceChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const level = s.spec.kind.slice(3);
  const id = s.spec.id;
  const narrow = narrowestRow(j.src.truth.get(id) as TruthFile, s);
  const listed = a.asn_reputation?.[`uce_level${level}`] === true;
  if (narrow?.exclude) return [listed ? 'wrong' : 'explained'];
  return [
    listed ? 'agreed' : 'wrong',
    flagVerdict(a, true, `threat.uceprotect_level${level}`, id),
    lineVerdict(a, `UCEPROTECT level ${level}`),
  ];
}

function rirChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const row = s.row as TruthRange;
  const rir =
    a.rir === row.rir
      ? 'agreed'
      : otherWins(j.src, provOf(a, 'rir'), s.spec.id, s, width(row))
        ? 'explained'
        : 'wrong';
  return [rir, countryVerdict(j, s, a, false)];
}

/** RIR statistics are narrower than a registry's /8 (or /12-/23) and win. */
function ianaChecks(j: Judge, s: Sample, a: Answer): Verdict[] {
  const row = s.row as TruthRange;
  if (a.rir === row.rir) return ['agreed'];
  const rirWon = (provOf(a, 'rir') ?? []).some(
    (x) => x.startsWith('rir-') && coverOf(j.src, x, s.family, s.addr),
  );
  return [rirWon ? 'explained' : 'wrong'];
}

const rpkiChecks: KindCheck = (j, s, a) => [
  a.rpki_status === expectedRpki(j.roas, s.family, a.prefix, a.asn) ? 'agreed' : 'wrong',
];

/** The checks of each source kind. */
const KIND_CHECKS = new Map<string, KindCheck>([
  ['tor-exit-addresses', torChecks],
  ['tor-list', torChecks],
  ['vpn-list', vpnChecks],
  ['vpn-asns', vpnChecks],
  ['datacenter-list', datacenterChecks],
  ['datacenter-asns', datacenterChecks],
  ['cloud', cloudChecks],
  ['ai-crawler', aiCrawlerChecks],
  ['proxy-list', proxyChecks],
  ['as-class', asClassChecks],
  ['geofeed', geofeedChecks],
  ['drop', dropChecks],
  ['edrop', edropChecks],
  ['uce1', uceChecks],
  ['uce2', uceChecks],
  ['uce3', uceChecks],
  ['rir', rirChecks],
  ['iana', ianaChecks],
  ['rpki', rpkiChecks],
]);

/** The public and batch answers of an address say the same flags and threat. */
const sameAsBatch = (b: Json | null | undefined, a: Answer): boolean =>
  !!b &&
  JSON.stringify(b.netrep) === JSON.stringify(a.netrep) &&
  JSON.stringify(b.threat) === JSON.stringify(a.threat);

function judge(j: Judge, s: Sample): { verdict: Verdict; why: string } {
  const kind = s.spec.kind;
  if (kind === 'asn-drop') {
    const rep = (s.batch?.asn_reputation as Json | undefined) ?? null;
    return rep?.provider_drop === true
      ? { verdict: 'agreed', why: '' }
      : { verdict: 'wrong', why: `AS${s.asn}: asn_reputation.provider_drop is not true` };
  }
  const a = s.answer;
  if (!a) return { verdict: 'wrong', why: `${s.ip}: no public answer` };
  if (!sameAsBatch(j.batch.get(a.ip), a))
    return { verdict: 'wrong', why: `${s.ip}: batch and public answers differ` };
  // Private, loopback and reserved space answers bogon: true and no flags (README).
  if (a.bogon) return { verdict: 'explained', why: '' };
  const check = KIND_CHECKS.get(kind);
  if (!check) return { verdict: 'wrong', why: `no check for kind ${kind}` };
  const verdict = combine(check(j, s, a));
  return {
    verdict,
    why:
      verdict === 'wrong'
        ? `${s.ip} (${s.row?.text ?? `AS${s.asn}`}): ${JSON.stringify({ prefix: a.prefix, country: a.country, rir: a.rir, netrep: a.netrep, threat: a.threat.explanation, rpki: a.rpki_status, provenance: a.provenance })}`
        : '',
  };
}

/** The verdicts of every sample, per source. */
function tallyVerdicts(j: Judge, samples: Sample[]): Map<string, Tally> {
  const table = new Map<string, Tally>();
  for (const s of samples) {
    const t = table.get(s.spec.id) ?? { sampled: 0, agreed: 0, explained: 0, wrong: 0, examples: [] };
    const { verdict, why } = judge(j, s);
    t.sampled++;
    t[verdict]++;
    if (why && t.examples.length < 3) t.examples.push(why);
    table.set(s.spec.id, t);
  }
  return table;
}

function formatReport(table: Map<string, Tally>): string {
  const rows = [...table].map(
    ([id, t]) => `| ${id} | ${t.sampled} | ${t.agreed} | ${t.explained} | ${t.wrong} |`,
  );
  const total = [...table.values()].reduce(
    (acc, t) => ({ s: acc.s + t.sampled, a: acc.a + t.agreed, e: acc.e + t.explained, w: acc.w + t.wrong }),
    { s: 0, a: 0, e: 0, w: 0 },
  );
  return [
    '| source | sampled | agreed | explained by precedence | wrong |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    `| **all ${table.size} sources** | ${total.s} | ${total.a} | ${total.e} | ${total.w} |`,
  ].join('\n');
}

function formatClassMapping(classSeen: Map<string, Map<string, number>>): string {
  return [
    '| CAIDA class | mapping checked | connection_type answered (samples) |',
    '|---|---|---|',
    ...[...classSeen].map(
      ([cls, seen]) =>
        `| ${cls} | ${(AS_CLASS_MAP[cls] ?? []).join(' or ')} | ${[...seen].map(([t, c]) => `${t} ${c}`).join(', ')} |`,
    ),
  ].join('\n');
}

describe('source agreement with ../shared/data', () => {
  const dir = tempDir('netrep-agree-');
  let server: NetrepProcess | null = null;
  let zone: ZoneServer | null = null;
  afterAll(async () => {
    await server?.stop();
    await zone?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // The run's build of ../shared/data (test/helpers/datasets.ts): built here, or by another file
  // of the run while this one waits.
  beforeAll(async () => {
    expect(await seedDataset(dir, 'shared')).toBe(1);
  }, 900_000);

  it('every sampled entry of every upstream file agrees, or a documented rule explains it', {
    timeout: 900_000,
  }, async () => {
    const env = serverEnv(dir);
    // Where the time goes, printed with the report (issue #33 item 5).
    const phases: string[] = [];
    let mark = Date.now();
    const phase = (name: string) => {
      phases.push(`${name} ${((Date.now() - mark) / 1000).toFixed(1)} s`);
      mark = Date.now();
    };
    // 1. The snapshot of the real files, built once per run (beforeAll).
    expect(fs.readdirSync(path.join(dir, 'datasets'))).toEqual(['v1']);

    // 2. Serve it; PTR lookups go to an empty zone on 127.0.0.1 (answered at once).
    zone = await startZoneServer({});
    server = await startNetrep({ ...env, NETREP_DNS_SERVERS: zone.servers[0] ?? '' }, 120_000);
    const client = createClient(server.url, createKey(env));
    const feeds = await readFeeds(client);
    phase('start and feeds');

    // The issue that started this suite: Google's resolver answers Google's own name.
    const google = await client.keyed('/v1/ip/8.8.8.8');
    expect(google.body.data).toMatchObject({
      asn: 15169,
      asn_name: 'Google LLC',
      prefix: '8.8.8.0/24',
      netrep: { is_datacenter: true, cloud_provider: 'Google' },
    });

    // 3. The files, read on their own terms.
    const src = readSources();
    phase('files read');

    // 4. Samples: up to 200 rows of every file, one seeded address in each; ASN lists: the
    // first address of the ASN's first prefix (ASNs the ASN data holds).
    const { samples, asnLists } = drawSamples(src);
    await askAsnSamples(client, asnLists, samples);
    phase('ASN samples asked');

    // 5. Ask: the public answer of each, and the batch answer (1,000 a request).
    const batch = await askAnswers(client, samples);
    phase(`${samples.length} samples asked`);

    // 6. Judge.
    const classSeen = new Map<string, Map<string, number>>();
    const table = tallyVerdicts({ src, batch, feeds, roas: roaIndex(src), classSeen }, samples);
    const report = formatReport(table);
    phase('judged');
    process.stdout.write(`\nsource agreement (seed ${SEED}):\n${report}\n(${phases.join(', ')})\n`);
    process.stdout.write(`\nAS class mapping checked:\n${formatClassMapping(classSeen)}\n`);
    // Every class was sampled.
    expect([...classSeen.keys()].sort()).toEqual(['Content', 'Enterprise', 'Transit/Access']);
    const wrong = [...table]
      .filter(([, t]) => t.wrong > 0)
      .map(([id, t]) => `${id}: ${t.examples.join('\n  ')}`);
    if (process.env.NETREP_TEST_AGREEMENT_REPORT)
      fs.writeFileSync(process.env.NETREP_TEST_AGREEMENT_REPORT, `${report}\n`);
    // Every upstream file in shared/data was sampled.
    const present = UPSTREAM_SOURCES.filter((s) => fs.existsSync(sharedDataPath(s.path))).map((s) => s.id);
    expect([...table.keys()].sort()).toEqual(present.sort());
    expect(wrong, wrong.join('\n')).toEqual([]);
  });
});
