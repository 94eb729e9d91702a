/**
 * The MMDB export against the API: the run's export of the full dataset, written once by
 * `netrep dataset export --format mmdb` (test/helpers/datasets.ts; the nginx geoip2 test reads the
 * same file), and 10,000 seeded addresses read through the `maxmind` reader
 * (typed as MaxMind's City response) and 2,000 of them through libmaxminddb's `mmdblookup` must
 * give, for each address, the GeoLite2-City record built from intel's answers (/v1/ip and the
 * extended answer's geolocation), and no record where the lookup has none or answers a bogon;
 * the data paths of MaxMind's GeoLite2 documentation and the nginx geoip2 module's examples read
 * the same values one by one.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { type AsnResponse, type CityResponse, Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataset, sharedMmdbExport } from '../../test/helpers/datasets.ts';
import { BIN } from '../../test/helpers/process.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { seededRandom } from '../core/random.ts';
import { createIntel, type Intel, type IpAnswer } from '../intel/index.ts';
import { formatAddr } from './importers/index.ts';
import { loadSnapshot, NO_RECORD, type Snapshot } from './snapshot.ts';

const run = promisify(execFile);
const MMDBLOOKUP = '/usr/bin/mmdblookup';

/** What the export's records are to readers: GeoLite2-City and GeoLite2-ASN, plus netrep's map. */
type NetrepCity = CityResponse & Partial<AsnResponse> & { netrep?: Record<string, unknown> };

let dir: string;
let snapshot: Snapshot;
let intel: Intel;
let file: string;
let networks: number;
const addresses: string[] = [];
/** The record each address should have, from the API's answers. */
const expected = new Map<string, Record<string, unknown> | null>();

const english = new Intl.DisplayNames(['en'], { type: 'region' });
/** A country map as GeoLite2 writes one (its English name where the region has one). */
function countryOf(cc: string): Record<string, unknown> {
  const name = english.of(cc);
  return name && name !== cc ? { iso_code: cc, names: { en: name } } : { iso_code: cc };
}

/**
 * The record the export promises for an address (docs/operations.md, "MMDB export"), written out
 * field by field from the base answer and the extended one (its geolocation, provider and the
 * whois country among its geo_consensus providers).
 */
async function expectedRecord(ip: string): Promise<Record<string, unknown> | null> {
  const a = lookup(ip);
  if (!a || a.bogon) return null;
  const ext = await intel.lookupExtended(parseIp(ip) as ParsedIp);
  const g = ext?.geolocation ?? null;
  const r: Record<string, unknown> = {};
  if (g?.city) r.city = { names: { en: g.city } };
  if (g?.continent_code)
    r.continent = {
      code: g.continent_code,
      ...(g.continent_name ? { names: { en: g.continent_name } } : {}),
    };
  if (a.country !== null) r.country = countryOf(a.country);
  const location = locationOf(g);
  if (location) r.location = location;
  if (g?.postal_code) r.postal = { code: g.postal_code };
  const whois = ext?.geo_consensus?.providers.find((p) => p.provider === 'geo-whois-asn-country')?.country;
  if (whois) r.registered_country = countryOf(whois);
  if (g?.region) r.subdivisions = [{ names: { en: g.region } }];
  if (a.asn !== null) r.autonomous_system_number = a.asn;
  if (a.asn_name !== null) r.autonomous_system_organization = a.asn_name;
  r.netrep = netrepOf(a, ext?.provider);
  return r;
}

type Geolocation = NonNullable<Awaited<ReturnType<Intel['lookupExtended']>>>['geolocation'];

/** GeoLite2's `location` map of a geolocation with coordinates, else null. */
function locationOf(g: Geolocation | null): Record<string, unknown> | null {
  if (!g || g.latitude === null || g.longitude === null) return null;
  const l: Record<string, unknown> = { latitude: g.latitude, longitude: g.longitude };
  if (g.accuracy_radius !== null) l.accuracy_radius = g.accuracy_radius;
  if (g.timezone) l.time_zone = g.timezone;
  return l;
}

/** The `netrep` map: the answer's netrep fields, connection type, RIR, provider and threat. */
function netrepOf(a: IpAnswer, provider: unknown): Record<string, unknown> {
  const netrep: Record<string, unknown> = JSON.parse(JSON.stringify(a.netrep));
  if (a.connection_type !== null) netrep.connection_type = a.connection_type;
  if (a.rir !== null) netrep.rir = a.rir;
  if (provider) netrep.provider = provider;
  netrep.threat = { score: a.threat.score, level: a.threat.level, explanation: a.threat.explanation };
  return netrep;
}

