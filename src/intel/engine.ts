/**
 * Longest-prefix lookup over a snapshot's interval tables: a 65,536-entry bucket index on the
 * top 16 bits, then a binary search inside the bucket. No allocation per lookup.
 */

import { formatV6 } from '../core/ip.ts';
import { type FamilyTable, NO_RECORD } from '../dataset/index.ts';

/** Index of the interval containing the IPv4 address `ip` (unsigned int), or -1. */
export function findV4(t: FamilyTable, ip: number): number {
  const top = ip >>> 16;
  let lo = (t.buckets[top] as number) - 1;
  let hi = (t.buckets[top + 1] as number) - 1;
  if (hi < 0) return -1;
  if (lo < 0) lo = 0;
  const starts = t.starts;
  // Last interval with start <= ip inside [lo, hi].
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((starts[mid] as number) <= ip) lo = mid;
    else hi = mid - 1;
  }
  return (starts[lo] as number) <= ip ? lo : -1;
}

/**
 * An IPv4 search table as one JS array of pairs [key, slot]: each start as an int32 with its
 * top bit flipped (a small integer, ordered as the unsigned start), then a value kept for the
 * interval (null until the caller fills it). The search's last probe reads the cache line that
 * holds the slot, so a lookup does not take a second, dependent miss on a separate array of
 * values. (A JS array: a typed array cannot hold object references.)
 */
export function pairsV4<T>(starts: Uint32Array): (number | T | null)[] {
  const out: (number | T | null)[] = [];
  for (let i = 0; i < starts.length; i++) out.push(((starts[i] as number) ^ 0x80000000) | 0, null);
  return out;
}

/** IPv4 intervals cut where the prefix changes (splitByPrefixV4). */
export interface PrefixCutV4 {
  /** Start of every cut interval, ascending. */
  starts: Uint32Array;
  /** The snapshot interval each cut interval lies in. */
  origin: Uint32Array;
  /** searchIndexV4(starts), for findPairV4. */
  index: SearchIndexV4;
}

/**
 * The range an IPv4 interval's prefixes are cut from: its ASN piece (the network row it belongs
 * to), or the interval itself when no ASN row covers it. First and last address.
 */
export function pieceLoV4(t: FamilyTable, i: number): number {
  const net = t.nets[i] as number;
  return (net >= 0 ? t.netStarts[net] : t.starts[i]) as number;
}

export function pieceHiV4(t: FamilyTable, i: number): number {
  const net = t.nets[i] as number;
  return net >= 0 ? (t.netEnds[net] as number) : intervalEndV4(t, i);
}

/** Last address of IPv4 interval i (next start - 1, or the top of the space). */
function intervalEndV4(t: FamilyTable, i: number): number {
  return i + 1 < t.size ? (t.starts[i + 1] as number) - 1 : 0xffffffff;
}

/** Cut starts (`width` words each) with the interval each lies in, grown by doubling. */
function cutTable(width: 1 | 4, capacity: number) {
  let starts = new Uint32Array(capacity * width);
  let origin = new Uint32Array(capacity);
  let n = 0;
  return {
    push(i: number, w0: number, w1 = 0, w2 = 0, w3 = 0): void {
      if (n === origin.length) {
        const grown = new Uint32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
        const o = new Uint32Array(origin.length * 2);
        o.set(origin);
        origin = o;
      }
      const at = n * width;
      starts[at] = w0;
      if (width === 4) {
        starts[at + 1] = w1;
        starts[at + 2] = w2;
        starts[at + 3] = w3;
      }
      origin[n++] = i;
    },
    done: () => ({ starts: starts.slice(0, n * width), origin: origin.slice(0, n) }),
  };
}

/**
 * The snapshot's IPv4 intervals cut at every CIDR block boundary of their piece (its minimal
 * cover, the largest aligned blocks) that falls inside them, so that every address of a cut
 * interval has the same prefix and a lookup reads it instead of computing it. Gaps (no record)
 * stay whole. On the npm dataset: 627,400 intervals become about 808,000.
 */
