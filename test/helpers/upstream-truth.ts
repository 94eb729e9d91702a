/**
 * Reads the upstream files of shared/data on their own terms, without netrep's importers, so
 * that the source agreement suite compares the service's answers with what the file itself
 * says. Addresses go through ipaddr.js (not core/ip.ts; plain forms read faster by
 * truth-addresses.ts, with ipaddr.js's results); CSV through csv-parse. Each reader is
 * deliberately plain: the format's documented fields, nothing inferred.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { parseAddress, parseCidr } from './truth-addresses.ts';

export interface TruthRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
  /** The row as the file wrote it (for reports). */
  text: string;
  /** Excluded (rbldnsd `!` line): the range is carved out of the listing. */
  exclude?: boolean;
  country?: string | null;
  /** RIR row: the registry; IANA row: the designated RIR. */
  rir?: string;
  /** ROA. */
  asn?: number;
  maxLength?: number;
  prefixLength?: number;
}

export interface TruthFile {
  ranges: TruthRange[];
  asns: number[];
  /** AS classification files: the class the file gives each ASN (`Transit/Access`, `Content`, `Enterprise`). */
  asClass?: Map<number, string>;
}

/** An IP, CIDR or `a-b` range as an inclusive range; null when it is none of them. */
export function rangeOf(text: string): Omit<TruthRange, 'text'> | null {
  const t = text.trim();
  try {
    if (t.includes('-')) {
      const [a, b] = t.split('-').map((x) => parseAddress(x.trim()));
      if (!a || !b || a.family !== b.family) return null;
      return { family: a.family, start: a.value, end: b.value };
    }
    if (t.includes('/')) {
      const { family, value, length } = parseCidr(t);
      const bits = family === 4 ? 32 : 128;
      const host = (1n << BigInt(bits - length)) - 1n;
      const start = value & ~host & ((1n << BigInt(bits)) - 1n);
      return { family, start, end: start | host, prefixLength: length };
    }
    const a = parseAddress(t);
    return { family: a.family, start: a.value, end: a.value };
  } catch {
    return null;
  }
}

function push(out: TruthRange[], text: string, extra: Partial<TruthRange> = {}): void {
  const r = rangeOf(text);
  if (r) out.push({ ...r, text: text.trim(), ...extra });
}

const lines = (file: string) => readFileSync(file, 'latin1').split(/\r?\n/);
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const ndjson = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);

/** The IANA designation as an RIR name, or null (IANA itself, reserved, legacy holders). */
function ianaRir(designation: string): string | null {
  const d = designation.toUpperCase();
  if (d.startsWith('RIPE')) return 'RIPE';
  for (const r of ['ARIN', 'APNIC', 'LACNIC', 'AFRINIC']) if (d.startsWith(r)) return r;
  return null;
}

/** An ISO 3166-1 alpha-2 code, or null (RFC 8805 leaves it empty; some feeds write `None`). */
const cc = (v: string | undefined): string | null => {
  const t = (v ?? '').trim().toUpperCase();
  return /^[A-Z]{2}$/.test(t) ? t : null;
};

/** Pushes the first match group of `re` on each line (trimmed first when `trim`). */
function pushMatches(out: TruthRange[], file: string, re: RegExp, trim = false): void {
  for (const l of lines(file)) {
    const m = re.exec(trim ? l.trim() : l);
    if (m?.[1]) push(out, m[1]);
  }
}