function lookup(text: string): IpAnswer | null {
  return intel.lookup(parseIp(text) as ParsedIp);
}

function valueAt(t: Snapshot['v4'], i: number): bigint {
  if (t.family === 4) return BigInt(t.starts[i] as number);
  let v = 0n;
  for (let k = 0; k < 4; k++) v = (v << 32n) | BigInt(t.starts[i * 4 + k] as number);
  return v;
}

/**
 * The kind of fact an answer carries, for spreading the flagged picks: with every upstream file
 * in the snapshot, proxy and AS-class records far outnumber Tor exits or DROP ranges, and picks
 * drawn from all flagged intervals alike would reach those only by luck.
 */
function kindOf(a: IpAnswer | null): string {
  if (!a) return 'none';
  if (a.netrep.is_tor_exit) return 'tor';
  if (a.threat.explanation.some((e) => e.includes('DROP'))) return 'drop';
  if (a.netrep.is_vpn) return 'vpn';
  if (a.netrep.ai_company) return 'ai';
  if (a.netrep.cloud_provider) return 'cloud';
  return 'other';
}

/** The intervals of a family with a record, and those whose record is flagged (or cloud, or AI). */
function intervalsWithRecords(t: Snapshot['v4']): { withRecord: number[]; flagged: number[] } {
  const r = snapshot.records;
  const withRecord: number[] = [];
  const flagged: number[] = [];
  for (let i = 0; i < t.size; i++) {
    const rec = t.recs[i] as number;
    if (rec === NO_RECORD) continue;
    withRecord.push(i);
    if (r.flags[rec] || r.cloud[rec] || r.ai[rec]) flagged.push(i);
  }
  return { withRecord, flagged };
}

/** A family's picks: inside records, inside flagged records by kind of fact, and interval edges. */
function familySample(t: Snapshot['v4'], rand: () => number, big: (bits: number) => bigint): string[] {
  const out: string[] = [];
  const bits = t.family === 4 ? 32 : 128;
  const end = (i: number): bigint => (i + 1 < t.size ? valueAt(t, i + 1) - 1n : (1n << BigInt(bits)) - 1n);
  const { withRecord, flagged } = intervalsWithRecords(t);
  const pick = (list: number[]): number => list[Math.floor(rand() * list.length)] as number;
  const inside = (i: number): bigint => {
    const span = end(i) - valueAt(t, i) + 1n;
    return valueAt(t, i) + (big(bits) % span);
  };
  for (let k = 0; k < 1200; k++) out.push(formatAddr(t.family, inside(pick(withRecord))));
  const byKind = new Map<string, number[]>();
  for (const i of flagged) {
    const kind = kindOf(lookup(formatAddr(t.family, valueAt(t, i))));
    const list = byKind.get(kind) ?? [];
    list.push(i);
    byKind.set(kind, list);
  }
  const kinds = [...byKind.values()];
  for (let k = 0; k < 800; k++)
    out.push(formatAddr(t.family, inside(pick(kinds[k % kinds.length] as number[]))));
  for (let k = 0; k < 250; k++) {
    const i = pick(withRecord);
    out.push(formatAddr(t.family, valueAt(t, i)), formatAddr(t.family, end(i)));
  }
  return out;
}

/**
 * 10,000 addresses: uniform, inside records (any, and flagged ones, spread evenly over the kinds
 * of fact), interval edges, special blocks.
 */
function sample(): string[] {
  const rand = seededRandom(20261124);
  const big = (bits: number): bigint => {
    let v = 0n;
    for (let b = 0; b < bits; b += 16) v = (v << 16n) | BigInt(Math.floor(rand() * 65536));
    return v & ((1n << BigInt(bits)) - 1n);
  };
  const out: string[] = [];
  for (let k = 0; k < 2500; k++) out.push(formatAddr(4, big(32)));
  for (let k = 0; k < 500; k++) out.push(formatAddr(6, (1n << 125n) | big(125)));
  for (const t of [snapshot.v4, snapshot.v6]) out.push(...familySample(t, rand, big));
  const special = [
    '100.64.0.1',
    '172.16.5.5',
    '192.0.2.1',
    '198.18.0.1',
    '192.168.1.1',
    '224.0.0.1',
    '0.0.0.1',
  ];
  special.push(
    '2001:db8::1',
    '3fff::1',
    'fe80::1',
    '::1',
    '::ffff:8.8.8.8',
    '::ffff:1.1.1.1',
    '2002:808:808::1',
  );
  out.push(...special);
  while (out.length < 10_000) out.push(formatAddr(4, big(32)));
  return out.slice(0, 10_000);
}

