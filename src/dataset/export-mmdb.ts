/**
 * `netrep dataset export --format mmdb`: the snapshot as a MaxMind DB whose record for an address
 * is that address's /v1/ip answer (less `ip` and `bogon`), plus the GeoLite2-ASN keys so tools
 * that read an ASN database work unchanged. The answers come from the caller (the intel lookup),
 * so the file and the API cannot disagree: each network written is a CIDR block inside one
 * snapshot interval, and every address of such a block has the same answer.
 */
import { parseCidr } from '../core/ip.ts';
import { createMmdbWriter, type MmdbMap } from './mmdb-writer.ts';
import { type FamilyTable, NO_RECORD, type Snapshot } from './snapshot.ts';

/** The fields of an IP answer the export writes (intel's IpAnswer has them). */
export interface MmdbAnswer {
  prefix: string;
  asn: number | null;
  asn_name: string | null;
  country: string | null;
  rir: string | null;
  connection_type: string | null;
  bogon: boolean;
  netrep: { readonly [flag: string]: boolean | string | undefined };
  threat: { score: number; level: string; explanation: readonly string[] };
}

/** The answer for an address (IPv4 as a 32-bit value), null when no record covers it. */
export type AnswerAt = (family: 4 | 6, address: bigint) => MmdbAnswer | null;

/**
 * Where bogon blocks may lie: the IANA IPv4 and IPv6 special-purpose registries, multicast, and
 * the IPv6 space outside 2000::/3. The lookup is asked at both ends of each, and a bogon answer
 * names its block (its `prefix`); those blocks are cut out of the snapshot's intervals, as the
 * lookup answers them before it searches the intervals.
 */
const SPECIAL_PURPOSE: readonly string[] = (
  '0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24 ' +
  '192.0.2.0/24 192.31.196.0/24 192.52.193.0/24 192.88.99.0/24 192.168.0.0/16 192.175.48.0/24 ' +
  '198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 240.0.0.0/4 ' +
  '::/3 64:ff9b::/96 64:ff9b:1::/48 100::/64 2001::/23 2001:db8::/32 2002::/16 2620:4f:8000::/48 ' +
  '3fff::/20 4000::/3 5f00::/16 6000::/3 8000::/3 a000::/3 c000::/3 e000::/4 f000::/5 f800::/6 ' +
  'fc00::/7 fe00::/9 fe80::/10 fec0::/10 ff00::/8'
).split(' ');

type Range = [first: bigint, last: bigint];

function rangeOfCidr(text: string): [4 | 6, Range] | null {
  const c = parseCidr(text);
  if (!c) return null;
  const bits = c.family === 4 ? 32 : 128;
  let first = 0n;
  for (const b of c.bytes) first = (first << 8n) | BigInt(b);
  return [c.family, [first, first + (1n << BigInt(bits - c.prefixLength)) - 1n]];
}

/** The bogon blocks the lookup answers, per family, sorted and merged. */
function bogonBlocks(answerAt: AnswerAt): Record<4 | 6, Range[]> {
  const found: Record<4 | 6, Range[]> = { 4: [], 6: [] };
  for (const text of SPECIAL_PURPOSE) {
    const probe = rangeOfCidr(text);
    if (!probe) continue;
    const [family, [first, last]] = probe;
    for (const at of [first, last]) {
      const a = answerAt(family, at);
      const block = a?.bogon ? rangeOfCidr(a.prefix) : null;
      if (block && block[0] === family) found[family].push(block[1]);
    }
  }
  for (const f of [4, 6] as const) {
    const sorted = found[f].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    const merged: Range[] = [];
    for (const r of sorted) {
      const top = merged[merged.length - 1];
      if (top && r[0] <= top[1] + 1n) top[1] = r[1] > top[1] ? r[1] : top[1];
      else merged.push([r[0], r[1]]);
    }
    found[f] = merged;
  }
  return found;
}

/** [first, last] less the (sorted, disjoint) holes. */
function subtract(first: bigint, last: bigint, holes: readonly Range[]): Range[] {
  const out: Range[] = [];
  let from = first;
  for (const [lo, hi] of holes) {
    if (hi < from) continue;
    if (lo > last) break;
    if (lo > from) out.push([from, lo - 1n]);
    from = hi + 1n;
    if (from > last) return out;
  }
  out.push([from, last]);
  return out;
}

