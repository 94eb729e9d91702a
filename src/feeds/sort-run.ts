/**
 * One run of the feed row sort (sort-rows.ts), ordered in place of comparing strings: a native
 * BigUint64Array sort of words that hold each row's key head above its index in the run.
 */
import { endianness } from 'node:os';

/** A run's row index takes the low 21 bits of its sort word (see sortRun). */
const INDEX_BITS = 21;
/** The most rows one run may hold. */
export const MAX_RUN_SIZE = 2 ** INDEX_BITS;
/** Index of the low 32-bit half of a 64-bit word in a Uint32Array over it. */
const LOW = endianness() === 'LE' ? 0 : 1;

/**
 * Sorts a run's lines by key: each row's 64-bit word is its key head (43 bits) above its index, so
 * a native BigUint64Array sort orders them; IPv6 rows whose heads tie are then ordered by line.
 */
export function sortRun(lines: string[], heads: number[]): string[] {
  const n = lines.length;
  const words = new BigUint64Array(n);
  const half = new Uint32Array(words.buffer);
  const low = 2 ** (32 - INDEX_BITS);
  for (let i = 0; i < n; i++) {
    const head = heads[i] as number;
    half[2 * i + 1 - LOW] = Math.floor(head / low);
    half[2 * i + LOW] = (head % low) * MAX_RUN_SIZE + i;
  }
  words.sort();
  const out: string[] = new Array(n);
  const mask = MAX_RUN_SIZE - 1;
  let i = 0;
  while (i < n) {
    const hi = half[2 * i + 1 - LOW] as number;
    const lo = (half[2 * i + LOW] as number) >>> INDEX_BITS;
    let j = i + 1;
    while (j < n && half[2 * j + 1 - LOW] === hi && (half[2 * j + LOW] as number) >>> INDEX_BITS === lo) j++;
    for (let k = i; k < j; k++) out[k] = lines[(half[2 * k + LOW] as number) & mask] as string;
    // An IPv6 head is only the start of the key (IPv4 heads are whole keys: equal heads, equal keys).
    if (j - i > 1 && hi >= 2 ** 31) {
      const group = out.slice(i, j).sort();
      for (let k = i; k < j; k++) out[k] = group[k - i] as string;
    }
    i = j;
  }
  return out;
}
