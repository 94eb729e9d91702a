/**
 * Longest-prefix search over interval starts: IPv4 through a 65,536-entry bucket index on the
 * top 16 bits (the snapshot's own tables) or through whole and partial /16 and /20 blocks (the
 * cut tables, blockIndexV4), IPv6 through top-bit keys and a fine index, then a binary search;
 * plus the address arithmetic of the hot path. No allocation per lookup. prefix-cut.ts builds
 * the cut tables it searches.
 */

import { formatV6 } from '../core/ip.ts';
import type { FamilyTable } from '../dataset/index.ts';
import { runSlices, type Slices } from './slices.ts';

/** Index of the interval containing the IPv4 address `ip` (unsigned int), or -1. */
export function findV4(t: FamilyTable, ip: number): number {
  const top = ip >>> 16;
  const hi = (t.buckets[top + 1] as number) - 1;
  if (hi < 0) return -1;
  const i = searchV4(t.starts, 1, Math.max(0, (t.buckets[top] as number) - 1), hi, ip);
  return (t.starts[i] as number) <= ip ? i : -1;
}

/**
 * Bucket bounds on the top `bits` bits of ascending starts (`width` words each, the first word
 * holding the top bits): entry k is the first start at or above k << (32 - bits) in its first
 * word, entry 2^bits the count. Sliced (slices.ts) every 65,536 entries.
 */
function* topBitsIndex(starts: Uint32Array, width: 1 | 4, bits: number): Slices<Uint32Array> {
  const n = 2 ** bits;
  const out = new Uint32Array(n + 1);
  let i = 0;
  for (let k = 0; k <= n; k += 65536) {
    i = topBitsRange(starts, width, 32 - bits, out, k, Math.min(n + 1, k + 65536), i);
    yield;
  }
  return out;
}

/** Entries [from, to) of topBitsIndex, the scan starting at start i; where the scan ended. */
function topBitsRange(
  s: Uint32Array,
  width: number,
  shift: number,
  out: Uint32Array,
  from: number,
  to: number,
  i: number,
) {
  const size = s.length / width;
  let at = i;
  for (let k = from; k < to; k++) {
    while (at < size && (s[at * width] as number) >>> shift < k) at++;
    out[k] = at;
  }
  return at;
}

// The IPv4 block index lives in block-index-v4.ts; its names are kept here for engine's callers.
export { type BlockIndexV4, blockIndexV4, blockIndexV4Slices, PARTIAL_V4 } from './block-index-v4.ts';

/**
 * Binary search: the last of lo and the indexes after it up to hi whose start is at or below
 * ip (lo itself is not compared). In a partial block lo is the interval starting below the
 * block (-1 for none); findV4 checks lo's start itself. The starts are read every `stride` words
 * (lookup-v4.ts keeps a row beside each start).
 */
export function searchV4(starts: Uint32Array, stride: number, lo: number, hi: number, ip: number): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b + 1) >>> 1;
    if ((starts[mid * stride] as number) <= ip) a = mid;
    else b = mid - 1;
  }
  return a;
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
  return runSlices(topKeysOfSlices(starts));
}

/** topKeysOf as a sliced build (slices.ts). */
export function* topKeysOfSlices(starts: Uint32Array): Slices<Float64Array> {
  const out = new Float64Array(starts.length >>> 2);
  for (let from = 0; from < out.length; from += 65536) {
    topKeysRange(starts, out, from, Math.min(out.length, from + 65536));
    yield;
  }
  return out;
}

function topKeysRange(starts: Uint32Array, out: Float64Array, from: number, to: number): void {
  for (let i = from; i < to; i++) out[i] = topKeyV6(starts[i * 4] as number, starts[i * 4 + 1] as number);
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
  if (to < 0) return -1;
  const lo = from < 0 ? 0 : from;
  const at = keys
    ? lastAtOrBelowKeyed(s, keys, lo, to, w0, w1, w2, w3)
    : lastAtOrBelow(s, lo, to, w0, w1, w2, w3);
  return cmp6(s, at, w0, w1, w2, w3) <= 0 ? at : -1;
}

/** searchV6's binary search on the top keys, comparing words only where the keys are equal. */
function lastAtOrBelowKeyed(
  s: Uint32Array,
  keys: Float64Array,
  from: number,
  to: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): number {
  let lo = from;
  let hi = to;
  const x = topKeyV6(w0, w1);
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    const a = keys[mid] as number;
    if (a < x || (a === x && cmp6(s, mid, w0, w1, w2, w3) <= 0)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** searchV6's binary search on the words alone (no top keys). */
function lastAtOrBelow(
  s: Uint32Array,
  from: number,
  to: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (cmp6(s, mid, w0, w1, w2, w3) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return lo;
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
  return runSlices(fineIndexV6Slices(starts));
}

/** fineIndexV6 as a sliced build (slices.ts). */
export function fineIndexV6Slices(starts: Uint32Array): Slices<Uint32Array> {
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

export function cmpWords(a: Uint32Array, b: Uint32Array): number {
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