/** The largest aligned blocks covering [first, last], left to right, as [network, length]. */
export function* cidrsOf(bits: 32 | 128, first: bigint, last: bigint): Generator<[bigint, number]> {
  const B = BigInt(bits);
  for (let start = first; start <= last; ) {
    // The block is as large as the start's alignment (trailing zero bits) and the rest allow.
    const align = start === 0n ? B : BigInt((start & -start).toString(2).length - 1);
    const fits = BigInt((last - start + 1n).toString(2).length - 1);
    const size = align < fits ? align : fits;
    yield [start, bits - Number(size)];
    start += 1n << size;
  }
}

function startOf(t: FamilyTable, i: number): bigint {
  if (t.family === 4) return BigInt(t.starts[i] as number);
  let v = 0n;
  for (let k = 0; k < 4; k++) v = (v << 32n) | BigInt(t.starts[i * 4 + k] as number);
  return v;
}

/**
 * The MMDB record of an answer: its fields under their /v1/ip names, absent when null. `shared`
 * maps an answer's flag and threat objects (the lookup shares them between answers) to theirs.
 */
export function mmdbRecordOf(a: MmdbAnswer, shared = new WeakMap<object, MmdbMap>()): MmdbMap {
  const r: Record<string, MmdbMap[string]> = { prefix: a.prefix };
  if (a.asn !== null) {
    r.asn = a.asn;
    r.autonomous_system_number = a.asn;
  }
  if (a.asn_name !== null) {
    r.asn_name = a.asn_name;
    r.autonomous_system_organization = a.asn_name;
  }
  if (a.country !== null) r.country = a.country;
  if (a.rir !== null) r.rir = a.rir;
  if (a.connection_type !== null) r.connection_type = a.connection_type;
  const provider = (a.netrep.cloud_provider as string | undefined) ?? a.asn_name;
  if (provider) r.provider = provider;
  let netrep = shared.get(a.netrep);
  if (!netrep) {
    const flags: Record<string, boolean | string> = {};
    for (const [k, v] of Object.entries(a.netrep)) if (v !== undefined) flags[k] = v;
    netrep = flags;
    shared.set(a.netrep, netrep);
  }
  r.netrep = netrep;
  let threat = shared.get(a.threat);
  if (!threat) {
    threat = { score: a.threat.score, level: a.threat.level, explanation: [...a.threat.explanation] };
    shared.set(a.threat, threat);
  }
  r.threat = threat;
  return r;
}

export interface MmdbExportResult {
  bytes: Buffer;
  /** Networks written (CIDR blocks with a record). */
  networks: number;
}

/** Writes every address of the snapshot that has a non-bogon answer. */
export function exportMmdb(snapshot: Snapshot, answerAt: AnswerAt): MmdbExportResult {
  const writer = createMmdbWriter({
    databaseType: 'netrep',
    unshared: ['prefix'],
    description: `netrep dataset v${snapshot.version} built ${snapshot.createdAt}`,
    buildEpoch: Math.floor(Date.parse(snapshot.createdAt) / 1000),
  });
  const bogons = bogonBlocks(answerAt);
  const shared = new WeakMap<object, MmdbMap>();
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const idOf = (o: object): number => {
    let id = ids.get(o);
    if (id === undefined) {
      id = nextId++;
      ids.set(o, id);
    }
    return id;
  };
  let networks = 0;
  // Blocks with equal answers share one record: the blocks of one interval, and the intervals of
  // one prefix on either side of a narrower listing (a Tor exit, a cloud range) that splits it.
  // Such blocks are neighbours in address order, so the records are kept for one prefix at a time.
  let prefix = '';
  const ofPrefix = new Map<string, number>();
  for (const t of [snapshot.v4, snapshot.v6]) {
    const bits = t.family === 4 ? 32 : 128;
    const top = (1n << BigInt(bits)) - 1n;
    for (let i = 0; i < t.size; i++) {
      if (t.recs[i] === NO_RECORD) continue;
      const end = i + 1 < t.size ? startOf(t, i + 1) - 1n : top;
      for (const [first, to] of subtract(startOf(t, i), end, bogons[t.family])) {
        for (const [network, length] of cidrsOf(bits, first, to)) {
          const a = answerAt(t.family, network);
          if (!a || a.bogon) continue;
          if (a.prefix !== prefix) {
            prefix = a.prefix;
            ofPrefix.clear();
          }
          const key = `${a.asn} ${a.asn_name} ${a.country} ${a.rir} ${a.connection_type} ${idOf(a.netrep)} ${idOf(a.threat)}`;
          let record = ofPrefix.get(key);
          if (record === undefined) {
            record = writer.record(mmdbRecordOf(a, shared));
            ofPrefix.set(key, record);
          }
          writer.insert(t.family, network, length, record);
          networks++;
        }
      }
    }
  }
  return { bytes: writer.toBuffer(), networks };
}
