/**
 * Route origin validation (RFC 6811) of an announced prefix against the snapshot's ROAs:
 * valid when a covering ROA matches the origin ASN and its maxLength allows the prefix length,
 * invalid when covering ROAs exist but none match, not-found when none covers.
 */
import type { RoaTable } from '../dataset/index.ts';
import { wordsAt } from './engine.ts';

function findExact(t: RoaTable, family: 4 | 6, network: bigint, length: number): number {
  let lo = 0;
  let hi = t.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = wordsAt(t.starts, family, mid);
    const l = t.lengths[mid] as number;
    if (s < network || (s === network && l < length)) lo = mid + 1;
    else if (s > network || l > length) hi = mid - 1;
    else {
      let first = mid;
      while (first > 0 && wordsAt(t.starts, family, first - 1) === network && t.lengths[first - 1] === length)
        first--;
      return first;
    }
  }
  return -1;
}

export function validateOrigin(
  t: RoaTable,
  family: 4 | 6,
  network: bigint,
  length: number,
  originAsn: number | null,
): 'valid' | 'invalid' | 'not-found' {
  const bits = family === 4 ? 32 : 128;
  let covered = false;
  for (let l = length; l >= 0; l--) {
    const host = BigInt(bits - l);
    const net = (network >> host) << host;
    let i = findExact(t, family, net, l);
    if (i === -1) continue;
    covered = true;
    for (; i < t.count && wordsAt(t.starts, family, i) === net && t.lengths[i] === l; i++) {
      // AS0 ROAs (RFC 7607) never validate a route.
      if (
        originAsn !== null &&
        originAsn !== 0 &&
        t.asns[i] === originAsn &&
        (t.maxLengths[i] as number) >= length
      )
        return 'valid';
    }
  }
  return covered ? 'invalid' : 'not-found';
}