export function splitByPrefixV4(t: FamilyTable): PrefixCutV4 {
  const cut = cutTable(1, t.size + (t.size >>> 2) + 16);
  for (let i = 0; i < t.size; i++) {
    const start = t.starts[i] as number;
    cut.push(i, start);
    if (t.recs[i] === NO_RECORD) continue;
    const end = intervalEndV4(t, i);
    const lo = pieceLoV4(t, i);
    const hi = pieceHiV4(t, i);
    for (let p = start; ; ) {
      const len = blockLengthV4(lo, hi, p);
      const network = len === 0 ? 0 : (p & (0xffffffff << (32 - len))) >>> 0;
      const next = network + 2 ** (32 - len); // may be 2^32: past every end
      if (next > end) break;
      cut.push(i, next);
      p = next;
    }
  }
  const { starts, origin } = cut.done();
  return { starts, origin, index: searchIndexV4(starts) };
}

/** Bucket sizes above which a /16 bucket gets a second level of sixteen /20 buckets. */
export const DENSE_V4 = 32;

/**
 * The IPv4 search index of some starts: `buckets[k]` is the first interval whose start is at or
 * above k << 16 (the snapshot's own index, 256 KB, cache-resident). Routed space is dense: a /16
 * there holds up to hundreds of cut intervals, a search of eight or more probes that are each a
 * likely cache miss; such a bucket (more than DENSE_V4) has a second level, sixteen /20 buckets
 * at `sub[dense[k]]` (17 bounds, the last equal to buckets[k + 1]); `dense[k]` is -1 elsewhere.
 * (A flat /20 index, 4 MB, was tried: it slowed uniform lookups, for it does not stay in cache.)
 */
export interface SearchIndexV4 {
  buckets: Uint32Array;
  dense: Int32Array;
  sub: Uint32Array;
}

/**
 * Bucket bounds on the top `bits` bits of ascending starts (`width` words each, the first word
 * holding the top bits): entry k is the first start at or above k << (32 - bits) in its first
 * word, entry 2^bits the count.
 */
function topBitsIndex(starts: Uint32Array, width: 1 | 4, bits: number): Uint32Array {
  const shift = 32 - bits;
  const n = 2 ** bits;
  const size = starts.length / width;
  const out = new Uint32Array(n + 1);
  let i = 0;
  for (let k = 0; k <= n; k++) {
    while (i < size && (starts[i * width] as number) >>> shift < k) i++;
    out[k] = i;
  }
  return out;
}

export function searchIndexV4(starts: Uint32Array): SearchIndexV4 {
  const buckets = topBitsIndex(starts, 1, 16);
  const dense = new Int32Array(65536).fill(-1);
  const sub: number[] = [];
  for (let k = 0; k < 65536; k++) {
    const from = buckets[k] as number;
    const to = buckets[k + 1] as number;
    if (to - from <= DENSE_V4) continue;
    dense[k] = sub.length;
    let j = from;
    for (let s = 0; s < 16; s++) {
      while (j < to && (((starts[j] as number) >>> 12) & 15) < s) j++;
      sub.push(j);
    }
    sub.push(to);
  }
  return { buckets, dense, sub: Uint32Array.from(sub) };
}

/** IPv6 intervals cut where the prefix changes (splitByPrefixV6), with their search indexes. */
export interface PrefixCutV6 {
  /** Start of every cut interval, four big-endian words each, ascending. */
  starts: Uint32Array;
  /** The snapshot interval each cut interval lies in. */
  origin: Uint32Array;
  /** topKeysOf(starts) and fineIndexV6(starts), for findV6Fine. */
  keys: Float64Array;
  fine: Uint32Array;
}

/** Words k*4..k*4+3 of `from` into `to`. */
function copyWords(from: Uint32Array, k: number, to: Uint32Array): void {
  for (let w = 0; w < 4; w++) to[w] = from[k * 4 + w] as number;
}