/**
 * The run's snapshot of the npm packages and every upstream file under ../shared/data (built once
 * per run, test/helpers/datasets.ts), so that records carry Tor, VPN, cloud, crawler and DROP
 * facts, and the run's export of it.
 */
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-mmdb-export-'));
  expect(await seedDataset(path.join(dir, 'data'), 'shared')).toBe(1);
  snapshot = loadSnapshot(path.join(dir, 'data', 'datasets', 'v1'));
  intel = createIntel({ snapshot });
  const made = await sharedMmdbExport();
  file = made.file;
  networks = Number(/, (\d+) networks, /.exec(made.summary)?.[1]);
  addresses.push(...sample());
  for (const ip of addresses) expected.set(ip, await expectedRecord(ip));
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Address → record (or null) from `mmdblookup --file F --ip A` output, read by two shell loops. */
async function mmdblookupAll(list: string[]): Promise<Map<string, unknown>> {
  const halves = [list.slice(0, list.length / 2), list.slice(list.length / 2)];
  const outs = await Promise.all(
    halves.map(async (part, k) => {
      const listFile = path.join(dir, `ips-${k}.txt`);
      writeFileSync(listFile, `${part.join('\n')}\n`);
      // mmdblookup exits 1 for an address without a record; the loop goes on (and ends with true).
      const script = `while read -r ip; do echo "== $ip"; ${MMDBLOOKUP} --file "$1" --ip "$ip" 2>&1; done < "$2"; true`;
      const { stdout } = await run('bash', ['-c', script, 'mmdb', file, listFile], { maxBuffer: 1 << 30 });
      return stdout;
    }),
  );
  const answers = new Map<string, unknown>();
  for (const chunk of outs.join('').split(/^== /m).slice(1)) {
    const nl = chunk.indexOf('\n');
    const ip = chunk.slice(0, nl);
    const body = chunk.slice(nl + 1);
    answers.set(ip, /Could not find an entry/.test(body) ? null : parseMmdblookup(body));
  }
  return answers;
}

/** mmdblookup's dump (`"key": ` lines, `value <type>` lines, braces and brackets) as a value. */
function parseMmdblookup(text: string): unknown {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  let i = 0;
  const value = (): unknown => {
    const line = lines[i++] as string;
    if (line === '{') {
      const map: Record<string, unknown> = {};
      while (lines[i] !== '}') {
        const key = (lines[i++] as string).replace(/^"(.*)":$/, '$1');
        map[key] = value();
      }
      i++;
      return map;
    }
    if (line === '[') {
      const list: unknown[] = [];
      while (lines[i] !== ']') list.push(value());
      i++;
      return list;
    }
    return scalarOf(line);
  };
  return value();
}

/** One `value <type>` line of mmdblookup's dump as its value. */
function scalarOf(line: string): unknown {
  const m = /^(.*) <(\w+)>$/.exec(line);
  if (!m) throw new Error(`unexpected mmdblookup line: ${line}`);
  const [, raw = '', type] = m;
  if (type === 'utf8_string') return raw.slice(1, -1);
  if (type === 'boolean') return raw === 'true';
  return Number(raw);
}

/** Doubles as mmdblookup prints them (six decimals), for comparing its dump with a record. */
function asPrinted(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (_k, v) =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(6)) : v,
  );
}

/** Data paths from MaxMind's GeoLite2-City and GeoLite2-ASN documentation and the nginx geoip2 module's README. */
const GEOLITE2_PATHS = [
  'country iso_code',
  'country names en',
  'registered_country iso_code',
  'continent code',
  'city names en',
  'subdivisions 0 names en',
  'location latitude',
  'location longitude',
  'location time_zone',
  'postal code',
  'autonomous_system_number',
  'autonomous_system_organization',
  'netrep is_tor_exit',
  'netrep threat level',
];

/** The value at a space-separated data path of a record (undefined: absent). */
function at(record: unknown, dataPath: string): unknown {
  let v: unknown = record;
  for (const step of dataPath.split(' ')) v = (v as Record<string, unknown> | undefined)?.[step];
  return v;
}

/** Whether the typed fields a GeoLite2 program reads (country, location, city) are there and agree. */
function isLocated(got: NetrepCity | null, a: IpAnswer | null): boolean {
  return Boolean(
    got?.country?.iso_code === a?.country && got?.location?.latitude !== undefined && got.city?.names.en,
  );
}

