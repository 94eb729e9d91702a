/**
 * Longest-prefix lookup over a snapshot's interval tables: a 65,536-entry bucket index on the
 * top 16 bits, then a binary search inside the bucket. No allocation per lookup.
 */
import type { FamilyTable } from '../dataset/index.ts';

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

/** Index of the interval containing the IPv6 address given as four big-endian words, or -1. */
export function findV6(t: FamilyTable, w0: number, w1: number, w2: number, w3: number): number {
  const top = w0 >>> 16;
  let lo = (t.buckets[top] as number) - 1;
  let hi = (t.buckets[top + 1] as number) - 1;
  if (hi < 0) return -1;
  if (lo < 0) lo = 0;
  const s = t.starts;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (cmp6(s, mid, w0, w1, w2, w3) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return cmp6(s, lo, w0, w1, w2, w3) <= 0 ? lo : -1;
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