/** The words of the range an IPv6 interval's prefixes are cut from (as pieceV4), into lo/hi. */
export function pieceV6(t: FamilyTable, i: number, lo: Uint32Array, hi: Uint32Array): void {
  const net = t.nets[i] as number;
  if (net >= 0) {
    copyWords(t.netStarts, net, lo);
    copyWords(t.netEnds, net, hi);
    return;
  }
  copyWords(t.starts, i, lo);
  intervalEndWords(t, i, hi);
}

/** Inclusive end of IPv6 interval i as words (next start - 1, or all ones). */
function intervalEndWords(t: FamilyTable, i: number, out: Uint32Array): void {
  if (i + 1 >= t.size) {
    out.fill(0xffffffff);
    return;
  }
  copyWords(t.starts, i + 1, out);
  for (let k = 3; k >= 0; k--) {
    const v = out[k] as number;
    out[k] = (v - 1) >>> 0;
    if (v !== 0) break;
  }
}

/** splitByPrefixV4 for IPv6: cuts at the block starts of each interval's piece inside it. */
export function splitByPrefixV6(t: FamilyTable): PrefixCutV6 {
  const cut = cutTable(4, t.size + (t.size >>> 1) + 16);
  const p = new Uint32Array(4);
  const lo = new Uint32Array(4);
  const hi = new Uint32Array(4);
  const end = new Uint32Array(4);
  const network = new Uint32Array(4);
  const bcast = new Uint32Array(4);
  const push = (i: number, w: Uint32Array, k: number) =>
    cut.push(i, w[k * 4] as number, w[k * 4 + 1] as number, w[k * 4 + 2] as number, w[k * 4 + 3] as number);
  for (let i = 0; i < t.size; i++) {
    push(i, t.starts, i);
    if (t.recs[i] === NO_RECORD) continue;
    intervalEndWords(t, i, end);
    pieceV6(t, i, lo, hi);
    copyWords(t.starts, i, p);
    for (;;) {
      cidrAroundV6(p, lo, hi, network, bcast);
      if (cmpWords(bcast, end) >= 0) break;
      // next = bcast + 1 (no overflow: bcast is below end)
      p.set(bcast);
      for (let k = 3; k >= 0; k--) {
        const v = ((p[k] as number) + 1) >>> 0;
        p[k] = v;
        if (v !== 0) break;
      }
      push(i, p, 0);
    }
  }
  const { starts, origin } = cut.done();
  return { starts, origin, keys: topKeysOf(starts), fine: fineIndexV6(starts) };
}

/**
 * findV4 over pairsV4 of some starts and searchIndexV4 of the same starts: the interval index
 * (its slot is at 2i + 1), or -1.
 */
export function findPairV4(pairs: readonly unknown[], index: SearchIndexV4, ip: number): number {
  const key = (ip ^ 0x80000000) | 0;
  const top = ip >>> 16;
  let lo = (index.buckets[top] as number) - 1;
  let hi = (index.buckets[top + 1] as number) - 1;
  if (hi - lo > DENSE_V4) {
    const at = (index.dense[top] as number) + ((ip >>> 12) & 15);
    lo = (index.sub[at] as number) - 1;
    hi = (index.sub[at + 1] as number) - 1;
  }
  if (hi < 0) return -1;
  if (lo < 0) lo = 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((pairs[mid << 1] as number) <= key) lo = mid;
    else hi = mid - 1;
  }
  return (pairs[lo << 1] as number) <= key ? lo : -1;
}

function cmp6(s: Uint32Array, i: number, w0: number, w1: number, w2: number, w3: number): number {
  const o = i << 2;
  const a = s[o] as number;
  if (a !== w0) return a < w0 ? -1 : 1;
  const b = s[o + 1] as number;
  if (b !== w1) return b < w1 ? -1 : 1;
  const c = s[o + 2] as number;
  if (c !== w2) return c < w2 ? -1 : 1;
  const d = s[o + 3] as number;
  return d === w3 ? 0 : d < w3 ? -1 : 1;
}