/** Counts the kinds of fact an answer carries. */
function countKinds(
  seen: Record<'tor' | 'cloud' | 'ai' | 'vpn' | 'drop' | 'bogon', number>,
  a: IpAnswer | null,
): void {
  if (a?.bogon) seen.bogon++;
  if (a?.netrep.is_tor_exit) seen.tor++;
  if (a?.netrep.cloud_provider) seen.cloud++;
  if (a?.netrep.ai_company) seen.ai++;
  if (a?.netrep.is_vpn) seen.vpn++;
  if (a?.threat.explanation.some((e) => e.includes('DROP'))) seen.drop++;
}

/** Whether mmdblookup's output for a data path is the API's value there (or says the path is absent). */
function samePathValue(text: string, want: unknown): boolean {
  // An absent path: mmdblookup says the lookup path does not match the data.
  if (want === undefined) return /does not match the data/.test(text);
  return isDeepStrictEqual(parseMmdblookup(text), asPrinted(want));
}

describe('exportMmdb', () => {
  it('writes every routed network of the snapshot, as a GeoLite2-City database', () => {
    expect(networks).toBeGreaterThan(snapshot.v4.size / 2);
    const r = new Reader<NetrepCity>(readFileSync(file));
    // The type MaxMind's readers check before city() (geoip2-node, Python's geoip2, geoip2-golang).
    expect(r.metadata.databaseType).toBe('GeoLite2-City');
    expect(r.metadata.languages).toEqual(['en']);
    expect(r.metadata.buildEpoch.toISOString()).toBe(
      new Date(Math.floor(Date.parse(snapshot.createdAt) / 1000) * 1000).toISOString(),
    );
  });

  it('the maxmind reader, typed as a City response, agrees with the API on 10,000 addresses', () => {
    const reader = new Reader<NetrepCity>(readFileSync(file));
    const wrong: string[] = [];
    let found = 0;
    let located = 0;
    const seen = { tor: 0, cloud: 0, ai: 0, vpn: 0, drop: 0, bogon: 0 };
    for (const ip of addresses) {
      const a = lookup(ip);
      const want = expected.get(ip);
      const got = reader.get(ip);
      if (!isDeepStrictEqual(got, want))
        wrong.push(`${ip}: mmdb ${JSON.stringify(got)} API ${JSON.stringify(want)}`);
      if (want) found++;
      if (isLocated(got, a)) located++;
      countKinds(seen, a);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    // The sample reaches every kind of record, so the agreement says something about each.
    expect(found).toBeGreaterThan(5000);
    expect(located).toBeGreaterThan(found / 2);
    for (const [kind, n] of Object.entries(seen)) expect(n, kind).toBeGreaterThan(3);
  });

  it('no IPv4 address the lookup answers as a bogon has a record (every /24 swept)', () => {
    const reader = new Reader<NetrepCity>(readFileSync(file));
    const ip: ParsedIp = { family: 4, address: '', bytes: [0, 0, 0, 0] };
    const leaked: string[] = [];
    let bogons = 0;
    for (let n = 0; n < 2 ** 24; n++) {
      ip.bytes = [n >>> 16, (n >>> 8) & 255, n & 255, 1];
      if (!intel.lookup(ip)?.bogon) continue;
      bogons++;
      const text = ip.bytes.join('.');
      if (reader.get(text) !== null) leaked.push(text);
    }
    expect(bogons).toBeGreaterThan(2 ** 24 / 8);
    expect(leaked.slice(0, 5)).toEqual([]);
  }, 300_000);

  it('mmdblookup (libmaxminddb) agrees with the API on 2,000 of the addresses', async (ctx) => {
    if (!existsSync(MMDBLOOKUP)) {
      if (process.env.CI)
        throw new Error('mmdblookup is not installed (Debian mmdb-bin; .ci/run installs it)');
      process.stdout.write('skipped: mmdblookup not installed (Debian mmdb-bin; CI installs it)\n');
      ctx.skip();
    }
    const some = addresses.filter((_, i) => i % 5 === 0);
    const answers = await mmdblookupAll(some);
    const wrong: string[] = [];
    for (const ip of some) {
      const want = asPrinted(expected.get(ip));
      const got = answers.get(ip);
      if (!isDeepStrictEqual(got, want))
        wrong.push(`${ip}: mmdblookup ${JSON.stringify(got)} API ${JSON.stringify(want)}`);
    }
    expect(answers.size).toBe(new Set(some).size);
    expect(wrong.slice(0, 5)).toEqual([]);
  }, 600_000);

  it('the GeoLite2 data paths read the API values one by one (mmdblookup … country iso_code)', async (ctx) => {
    if (!existsSync(MMDBLOOKUP)) {
      if (process.env.CI)
        throw new Error('mmdblookup is not installed (Debian mmdb-bin; .ci/run installs it)');
      ctx.skip();
    }
    // Located, routed addresses: every path has a value somewhere among them.
    const some = addresses
      .filter((ip) => (expected.get(ip) as { location?: unknown } | null)?.location)
      .slice(0, 60);
    const listFile = path.join(dir, 'paths.txt');
    writeFileSync(listFile, `${some.join('\n')}\n`);
    const script = `while read -r ip; do for p in "\${@:3}"; do echo "== $ip|$p"; ${MMDBLOOKUP} --file "$1" --ip "$ip" $p 2>&1; done; done < "$2"; true`;
    const { stdout } = await run('bash', ['-c', script, 'mmdb', file, listFile, ...GEOLITE2_PATHS], {
      maxBuffer: 1 << 28,
    });
    const wrong: string[] = [];
    const present = new Set<string>();
    for (const chunk of stdout.split(/^== /m).slice(1)) {
      const nl = chunk.indexOf('\n');
      const [ip = '', dataPath = ''] = chunk.slice(0, nl).split('|');
      const text = chunk.slice(nl + 1).trim();
      const want = at(expected.get(ip), dataPath);
      if (want !== undefined) present.add(dataPath);
      if (!samePathValue(text, want))
        wrong.push(`${ip} ${dataPath}: mmdblookup ${text} API ${JSON.stringify(want)}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    // DB-IP's lite files publish no postal codes or time zones; every other path has values.
    const missing = GEOLITE2_PATHS.filter((p) => !present.has(p));
    expect(missing.filter((p) => p !== 'postal code' && p !== 'location time_zone')).toEqual([]);
  }, 300_000);
});

/**
 * The same snapshot through the `netrep` binary (issue 19: a lookup took about 6 s a process).
 * Done when: 10,000 addresses from a file in under 3 s including start and snapshot load. The
 * process's CPU time (user + system, all threads) must stay under 3 s on every machine; the wall
 * time is held to 3 s too when the machine is not oversubscribed (load average at most one per
 * core), since on a CI host running many suites at once the wall clock measures the neighbours.
 * Best of up to three runs.
 */
describe('netrep lookup --file over the same snapshot', () => {
  const LIMIT_S = 3;

  async function lookupFile(listFile: string, outFile: string): Promise<{ wall: number; cpu: number }> {
    // bash's time keyword reports the child's real, user and system seconds.
    const script = 'TIMEFORMAT="%3R %3U %3S"; { time "$@" > "$0" 2>/dev/null; } 2>&1';
    const args = [outFile, process.execPath, BIN, 'lookup', '--file', listFile, '--format', 'json'];
    const { stdout } = await run('bash', ['-c', script, ...args], {
      env: { ...process.env, NETREP_DATA_DIR: path.join(dir, 'data') },
    });
    const [wall = Number.NaN, user = Number.NaN, sys = Number.NaN] = stdout.trim().split(' ').map(Number);
    return { wall, cpu: user + sys };
  }

  it('answers 10,000 addresses as the lookup does, in under 3 s including the load', async () => {
    const listFile = path.join(dir, 'lookup-list.txt');
    const outFile = path.join(dir, 'lookup-out.ndjson');
    writeFileSync(listFile, `${addresses.join('\n')}\n`);
    const runs: { wall: number; cpu: number }[] = [];
    for (let round = 0; round < 3; round++) {
      runs.push(await lookupFile(listFile, outFile));
      if (Math.max(runs.at(-1)?.wall ?? 0, runs.at(-1)?.cpu ?? 0) < LIMIT_S) break;
    }
    const lines = readFileSync(outFile, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(addresses.length);
    const wrong: string[] = [];
    lines.forEach((line, i) => {
      const ip = addresses[i] as string;
      const body = JSON.parse(line) as { data?: unknown; error?: { code: string } };
      const want = lookup(ip);
      const same = want
        ? isDeepStrictEqual(body.data, JSON.parse(JSON.stringify(want)))
        : body.error?.code === 'NOT_FOUND';
      if (!same) wrong.push(`${ip}: ${line.slice(0, 200)}`);
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    const seen = `runs (wall s / cpu s): ${runs.map((r) => `${r.wall}/${r.cpu.toFixed(2)}`).join(', ')}; load ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`;
    expect(Math.min(...runs.map((r) => r.cpu)), seen).toBeLessThan(LIMIT_S);
    if ((loadavg()[0] ?? 0) <= cpus().length)
      expect(Math.min(...runs.map((r) => r.wall)), seen).toBeLessThan(LIMIT_S);
  }, 180_000);
});
