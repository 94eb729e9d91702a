/**
 * The population of an audit: the union of the request's IPs, CIDRs and ASN ranges, merged per
 * family into sorted, disjoint inclusive ranges, and read as one index space of units: IPv4
 * addresses first, then IPv6 /64s, each ascending. IPv6 is counted in /64s because a /64 is what
 * a network assigns to one link (RFC 7421); counting its 2^64 addresses one by one made any
 * network with IPv6 space larger than every int64 max_population. A /64 unit is probed at its
 * `::1` (the first host address), or at its lowest target address when the targets do not hold
 * `::1` (a /128 or a range starting past it). Index i names exactly one address on every instance.
 */
import { bigIntToIpv6, intToIpv4 } from '../core/ip.ts';

export interface AddressRange {
  family: 4 | 6;
  /** Inclusive first and last address as integers. */
  start: bigint;
  end: bigint;
}

export interface Population {
  /** The merged address ranges (what the population digest covers). */
  ranges: AddressRange[];
  /** Number of units: IPv4 addresses plus IPv6 /64s. */
  size: bigint;
  /** IPv4 addresses (indices 0 .. ipv4Size - 1). */
  ipv4Size: bigint;
  /** IPv6 /64s touched by the targets (indices ipv4Size .. size - 1). */
  ipv6Size: bigint;
  /** The address probed for unit `i` (0 <= i < size). */
  addressAt(i: bigint): string;
}

/** The unit of IPv6 audit populations: one /64 (2^64 addresses). */
export const IPV6_UNIT_BITS = 64n;

function merge(ranges: AddressRange[], adjacentGap = 1n): AddressRange[] {
  const sorted = ranges
    .slice()
    .sort((a, b) => a.family - b.family || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: AddressRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.family === r.family && r.start <= last.end + adjacentGap) {
      if (r.end > last.end) last.end = r.end;
    } else {
      out.push({ ...r });
    }
  }
  return out;
}

export function formatAddress(family: 4 | 6, n: bigint): string {
  return family === 4 ? intToIpv4(Number(n)) : bigIntToIpv6(n);
}

/** Index of the last entry of ascending `starts` that is <= x (starts[0] <= x). */
function lastAtOrBelow(starts: readonly bigint[], x: bigint): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as bigint) <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of the first entry of ascending `ends` that is >= x (one exists). */
function firstAtOrAbove(ends: readonly bigint[], x: bigint): number {
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ends[mid] as bigint) >= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export function createPopulation(ranges: AddressRange[]): Population {
  const merged = merge(ranges);
  const v4 = merged.filter((r) => r.family === 4);
  const v6 = merged.filter((r) => r.family === 6);
  // IPv6 ranges as /64 numbers, merged again: two targets in one /64 are one unit.
  const units = merge(
    v6.map((r) => ({ family: 6 as const, start: r.start >> IPV6_UNIT_BITS, end: r.end >> IPV6_UNIT_BITS })),
  );
  const v4Offsets: bigint[] = [];
  let ipv4Size = 0n;
  for (const r of v4) {
    v4Offsets.push(ipv4Size);
    ipv4Size += r.end - r.start + 1n;
  }
  const unitOffsets: bigint[] = [];
  let ipv6Size = 0n;
  for (const u of units) {
    unitOffsets.push(ipv6Size);
    ipv6Size += u.end - u.start + 1n;
  }
  const v6Ends = v6.map((r) => r.end);
  const size = ipv4Size + ipv6Size;
  return {
    ranges: merged,
    size,
    ipv4Size,
    ipv6Size,
    addressAt(i) {
      if (i < 0n || i >= size) throw new RangeError(`index ${i} outside the population`);
      if (i < ipv4Size) {
        const k = lastAtOrBelow(v4Offsets, i);
        const r = v4[k] as AddressRange;
        return formatAddress(4, r.start + (i - (v4Offsets[k] as bigint)));
      }
      const j = i - ipv4Size;
      const k = lastAtOrBelow(unitOffsets, j);
      const base = ((units[k] as AddressRange).start + (j - (unitOffsets[k] as bigint))) << IPV6_UNIT_BITS;
      // The first address range reaching into this /64: the first to end at or after its start
      // (it starts inside the /64 or before it, the unit being covered by some range).
      const first = v6[firstAtOrAbove(v6Ends, base)] as AddressRange;
      const probe = first.start > base ? first.start : first.end >= base + 1n ? base + 1n : base;
      return formatAddress(6, probe);
    },
  };
}