/** The top 53 bits of an IPv6 address (first word, then the high 21 bits of the second) as a double. */
export function topKeyV6(w0: number, w1: number): number {
  return w0 * 2097152 + (w1 >>> 11);
}

/**
 * The top 53 bits of every IPv6 start (four words each), for the search: most probes compare
 * one double from a compact array. (The first word alone ties on most probes: a /32 holds many
 * intervals, so routed space such as 2a00::/12 would compare four words at nearly every step.)
 */
export function topKeysOf(starts: Uint32Array): Float64Array {
  const out = new Float64Array(starts.length >>> 2);
  for (let i = 0; i < out.length; i++)
    out[i] = topKeyV6(starts[i * 4] as number, starts[i * 4 + 1] as number);
  return out;
}

/**
 * The last interval in [lo, hi] whose start is at or below the address (four big-endian words),
 * or -1. `keys` (topKeysOf the starts) keeps most probes on one compact array; the words are
 * compared only when the top 53 bits are equal.
 */
function searchV6(
  s: Uint32Array,
  keys: Float64Array | undefined,
  from: number,
  to: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): number {
  let lo = from;
  let hi = to;
  if (hi < 0) return -1;
  if (lo < 0) lo = 0;
  if (keys) {
    const x = topKeyV6(w0, w1);
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const a = keys[mid] as number;
      if (a < x || (a === x && cmp6(s, mid, w0, w1, w2, w3) <= 0)) lo = mid;
      else hi = mid - 1;
    }
  } else {
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (cmp6(s, mid, w0, w1, w2, w3) <= 0) lo = mid;
      else hi = mid - 1;
    }
  }
  return cmp6(s, lo, w0, w1, w2, w3) <= 0 ? lo : -1;
}

/** Index of the interval containing the IPv6 address given as four big-endian words, or -1. */
export function findV6(
  t: FamilyTable,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
  keys?: Float64Array,
): number {
  const top = w0 >>> 16;
  const from = (t.buckets[top] as number) - 1;
  return searchV6(t.starts, keys, from, (t.buckets[top + 1] as number) - 1, w0, w1, w2, w3);
}

/** Bits of the finer IPv6 bucket index (fineIndexV6): 2^20 buckets, 4 MB. */
export const FINE_BITS_V6 = 20;

/**
 * A bucket index on the top FINE_BITS_V6 bits of the first word: entry k is the first interval
 * whose start is at or above k << (128 - FINE_BITS_V6). Routed IPv6 space is dense in a few
 * /16s (2a00::/16 holds tens of thousands of intervals), where the snapshot's 16-bit index
 * leaves long searches.
 */
export function fineIndexV6(starts: Uint32Array): Uint32Array {
  return topBitsIndex(starts, 4, FINE_BITS_V6);
}

/** findV6 over the fine index of `starts` (same answer, shorter search in dense space). */
export function findV6Fine(
  starts: Uint32Array,
  fine: Uint32Array,
  keys: Float64Array,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): number {
  const top = w0 >>> (32 - FINE_BITS_V6);
  const from = (fine[top] as number) - 1;
  return searchV6(starts, keys, from, (fine[top + 1] as number) - 1, w0, w1, w2, w3);
}

/** Prefix length of the largest aligned IPv4 block inside [lo, hi] that holds ip. */
export function blockLengthV4(lo: number, hi: number, ip: number): number {
  // No block is wider than the one spanning both ends, so the search starts at that length.
  for (let len = Math.clz32((lo ^ hi) >>> 0); len < 32; len++) {
    const host = len === 0 ? 0xffffffff : (0xffffffff >>> len) >>> 0;
    const network = (ip & ~host) >>> 0;
    if (network >= lo && (network | host) >>> 0 <= hi) return len;
  }
  return 32;
}

