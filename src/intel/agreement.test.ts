/**
 * Truth from the source: 100,000 random addresses (fixed seed, IPv4 and IPv6) answered from a
 * snapshot built from the installed npm packages must agree with the CSV rows read here
 * directly (csv-parse + ipaddr.js, not the importers): ASN, organization and country of the
 * narrowest covering row, the first row on a tie; the answer's prefix holds the address inside
 * that row.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedDatasetDir } from '../../test/helpers/datasets.ts';
import { ipWords, type ParsedIp, parseIp, readIp } from '../core/ip.ts';
import { seededRandom as prng } from '../core/random.ts';
import { formatAddr, loadSnapshot, NO_RECORD, npmDataDir, type Snapshot } from '../dataset/index.ts';
import { cidrAround, findV4 } from './engine.ts';
import { createIntel, type Intel } from './index.ts';
import { pieceHiV4, pieceLoV4 } from './prefix-cut.ts';
import { buildProfile } from './profile.ts';

interface Rows {
  starts: bigint[];
  ends: bigint[];
  values: string[][];
  maxEnd: bigint[];
}

function toBig(text: string): bigint {
  let n = 0n;
  for (const b of ipaddr.parse(text).toByteArray()) n = (n << 8n) | BigInt(b);
  return n;
}

function readRows(file: string): Rows {
  const records = parse(readFileSync(file, 'utf8'), { relax_column_count: true }) as string[][];
  const rows = records.map((r, i) => ({
    s: toBig(r[0] as string),
    e: toBig(r[1] as string),
    v: r.slice(2),
    i,
  }));
  rows.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : a.i - b.i));
  const out: Rows = { starts: [], ends: [], values: [], maxEnd: [] };
  let max = -1n;
  for (const r of rows) {
    out.starts.push(r.s);
    out.ends.push(r.e);
    out.values.push(r.v);
    if (r.e > max) max = r.e;
    out.maxEnd.push(max);
  }
  return out;
}

function narrowest(rows: Rows, x: bigint): string[] | null {
  const i = narrowestIndex(rows, x);
  return i === null ? null : (rows.values[i] as string[]);
}

/** The last row starting at or below x, or null when none does. */
function lastStartAtOrBelow(rows: Rows, x: bigint): number | null {
  let lo = 0;
  let hi = rows.starts.length - 1;
  if (hi < 0 || (rows.starts[0] as bigint) > x) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((rows.starts[mid] as bigint) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Whether row i is narrower than row best; same size covering the same address means the same range: the earlier row wins. */
function narrower(rows: Rows, i: number, best: number): boolean {
  const size = (rows.ends[i] as bigint) - (rows.starts[i] as bigint);
  const bs = (rows.ends[best] as bigint) - (rows.starts[best] as bigint);
  return size < bs || (size === bs && i < best);
}

function narrowestIndex(rows: Rows, x: bigint): number | null {
  const lo = lastStartAtOrBelow(rows, x);
  if (lo === null) return null;
  let best: number | null = null;
  for (let i = lo; i >= 0 && (rows.maxEnd[i] as bigint) >= x; i--) {
    if ((rows.ends[i] as bigint) < x) continue;
    if (best === null || narrower(rows, i, best)) best = i;
  }
  return best;
}

/** The CIDR text as [first, last] addresses. */
function cidrBounds(cidr: string): [bigint, bigint] {
  const [addr, len] = ipaddr.parseCIDR(cidr);
  const bits = addr.kind() === 'ipv4' ? 32 : 128;
  const first = toBig(addr.toString());
  return [first, first + (1n << BigInt(bits - len)) - 1n];
}

let snapshot: Snapshot;
let intel: Intel;
const scratch = ipWords();

/**
 * Address k of the sample: even ones uniform over the family (IPv6: over global unicast
 * 2000::/3, the rest is bogon space), odd ones routed: a random address inside a random ASN row.
 */
function sampleAddress(k: number, family: 4 | 6, rand: () => number, asn: Rows): bigint {
  if (k % 2 !== 0) {
    const i = Math.floor(rand() * asn.starts.length);
    const span = (asn.ends[i] as bigint) - (asn.starts[i] as bigint) + 1n;
    return (asn.starts[i] as bigint) + (BigInt(Math.floor(rand() * 2 ** 52)) % span);
  }
  let x = 0n;
  for (let w = 0; w < (family === 4 ? 32 : 128) / 16; w++)
    x = (x << 16n) | BigInt(Math.floor(rand() * 65536));
  if (family === 6) x = (x & ((1n << 125n) - 1n)) | (1n << 125n);
  return x;
}

function parsedOf(x: bigint, family: 4 | 6): ParsedIp {
  const bytes: number[] = [];
  for (let b = (family === 4 ? 32 : 128) / 8 - 1; b >= 0; b--)
    bytes.push(Number((x >> BigInt(b * 8)) & 255n));
  return parseIp(ipaddr.fromByteArray(bytes).toString()) as ParsedIp;
}

/** Text to answer without the ParsedIp gives the same answer, in every form of the text. */
function expectSameByWords(ip: ParsedIp, got: ReturnType<Intel['lookup']>): void {
  for (const text of [ip.address, ip.address.toUpperCase(), ` ${ip.address}\n`]) {
    expect(readIp(text, scratch), text).toBe(true);
    expect(intel.lookupWords(scratch), text).toEqual(got);
  }
}

/**
 * Where the answer for x disagrees with the source rows: a prefix that does not hold the
 * address or does not lie inside the ASN row that answered; a different ASN, name or country.
 */
function rowMismatches(
  x: bigint,
  ip: ParsedIp,
  got: ReturnType<Intel['lookup']>,
  rows: { asn: Rows; whois: Rows; asnCountry: Rows },
): string[] {
  const out: string[] = [];
  const ai = narrowestIndex(rows.asn, x);
  const a = ai === null ? null : (rows.asn.values[ai] as string[]);
  const c = narrowest(rows.whois, x) ?? narrowest(rows.asnCountry, x);
  if (ai !== null && got && !prefixInsideRow(got.prefix, x, rows.asn, ai)) {
    out.push(`${ip.address}: prefix ${got.prefix} outside row ${ai}`);
  }
  const expected = {
    asn: a ? Number(a[0]) : null,
    org: a ? (a[1] as string).trim() : null,
    country: c ? (c[0] as string) : null,
  };
  const actual = { asn: got?.asn ?? null, org: got?.asn_name ?? null, country: got?.country ?? null };
  if (expected.asn !== actual.asn || expected.org !== actual.org || expected.country !== actual.country) {
    out.push(`${ip.address}: expected ${JSON.stringify(expected)} got ${JSON.stringify(actual)}`);
  }
  return out;
}

/**
 * The probes of the IPv4 comparison: uniform addresses, a random address and the edges of
 * random intervals and of their /24s, and the edges of random /16, /20 and /24 blocks.
 */
function probesV4(t: Snapshot['v4'], rand: () => number): number[] {
  const probes: number[] = [];
  for (let k = 0; k < 30_000; k++) probes.push(Math.floor(rand() * 2 ** 32));
  for (let k = 0; k < 30_000; k++) {
    const i = Math.floor(rand() * t.size);
    const end = i + 1 < t.size ? (t.starts[i + 1] as number) - 1 : 0xffffffff;
    const start = t.starts[i] as number;
    // The interval's edges, and those of the /24 its start is in (partial when the start is not
    // its first address; else, in a partial /20, whole).
    const base = start - (start % 256);
    probes.push(
      start + Math.floor(rand() * (end - start + 1)),
      start,
      end,
      base,
      base + 255,
      Math.max(0, base - 1),
    );
  }
  for (let k = 0; k < 15_000; k++) {
    const size = [0x10000, 0x1000, 0x100][k % 3] as number;
    const base = Math.floor(rand() * (2 ** 32 / size)) * size;
    probes.push(base, base + size - 1, Math.max(0, base - 1));
  }
  return probes;
}

/**
 * The answer built from scratch for address n in interval i of the uncut table, record rec:
 * that record's profile and the largest CIDR block of its piece around the address.
 */
function scratchAnswer(
  ip: ParsedIp,
  n: number,
  i: number,
  rec: number,
  asnInfo: Parameters<typeof buildProfile>[2],
) {
  const t = snapshot.v4;
  const p = buildProfile(snapshot, rec, asnInfo);
  const { network, length } = cidrAround(4, BigInt(n), BigInt(pieceLoV4(t, i)), BigInt(pieceHiV4(t, i)));
  return {
    ip: ip.address,
    prefix: `${formatAddr(4, network)}/${length}`,
    asn: p.asn,
    asn_name: p.asnName,
    country: p.country,
    rir: p.rir,
    connection_type: p.connectionType,
    bogon: false,
    netrep: p.netrep,
    threat: p.threat,
  };
}

/**
 * The 50,000 sampled addresses of a family against the source rows: how many were compared,
 * how many are bogons, and the disagreements.
 */
function sampleAgreement(
  family: 4 | 6,
  rand: () => number,
  rows: { asn: Rows; whois: Rows; asnCountry: Rows },
): { checked: number; bogons: number; mismatches: string[] } {
  let checked = 0;
  let bogons = 0;
  const mismatches: string[] = [];
  for (let k = 0; k < 50_000; k++) {
    const x = sampleAddress(k, family, rand, rows.asn);
    const ip = parsedOf(x, family);
    if (ip.family !== family) continue;
    const got = intel.lookup(ip);
    expectSameByWords(ip, got);
    if (got?.bogon) {
      bogons++;
      continue;
    }
    checked++;
    mismatches.push(...rowMismatches(x, ip, got, rows));
  }
  return { checked, bogons, mismatches };
}

/**
 * IPv4 address n looked up against the answer built from scratch; a disagreement is added to
 * `mismatches`. True when n has a record (a bogon or an address without one: false).
 */
function compareWithScratch(
  n: number,
  asnInfo: Parameters<typeof buildProfile>[2],
  mismatches: string[],
): boolean {
  const t = snapshot.v4;
  const ip = parseIp(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`) as ParsedIp;
  const got = intel.lookup(ip);
  if (got?.bogon) return false;
  const i = findV4(t, n);
  const rec = i < 0 ? NO_RECORD : (t.recs[i] as number);
  if (rec === NO_RECORD) {
    if (got !== null) mismatches.push(`${ip.address}: no record, got ${got.prefix}`);
    return false;
  }
  const expected = scratchAnswer(ip, n, i, rec, asnInfo);
  if (JSON.stringify(got) !== JSON.stringify(expected))
    mismatches.push(`${ip.address}: expected ${JSON.stringify(expected)} got ${JSON.stringify(got)}`);
  return true;
}

/** The prefix holds x and lies inside row ai. */
function prefixInsideRow(prefix: string, x: bigint, rows: Rows, ai: number): boolean {
  const [first, last] = cidrBounds(prefix);
  return first <= x && last >= x && first >= (rows.starts[ai] as bigint) && last <= (rows.ends[ai] as bigint);
}

beforeAll(async () => {
  // The run's npm-only build (test/helpers/datasets.ts), built once per run and only read here.
  snapshot = loadSnapshot(path.join(await sharedDatasetDir('npm'), 'datasets', 'v1'));
  intel = createIntel({ snapshot });
}, 180_000);

describe('npm-only build', () => {
  it('answers 8.8.8.8 as AS15169 Google LLC, US, ARIN, datacenter with no upstream files', () => {
    expect(intel.lookup(parseIp('8.8.8.8') as ParsedIp)).toMatchObject({
      asn: 15169,
      asn_name: 'Google LLC',
      country: 'US',
      rir: 'ARIN',
      connection_type: 'datacenter',
      netrep: { is_datacenter: true },
    });
    expect(intel.lookup(parseIp('2a00:1450:4001::1') as ParsedIp)).toMatchObject({
      asn: 15169,
      asn_name: 'Google LLC',
    });
    expect(intel.lookup(parseIp('215.0.0.1') as ParsedIp)?.asn).toBe(721);
    expect(intel.lookup(parseIp('214.95.0.1') as ParsedIp)?.asn).toBe(749);
  });

  for (const family of [4, 6] as const) {
    it(`IPv${family}: 50,000 sampled addresses agree with the source CSV rows`, () => {
      const dir = npmDataDir();
      const fam = `ipv${family}`;
      const asn = readRows(path.join(dir, `asn/asn-${fam}.csv`));
      const whois = readRows(path.join(dir, `geo-whois-asn-country/geo-whois-asn-country-${fam}.csv`));
      const asnCountry = readRows(path.join(dir, `asn-country/asn-country-${fam}.csv`));
      const rand = prng(family === 4 ? 20261122 : 20261123);
      const { checked, bogons, mismatches } = sampleAgreement(family, rand, { asn, whois, asnCountry });
      expect(mismatches.slice(0, 10)).toEqual([]);
      expect(checked + bogons).toBe(50_000);
      expect(bogons).toBeLessThan(family === 4 ? 10_000 : 1_000);
    }, 120_000);
  }

  it('IPv4: answers equal a from-scratch answer on uniform, routed and block-edge addresses', () => {
    // The reference: the snapshot's own interval by its plain bucketed search (findV4 over the
    // uncut table), that record's profile, and the largest CIDR block of its piece around the
    // address (cidrAround, bigint arithmetic); the lookup instead reads cut intervals through
    // whole and partial /16, /20 and /24 blocks (lookup-v4.ts).
    const asnMap = new Map(snapshot.asns.map((a) => [a.asn, a]));
    const t = snapshot.v4;
    const rand = prng(20261125);
    const probes = probesV4(t, rand);
    const mismatches: string[] = [];
    let answered = 0;
    for (const n of probes) {
      if (compareWithScratch(n, (asn) => asnMap.get(asn), mismatches)) answered++;
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(answered).toBeGreaterThan(100_000);
  }, 120_000);
});
