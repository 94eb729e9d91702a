/**
 * Address parsing and covering-range search for the source agreement suite's own reading of the
 * upstream files (test/helpers/upstream-truth.ts), fast enough for the ~2.5 million ranges it
 * reads (the RPKI file, the npm packages' CSVs): issue #33 item 5.
 *
 * - `parseAddress`: plain dotted quads and plain hex-group IPv6 are read here with integer
 *   arithmetic; every other form (leading zeros, embedded IPv4, zone ids, junk) goes to
 *   ipaddr.js, so the result is ipaddr.js's in every case (ipaddr.js alone took 52 s of CPU
 *   for the 424,223 ROAs of the RPKI file on a loaded 2-core machine, 2026-11-27).
 * - `narrowestCovering`: the narrowest range holding an address, as a scan of every range
 *   would find it (the first of equally narrow ones), through an index built once per list:
 *   the ranges of each width class (the bit length of end - start) sorted by start, so only
 *   those starting at most one class width below the address are looked at.
 */
import ipaddr from 'ipaddr.js';

export interface AddressRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
  exclude?: boolean;
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const OCTET = /^(0|[1-9]\d{0,2})$/;
const V6 = /^[0-9a-fA-F:]+$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** A dotted quad without leading zeros (ipaddr.js reads those as octal): its value, else null. */
function fastV4(t: string): bigint | null {
  const m = V4.exec(t);
  if (!m) return null;
  let v = 0;
  for (const s of m.slice(1)) {
    const n = Number(s);
    if (!OCTET.test(s) || n > 255) return null;
    v = v * 256 + n;
  }
  return BigInt(v);
}

/** The 4-hex-digit groups of one side of `::`, or null when a group is not 1-4 hex digits. */
function groupsOf(side: string): string[] | null {
  if (side === '') return [];
  const groups = side.split(':');
  return groups.every((g) => GROUP.test(g)) ? groups.map((g) => g.padStart(4, '0')) : null;
}

/** Plain hex-group IPv6 (at most one `::` standing for two groups or more): its value, else null. */
function fastV6(t: string): bigint | null {
  if (!V6.test(t)) return null;
  const halves = t.split('::');
  if (halves.length > 2) return null;
  const left = groupsOf(halves[0] ?? '');
  const right = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (!left || !right) return null;
  const given = left.length + right.length;
  if (halves.length === 2 ? given > 6 : given !== 8) return null;
  const zeros = Array.from({ length: 8 - given }, () => '0000');
  return BigInt(`0x${[...left, ...zeros, ...right].join('')}`);
}

function toBig(addr: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  let v = 0n;
  for (const b of addr.toByteArray()) v = (v << 8n) | BigInt(b);
  return v;
}

/** An address as ipaddr.parse reads it (throws where it throws). */
export function parseAddress(text: string): { family: 4 | 6; value: bigint } {
  const v4 = fastV4(text);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = fastV6(text);
  if (v6 !== null) return { family: 6, value: v6 };
  const a = ipaddr.parse(text);
  return { family: a.kind() === 'ipv4' ? 4 : 6, value: toBig(a) };
}

/** A CIDR as ipaddr.parseCIDR reads it (throws where it throws). */
export function parseCidr(text: string): { family: 4 | 6; value: bigint; length: number } {
  const slash = text.indexOf('/');
  const len = text.slice(slash + 1);
  if (slash > 0 && OCTET.test(len)) {
    const addr = text.slice(0, slash);
    const v4 = fastV4(addr);
    if (v4 !== null && Number(len) <= 32) return { family: 4, value: v4, length: Number(len) };
    const v6 = v4 === null ? fastV6(addr) : null;
    if (v6 !== null && Number(len) <= 128) return { family: 6, value: v6, length: Number(len) };
  }
  const [a, length] = ipaddr.parseCIDR(text);
  return { family: a.kind() === 'ipv4' ? 4 : 6, value: toBig(a), length };
}

/** Ranges of one family and width class, sorted by start (then by their place in the list). */
interface WidthClass {
  /** The widest end - start in the class. */
  maxWidth: bigint;
  starts: bigint[];
  entries: { range: AddressRange; order: number }[];
}

const widthClass = (r: AddressRange) => (r.end - r.start).toString(2).length;

/** Per family, the width classes narrowest first. */
function buildIndex(ranges: readonly AddressRange[]): Map<4 | 6, WidthClass[]> {
  const byKey = new Map<string, { range: AddressRange; order: number }[]>();
  ranges.forEach((range, order) => {
    if (range.exclude) return;
    const key = `${range.family}:${widthClass(range)}`;
    const list = byKey.get(key) ?? [];
    list.push({ range, order });
    byKey.set(key, list);
  });
  const index = new Map<4 | 6, WidthClass[]>([
    [4, []],
    [6, []],
  ]);
  const keys = [...byKey.keys()].sort((a, b) => Number(a.split(':')[1]) - Number(b.split(':')[1]));
  for (const key of keys) {
    const entries = (byKey.get(key) ?? []).sort((a, b) =>
      a.range.start < b.range.start ? -1 : a.range.start > b.range.start ? 1 : a.order - b.order,
    );
    const bits = Number(key.split(':')[1]);
    index.get(Number(key.split(':')[0]) as 4 | 6)?.push({
      maxWidth: (1n << BigInt(bits)) - 1n,
      starts: entries.map((e) => e.range.start),
      entries,
    });
  }
  return index;
}

/** The first index whose start is >= `value`. */
function lowerBound(starts: bigint[], value: bigint): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((starts[mid] as bigint) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The narrowest range of one width class holding addr (the earliest in the list on a tie). */
function narrowestInClass(c: WidthClass, addr: bigint): { range: AddressRange; order: number } | null {
  let best: { range: AddressRange; order: number } | null = null;
  for (let i = lowerBound(c.starts, addr - c.maxWidth); i < c.entries.length; i++) {
    const e = c.entries[i] as { range: AddressRange; order: number };
    if (e.range.start > addr) break;
    if (e.range.end < addr) continue;
    const w = e.range.end - e.range.start;
    const bw = best ? best.range.end - best.range.start : -1n;
    if (!best || w < bw || (w === bw && e.order < best.order)) best = e;
  }
  return best;
}

const indexes = new WeakMap<readonly AddressRange[], Map<4 | 6, WidthClass[]>>();

/**
 * The narrowest range of `ranges` holding `addr` (width = end - start; excluded ranges skipped),
 * or null. The list is indexed on first use: it must not change afterwards.
 */
export function narrowestCovering<R extends AddressRange>(
  ranges: readonly R[],
  family: 4 | 6,
  addr: bigint,
): R | null {
  let index = indexes.get(ranges);
  if (!index) {
    index = buildIndex(ranges);
    indexes.set(ranges, index);
  }
  for (const c of index.get(family) ?? []) {
    const found = narrowestInClass(c, addr);
    if (found) return found.range as R;
  }
  return null;
}
