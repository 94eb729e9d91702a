/**
 * The population of an audit: the union of the request's IPs, CIDRs and ASN ranges, merged per
 * family into sorted, disjoint inclusive ranges, and read as one index space (IPv4 first, then
 * IPv6, each ascending). Index i of that space names exactly one address on every instance.
 */
import { bigIntToIpv6, intToIpv4 } from '../core/ip.ts';

export interface AddressRange {
  family: 4 | 6;
  /** Inclusive first and last address as integers. */
  start: bigint;
  end: bigint;
}

export interface Population {
  ranges: AddressRange[];
  /** Number of distinct addresses. */
  size: bigint;
  /** The address at index `i` (0 <= i < size). */
  addressAt(i: bigint): string;
}

function merge(ranges: AddressRange[]): AddressRange[] {
  const sorted = ranges
    .slice()
    .sort((a, b) => a.family - b.family || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: AddressRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.family === r.family && r.start <= last.end + 1n) {
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

export function createPopulation(ranges: AddressRange[]): Population {
  const merged = merge(ranges);
  const offsets: bigint[] = [];
  let size = 0n;
  for (const r of merged) {
    offsets.push(size);
    size += r.end - r.start + 1n;
  }
  return {
    ranges: merged,
    size,
    addressAt(i) {
      if (i < 0n || i >= size) throw new RangeError(`index ${i} outside the population`);
      // Binary search for the last range whose offset <= i.
      let lo = 0;
      let hi = merged.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((offsets[mid] as bigint) <= i) lo = mid;
        else hi = mid - 1;
      }
      const r = merged[lo] as AddressRange;
      return formatAddress(r.family, r.start + (i - (offsets[lo] as bigint)));
    },
  };
}