/** Words of a 16-byte address, written into `out` (reused by callers to avoid allocation). */
export function v6Words(bytes: readonly number[], out: Uint32Array): void {
  for (let i = 0; i < 4; i++) {
    const o = i * 4;
    out[i] =
      (((bytes[o] as number) << 24) |
        ((bytes[o + 1] as number) << 16) |
        ((bytes[o + 2] as number) << 8) |
        (bytes[o + 3] as number)) >>>
      0;
  }
}

/** Start of interval `i` as a bigint (cold paths: prefixes, history). */
export function intervalStart(t: FamilyTable, i: number): bigint {
  return wordsAt(t.starts, t.family, i);
}

export function wordsAt(arr: Uint32Array, family: 4 | 6, i: number): bigint {
  if (family === 4) return BigInt(arr[i] as number);
  const o = i * 4;
  return (
    (BigInt(arr[o] as number) << 96n) |
    (BigInt(arr[o + 1] as number) << 64n) |
    (BigInt(arr[o + 2] as number) << 32n) |
    BigInt(arr[o + 3] as number)
  );
}

/** Inclusive end of interval `i` (next start - 1, or the top of the address space). */
export function intervalEnd(t: FamilyTable, i: number): bigint {
  if (i + 1 < t.size) return intervalStart(t, i + 1) - 1n;
  return t.family === 4 ? 0xffffffffn : (1n << 128n) - 1n;
}

/** The largest CIDR inside [start, end] that contains `ip`. */
export function cidrAround(
  family: 4 | 6,
  ip: bigint,
  start: bigint,
  end: bigint,
): { network: bigint; length: number } {
  const bits = family === 4 ? 32 : 128;
  let length = bits;
  let network = ip;
  while (length > 0) {
    const size = 1n << BigInt(bits - length + 1);
    const candidate = (ip / size) * size;
    if (candidate < start || candidate + size - 1n > end) break;
    network = candidate;
    length--;
  }
  return { network, length };
}

/** RFC 5952 text of an IPv6 address given as four words (no bigint, for the hot path). */
export function formatV6Words(w0: number, w1: number, w2: number, w3: number): string {
  return formatV6([
    w0 >>> 16,
    w0 & 0xffff,
    w1 >>> 16,
    w1 & 0xffff,
    w2 >>> 16,
    w2 & 0xffff,
    w3 >>> 16,
    w3 & 0xffff,
  ]);
}

function maskWord(len: number, word: number): number {
  const bits = len - word * 32;
  if (bits <= 0) return 0;
  if (bits >= 32) return 0xffffffff;
  return (0xffffffff << (32 - bits)) >>> 0;
}

function cmpWords(a: Uint32Array, b: Uint32Array): number {
  for (let k = 0; k < 4; k++) {
    const x = a[k] as number;
    const y = b[k] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * cidrAround for IPv6 on words: writes the network into `out` and returns the prefix length.
 * `start`/`end` are word arrays of the range; `ip` the address words.
 */
export function cidrAroundV6(
  ip: Uint32Array,
  start: Uint32Array,
  end: Uint32Array,
  out: Uint32Array,
  bcast: Uint32Array,
): number {
  let common = 0;
  for (let k = 0; k < 4; k++) {
    const x = ((start[k] as number) ^ (end[k] as number)) >>> 0;
    if (x === 0) common += 32;
    else {
      common += Math.clz32(x);
      break;
    }
  }
  for (let len = common; len <= 128; len++) {
    for (let k = 0; k < 4; k++) {
      const m = maskWord(len, k);
      out[k] = ((ip[k] as number) & m) >>> 0;
      bcast[k] = ((ip[k] as number) | ~m) >>> 0;
    }
    if (cmpWords(out, start) >= 0 && cmpWords(bcast, end) <= 0) return len;
  }
  out.set(ip);
  return 128;
}