/** Plain lists: the first word of each line, `#` and `;` comments dropped. */
function readPlain(file: string, out: TruthRange[]): void {
  for (const l of lines(file)) {
    const t =
      l
        .replace(/[#;].*$/, '')
        .trim()
        .split(/\s+/)[0] ?? '';
    if (t) push(out, t);
  }
}

/** AWS ip-ranges.json: `prefixes[].ip_prefix` and `ipv6_prefixes[].ipv6_prefix`. */
function readAws(file: string, out: TruthRange[]): void {
  const d = json(file);
  for (const p of (d.prefixes as { ip_prefix: string }[]) ?? []) push(out, p.ip_prefix);
  for (const p of (d.ipv6_prefixes as { ipv6_prefix: string }[]) ?? []) push(out, p.ipv6_prefix);
}

/** Google cloud.json / goog.json: `prefixes[].ipv4Prefix | ipv6Prefix`. */
function readGoogle(file: string, out: TruthRange[]): void {
  const d = json(file);
  for (const p of (d.prefixes as { ipv4Prefix?: string; ipv6Prefix?: string }[]) ?? [])
    push(out, p.ipv4Prefix ?? p.ipv6Prefix ?? '');
}

/** Azure service tags: `values[].properties.addressPrefixes[]`. */
function readAzure(file: string, out: TruthRange[]): void {
  const d = json(file);
  for (const v of (d.values as { properties: { addressPrefixes: string[] } }[]) ?? [])
    for (const p of v.properties.addressPrefixes) push(out, p);
}

/** Oracle public_ip_ranges.json: `regions[].cidrs[].cidr`. */
function readOracle(file: string, out: TruthRange[]): void {
  const d = json(file);
  for (const r of (d.regions as { cidrs: { cidr: string }[] }[]) ?? [])
    for (const c of r.cidrs) push(out, c.cidr);
}

/** JSON files holding lists of strings under the keys given (Fastly, cloud-ips). */
const readStringLists =
  (...keys: string[]) =>
  (file: string, out: TruthRange[]): void => {
    const d = json(file);
    for (const p of keys.flatMap((k) => strings(d[k]))) push(out, p);
  };

/** GitHub meta.json: every list of address ranges (hooks, web, api, actions, …). */
function readGithub(file: string, out: TruthRange[]): void {
  const d = json(file);
  for (const v of Object.values(d))
    for (const p of strings(v)) if (p.includes('/') && !p.includes(' ')) push(out, p);
}

/** RFC 8805 geofeed CSV: prefix, country; `#` lines are comments. */
function readGeofeedCsv(file: string, out: TruthRange[]): void {
  const text = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
  for (const row of parseCsv(text, { relax_column_count: true, skip_empty_lines: true }) as string[][])
    push(out, row[0] ?? '', { country: cc(row[1]) });
}

/** Vultr geofeed JSON: `subnets[].ip_prefix` with `alpha2code`. */
function readVultrJson(file: string, out: TruthRange[]): void {
  const d = json(file);
  for (const s of (d.subnets as { ip_prefix: string; alpha2code: string }[]) ?? [])
    push(out, s.ip_prefix, { country: cc(s.alpha2code) });
}

/** Spamhaus DROP text: the prefix before the `;` comment. */
function readDropText(file: string, out: TruthRange[]): void {
  for (const l of lines(file)) {
    const t = l.split(';')[0]?.trim() ?? '';
    if (t) push(out, t);
  }
}

/** Spamhaus DROP NDJSON: the `cidr` of each object. */
function readDropJson(file: string, out: TruthRange[]): void {
  for (const o of ndjson(file)) if (typeof o.cidr === 'string') push(out, o.cidr);
}

/** rbldnsd ip4set: `$`/`:` directives, `#` comments, `!` exclusions, then one entry a line. */
function readIp4set(file: string, out: TruthRange[]): void {
  for (const l of lines(file)) {
    if (/^\s*($|[#$:])/.test(l)) continue;
    const exclude = l.startsWith('!');
    const t = (exclude ? l.slice(1) : l).trim().split(/\s+/)[0] ?? '';
    if (t === '127.0.0.2') continue; // the RFC 5782 test record
    push(out, t, exclude ? { exclude: true } : {});
  }
}

/** One RIR delegated-stats line: allocated or assigned IPv4 (start, count) or IPv6 (start/len) rows. */
function pushRirLine(out: TruthRange[], l: string): void {
  const f = l.split('|');
  const [registry, cc, type, start, value, , status] = f;
  if (f.length < 7 || (type !== 'ipv4' && type !== 'ipv6') || start === '*') return;
  if (status !== 'allocated' && status !== 'assigned') return;
  const rir = ianaRir((registry ?? '').replace('ripencc', 'ripe')) ?? '';
  const country = cc && /^[A-Z]{2}$/.test(cc) ? cc : null;
  if (type === 'ipv4') {
    const r = rangeOf(start ?? '');
    if (r) out.push({ ...r, end: r.start + BigInt(value ?? '1') - 1n, text: l, rir, country });
  } else push(out, `${start}/${value}`, { rir, country });
}

/** RIR delegated-stats files. */
function readRir(file: string, out: TruthRange[]): void {
  for (const l of lines(file)) pushRirLine(out, l);
}

/** IANA IPv4 address space registry CSV: the /8s designated to an RIR. */
function readIana(file: string, out: TruthRange[]): void {
  for (const row of parseCsv(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[]) {
    const rir = ianaRir(row.Designation ?? '');
    if (!rir) continue;
    const p = (row.Prefix ?? '').replace(/^0*(\d+)\/8$/, '$1.0.0.0/8');
    push(out, p, { rir });
  }
}

/** rpki-client JSON (gzip or not): each ROA's prefix, ASN and maxLength. */
function readRpkiJson(file: string, out: TruthRange[]): void {
  const raw = readFileSync(file);
  const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
  const d = JSON.parse(text.toString('utf8')) as {
    roas: { asn: number | string; prefix: string; maxLength: number }[];
  };
  for (const r of d.roas) {
    const asn = typeof r.asn === 'number' ? r.asn : Number(String(r.asn).replace(/^AS/i, ''));
    push(out, r.prefix, { asn, maxLength: r.maxLength });
  }
}

/** FireHOL netsets: one entry a line, `#` comments. */
function readNetset(file: string, out: TruthRange[]): void {
  for (const l of lines(file)) if (l.trim() && !l.startsWith('#')) push(out, l.trim());
}

/** The readers of the formats that list address ranges, by format name. */
const RANGE_READERS = new Map<string, (file: string, out: TruthRange[]) => void>([
  ['plain', readPlain],
  ['tor-exit', (file, out) => pushMatches(out, file, /^ExitAddress\s+(\S+)/)],
  ['aws', readAws],
  ['google', readGoogle],
  ['azure', readAzure],
  ['oracle', readOracle],
  ['fastly', readStringLists('addresses', 'ipv6_addresses')],
  ['github', readGithub],
  ['cloud-ips', readStringLists('IPv4Prefixes', 'IPv6Prefixes')],
  ['geofeed-csv', readGeofeedCsv],
  ['vultr-json', readVultrJson],
  ['drop-text', readDropText],
  ['drop-json', readDropJson],
  ['ip4set', readIp4set],
  ['rir', readRir],
  ['iana', readIana],
  ['rpki-json', readRpkiJson],
  // spys.me: `IP:PORT CC-ANONYMITY...` lines; everything else is header or banner text.
  [
    'spys-proxy',
    (file, out) => pushMatches(out, file, /^(\d{1,3}(?:\.\d{1,3}){3}):\d+\s+[A-Z]{2}-[NAH]/, true),
  ],
  ['ip-port', (file, out) => pushMatches(out, file, /^(\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?$/, true)],
  ['netset', readNetset],
]);

/** Spamhaus ASN-DROP NDJSON: the `asn` of each object. */
function readAsndropJson(file: string): number[] {
  const asns: number[] = [];
  for (const o of ndjson(file)) if (typeof o.asn === 'number') asns.push(o.asn);
  return asns;
}

/** ASN lists: `AS<n>` at the start of a line. */
function readAsnList(file: string): number[] {
  const asns: number[] = [];
  for (const l of lines(file)) {
    const m = /^\s*AS(\d+)/i.exec(l);
    if (m) asns.push(Number(m[1]));
  }
  return asns;
}

/** The readers of the formats that list ASNs, by format name. */
const ASN_READERS = new Map<string, (file: string) => number[]>([
  ['asndrop-json', readAsndropJson],
  ['asn-list', readAsnList],
]);

/** CAIDA as2types: `as|source|type` lines, `#` comments; the class of each ASN. */
function readAsClasses(file: string): TruthFile {
  const asClass = new Map<number, string>();
  for (const l of lines(file)) {
    if (l.startsWith('#')) continue;
    const [as, , type] = l.split('|');
    if (as && type) asClass.set(Number(as), type.trim());
  }
  return { ranges: [], asns: [...asClass.keys()], asClass };
}

/** Reads one upstream file by its format name (sources.ts `format`). */
export function readTruth(file: string, format: string): TruthFile {
  if (format === 'caida-as2types') return readAsClasses(file);
  const asnReader = ASN_READERS.get(format);
  if (asnReader) return { ranges: [], asns: asnReader(file) };
  const reader = RANGE_READERS.get(format);
  if (!reader) throw new Error(`no truth reader for format ${format}`);
  const ranges: TruthRange[] = [];
  reader(file, ranges);
  return { ranges, asns: [] };
}

/** The npm ip-location-db CSVs (start,end,value…): ASN rows and country rows. */
export function readNpmCsv(file: string, kind: 'asn' | 'country'): TruthRange[] {
  const out: TruthRange[] = [];
  for (const row of parseCsv(readFileSync(file, 'utf8'), { relax_column_count: true }) as string[][]) {
    const a = rangeOf(row[0] ?? '');
    const b = rangeOf(row[1] ?? '');
    if (!a || !b) continue;
    out.push({
      family: a.family,
      start: a.start,
      end: b.start,
      text: row.join(','),
      ...(kind === 'asn' ? { asn: Number(row[2]) } : { country: row[2] ?? null }),
    });
  }
  return out;
}

/** A seeded PRNG (mulberry32): the same seed draws the same sample on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Up to n distinct items, drawn without replacement with `random`. */
export function sample<T>(items: readonly T[], n: number, random: () => number): T[] {
  const a = [...items];
  const k = Math.min(n, a.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (a.length - i));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a.slice(0, k);
}

/** A seeded address inside [start, end]. */
export function addressIn(r: { start: bigint; end: bigint }, random: () => number): bigint {
  const span = r.end - r.start + 1n;
  let x = 0n;
  for (let i = 0; i < 5; i++) x = (x << 32n) | BigInt(Math.floor(random() * 4294967296));
  return r.start + (x % span);
}

export function formatAddr(family: 4 | 6, v: bigint): string {
  const bytes: number[] = [];
  const n = family === 4 ? 4 : 16;
  for (let i = n - 1; i >= 0; i--) bytes.push(Number((v >> BigInt(i * 8)) & 0xffn));
  return ipaddr.fromByteArray(bytes).toString();
}
