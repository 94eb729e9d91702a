import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FamilyTable, NO_RECORD, rangeToCidrs } from '../dataset/index.ts';
import {
  type BlockIndexV4,
  blockIndexV4,
  blockLengthV4,
  cidrAround,
  cidrAroundV6,
  findV4,
  findV6,
  findV6Fine,
  fineIndexV6,
  formatV6Words,
  PARTIAL_V4,
  searchV4,
  topKeysOf,
} from './engine.ts';
import { splitByPrefixV4, splitByPrefixV6 } from './prefix-cut.ts';

/**
 * A table of sorted starts with the snapshot's 16-bit bucket index (IPv4: one number each; IPv6:
 * four words each), no records and no pieces.
 */
function table(family: 4 | 6, starts: number[][]): FamilyTable {
  const top16 = (w: number[]) => (w[0] as number) >>> 16;
  const buckets = new Uint32Array(65537);
  let i = 0;
  for (let k = 0; k <= 65536; k++) {
    while (i < starts.length && top16(starts[i] as number[]) < k) i++;
    buckets[k] = i;
  }
  const n = starts.length;
  return {
    family,
    size: n,
    starts: Uint32Array.from(starts.flat()),
    recs: new Uint32Array(n),
    nets: new Int32Array(n),
    netStarts: new Uint32Array(0),
    netEnds: new Uint32Array(0),
    asnStarts: new Uint32Array(0),
    asnEnds: new Uint32Array(0),
    asnAsns: new Uint32Array(0),
    buckets,
  };
}

const table4 = (starts: number[]) =>
  table(
    4,
    starts.map((x) => [x]),
  );
const table6 = (starts: number[][]) => table(6, starts);

/** The interval of ip through blockIndexV4 and searchV4, as lookup-v4.ts reads them. */
function viaBlocks(starts: Uint32Array, b: BlockIndexV4, ip: number): number {
  const top = ip >>> 16;
  const e = b.by16[top] as number;
  if (e !== PARTIAL_V4) return e;
  const q = (b.base20[top] as number) + ((ip >>> 12) & 15);
  const f = b.by20[3 * q] as number;
  if (f !== PARTIAL_V4) return f;
  const g = b.by24[(b.base24[q] as number) + ((ip >>> 8) & 15)] as number;
  if (g !== PARTIAL_V4) return g;
  return searchV4(starts, 1, b.by20[3 * q + 1] as number, b.by20[3 * q + 2] as number, ip);
}

describe('engine search', () => {
  it('finds the last interval starting at or below the address, across bucket edges', () => {
    const t = table4([0x01000000, 0x0100ff00, 0x01010000, 0x01010080, 0xfffffff0]);
    expect(findV4(t, 0x00ffffff)).toBe(-1);
    expect(findV4(t, 0x01000000)).toBe(0);
    expect(findV4(t, 0x0100ffff)).toBe(1);
    expect(findV4(t, 0x01010000)).toBe(2);
    expect(findV4(t, 0x0101007f)).toBe(2);
    expect(findV4(t, 0x01020000)).toBe(3);
    expect(findV4(t, 0x7f000000)).toBe(3);
    expect(findV4(t, 0xffffffff)).toBe(4);
    expect(findV4(table4([]), 5)).toBe(-1);
  });

  it('blockIndexV4 and searchV4 find what findV4 finds, on both sides of 2^31', () => {
    const starts = [0x01000000, 0x0100ff00, 0x01010000, 0x7fffff00, 0x80000000, 0x80000100, 0xfffffff0];
    const t = table4(starts);
    const probes = [0, 0x00ffffff, 0x01000000, 0x0100ffff, 0x7fffffff, 0x80000000, 0x800000ff, 0xffffffff];
    const blocks = blockIndexV4(t.starts);
    for (const ip of probes) expect(viaBlocks(t.starts, blocks, ip), `${ip}`).toBe(findV4(t, ip));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        (ip) => viaBlocks(t.starts, blocks, ip) === findV4(t, ip),
      ),
      { numRuns: 5000, seed: 3 },
    );
    const none = new Uint32Array(0);
    expect(viaBlocks(none, blockIndexV4(none), 5)).toBe(-1);
  });

  it('blockIndexV4 agrees with findV4 on random and crowded starts, at every block edge', () => {
    // Starts anywhere, on /16, /20 and /24 boundaries, and crowded into a few /16s.
    const start = fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: 0xffffffff }), weight: 1 },
      { arbitrary: fc.integer({ min: 0, max: 0xffff }).map((k) => k * 0x10000), weight: 1 },
      { arbitrary: fc.integer({ min: 0, max: 0xfffff }).map((k) => k * 0x1000), weight: 1 },
      { arbitrary: fc.integer({ min: 0, max: 0xffffff }).map((k) => k * 0x100), weight: 1 },
      { arbitrary: fc.integer({ min: 0xc6336000, max: 0xc63380ff }), weight: 3 },
      { arbitrary: fc.integer({ min: 0x0affe000, max: 0x0b001fff }), weight: 3 },
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(start, { minLength: 1, maxLength: 300, size: 'max' }),
        fc.array(start),
        (raw, extra) => {
          const starts = [...raw].sort((a, b) => a - b);
          const t = table4(starts);
          const blocks = blockIndexV4(t.starts);
          const probes = [0, 0xffffffff, ...extra];
          for (const x of starts) {
            probes.push(x, Math.max(0, x - 1), Math.min(0xffffffff, x + 1));
            // The edges of the /16, /20 and /24 the start is in.
            for (const size of [0x10000, 0x1000, 0x100]) {
              const base = x - (x % size);
              probes.push(base, Math.max(0, base - 1), base + size - 1, Math.min(0xffffffff, base + size));
            }
          }
          return probes.every((ip) => viaBlocks(t.starts, blocks, ip) === findV4(t, ip));
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });

  it('blockIndexV4: a block starting at its first address is whole, any other start makes it partial', () => {
    // 198.51.0.0/16 in one interval from its first address; 198.52.0.0/16 with starts at the
    // first address of its /20 #0 (whole), inside /20 #1 (partial; in its first /24) and none in
    // the rest.
    const t = table4([0xc6330000, 0xc6340000, 0xc6341010, 0xc6350000]);
    const b = blockIndexV4(t.starts);
    expect(b.by16[0xc633]).toBe(0);
    expect(b.by16[0xc632]).toBe(-1);
    expect(b.by16[0xc634]).toBe(PARTIAL_V4);
    expect(b.by16[0xc636]).toBe(3);
    const q = b.base20[0xc634] as number;
    expect([...b.by20.subarray(3 * q, 3 * q + 9)]).toEqual([1, 0, 1, PARTIAL_V4, 1, 2, 2, 2, 2]);
    // In the partial /20, the /24 holding the start is partial and the other fifteen are whole.
    const c = b.base24[q + 1] as number;
    expect([...b.by24.subarray(c, c + 16)]).toEqual([PARTIAL_V4, ...Array(15).fill(2)]);
    expect(b.by24.length).toBe(16);
  });

  it('IPv6 four-word compare', () => {
    const starts = [
      [0x20010000, 0, 0, 0],
      [0x20010000, 0, 0, 5],
      [0x2a001450, 0, 0, 0],
    ];
    const t = table6(starts);
    expect(findV6(t, 0x20010000, 0, 0, 4)).toBe(0);
    expect(findV6(t, 0x20010000, 0, 0, 5)).toBe(1);
    expect(findV6(t, 0x2a001450, 0, 1, 0)).toBe(2);
    expect(findV6(t, 0x1fffffff, 0, 0, 0)).toBe(-1);
    const first = topKeysOf(t.starts);
    const queries: [number, number, number, number][] = [
      [0x20010000, 0, 0, 4],
      [0x20010000, 0, 0, 5],
      [0x2a001450, 0, 1, 0],
      [0x1fffffff, 0, 0, 0],
      [0x20010000, 1, 0, 0],
    ];
    for (const [a, b, c, d] of queries) expect(findV6(t, a, b, c, d, first)).toBe(findV6(t, a, b, c, d));
    const fine = fineIndexV6(t.starts);
    for (const [a, b, c, d] of queries)
      expect(findV6Fine(t.starts, fine, first, a, b, c, d)).toBe(findV6(t, a, b, c, d));
  });

  it('IPv6 search over the top-53-bit keys agrees with a scan, with starts that share their top bits', () => {
    // Starts crowded under a few /32s and /48s (ties on the first word and on the top 53 bits).
    const word = fc.constantFrom(0x2a001450, 0x2a001451, 0x20010db8, 0x26000000, 0xfffffff0);
    const small = fc.constantFrom(0, 1, 0x7ff, 0x800, 0xffff, 0x10000, 0xffffffff);
    const addr = fc.tuple(word, fc.oneof(small, fc.integer({ min: 0, max: 0xffffffff })), small, small);
    const big = (w: number[]) => w.reduce((acc, x) => (acc << 32n) | BigInt(x), 0n);
    fc.assert(
      fc.property(
        fc.uniqueArray(addr, { minLength: 1, maxLength: 60, selector: (w) => big(w).toString() }),
        fc.array(addr, { maxLength: 30 }),
        (starts, queries) => {
          starts.sort((a, b) => (big(a) < big(b) ? -1 : big(a) > big(b) ? 1 : 0));
          const t = table6(starts);
          const keys = topKeysOf(t.starts);
          const fine = fineIndexV6(t.starts);
          for (const q of [...queries, ...starts]) {
            const x = big(q);
            let want = -1;
            starts.forEach((st, k) => {
              if (big(st) <= x) want = k;
            });
            const [a, b, c, d] = q as [number, number, number, number];
            expect(findV6(t, a, b, c, d)).toBe(want);
            expect(findV6(t, a, b, c, d, keys)).toBe(want);
            expect(findV6Fine(t.starts, fine, keys, a, b, c, d)).toBe(want);
          }
        },
      ),
      { numRuns: 200, seed: 17 },
    );
  });

  it('cidrAround picks the largest aligned block inside the range', () => {
    expect(cidrAround(4, 0xd7000001n, 0xd7000000n, 0xd70103ffn)).toEqual({
      network: 0xd7000000n,
      length: 16,
    });
    expect(cidrAround(4, 0xd70103ffn, 0xd7000000n, 0xd70103ffn)).toEqual({
      network: 0xd7010000n,
      length: 22,
    });
    expect(cidrAround(4, 5n, 5n, 5n)).toEqual({ network: 5n, length: 32 });
    expect(cidrAround(4, 7n, 0n, 0xffffffffn)).toEqual({ network: 0n, length: 0 });
  });
});

describe('IPv4 prefix blocks', () => {
  /** Length and start of the block of rangeToCidrs(lo, hi) holding ip, by scanning the list. */
  function scan(lo: number, hi: number, ip: number): { start: number; length: number } {
    let at = lo;
    for (const cidr of rangeToCidrs(4, BigInt(lo), BigInt(hi))) {
      const length = Number(cidr.split('/')[1]);
      const size = 2 ** (32 - length);
      if (ip < at + size) return { start: at, length };
      at += size;
    }
    throw new Error('ip outside the range');
  }

  it('blockLengthV4 names the block of the minimal cover holding the address, edges included', () => {
    const cases: [number, number][] = [
      [1, 6],
      [0, 0xffffffff],
      [1, 0xffffffff],
      [0, 0xfffffffe],
      [0xd7000000, 0xd70103ff],
      [0xd65f0000, 0xd700ffff], // 214.95.0.0-215.0.255.255, an overlap row of the ASN data
      [0x80000000, 0x80000000],
      [0x7fffffff, 0x80000000],
      [5, 5],
    ];
    for (const [lo, hi] of cases) {
      for (const ip of [lo, hi, lo + Math.floor((hi - lo) / 2), Math.min(hi, lo + 1), Math.max(lo, hi - 1)]) {
        expect(blockLengthV4(lo, hi, ip), `${lo}-${hi} @ ${ip}`).toBe(scan(lo, hi, ip).length);
      }
    }
    const u32 = fc.integer({ min: 0, max: 0xffffffff });
    fc.assert(
      fc.property(u32, u32, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, f) => {
        const lo = Math.min(a, b);
        const hi = Math.max(a, b);
        const ip = Math.min(hi, lo + Math.floor((hi - lo + 1) * f));
        return blockLengthV4(lo, hi, ip) === scan(lo, hi, ip).length;
      }),
      { numRuns: 2000, seed: 5 },
    );
  });

  /** One interval [start, end] in piece [lo, hi] (net 0), then a gap to the top. */
  function oneInterval(lo: number, hi: number, start: number, end: number): FamilyTable {
    const starts = end === 0xffffffff ? [start] : [start, end + 1];
    const t = table4(starts);
    t.recs = Uint32Array.from(starts, (_, k) => (k === 0 ? 0 : NO_RECORD));
    t.nets = Int32Array.from(starts, (_, k) => (k === 0 ? 0 : -1));
    t.netStarts = Uint32Array.of(lo);
    t.netEnds = Uint32Array.of(hi);
    return t;
  }

  /** The cut of interval [start, end] in piece [lo, hi]: its start, every block start of the piece's cover inside it, then the gap after it. */
  function expectedCuts(lo: number, hi: number, start: number, end: number): number[] {
    const expected = [start];
    let at = lo;
    for (const cidr of rangeToCidrs(4, BigInt(lo), BigInt(hi))) {
      if (at > start && at <= end) expected.push(at);
      at += 2 ** (32 - Number(cidr.split('/')[1]));
    }
    if (end !== 0xffffffff) expected.push(end + 1); // the gap after it, whole
    return expected;
  }

  /** Every cut interval lies in one block: its start and its end have the same block. */
  function expectOneBlockEach(lo: number, hi: number, cuts: number[], end: number): void {
    for (let j = 0; j + 1 < cuts.length - (end === 0xffffffff ? 0 : 1); j++) {
      const a = scan(lo, hi, cuts[j] as number);
      const b = scan(lo, hi, (cuts[j + 1] as number) - 1);
      expect(a).toEqual(b);
    }
  }

  it('splitByPrefixV4 cuts an interval at the block starts of its piece inside it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 4, maxLength: 4 }), (xs) => {
        const [lo, start, end, hi] = [...xs].sort((a, b) => a - b) as [number, number, number, number];
        const t = oneInterval(lo, hi, start, end);
        const cut = splitByPrefixV4(t);
        const expected = expectedCuts(lo, hi, start, end);
        expect([...cut.starts]).toEqual(expected);
        expect([...cut.origin]).toEqual(expected.map((x) => (x <= end ? 0 : 1)));
        expectOneBlockEach(lo, hi, expected, end);
        // The block index over the cut starts finds the right interval.
        const ref = table4(expected);
        const blocks = blockIndexV4(cut.starts);
        for (const ip of [lo, start, end, hi, (start + end) >>> 1, Math.max(0, start - 1)])
          expect(viaBlocks(cut.starts, blocks, ip)).toBe(findV4(ref, ip));
      }),
      { numRuns: 100, seed: 11 },
    );
  });

  it('leaves intervals without a record whole', () => {
    // 10.0.0.1-10.0.0.254: 14 blocks (.1/32, .2/31, ... .128/26, ... .254/32), then the gap.
    const t = oneInterval(0x0a000001, 0x0a0000fe, 0x0a000001, 0x0a0000fe);
    const noRecords = { ...t, recs: t.recs.map(() => NO_RECORD) };
    expect([...splitByPrefixV4(noRecords).starts]).toEqual([0x0a000001, 0x0a0000ff]);
    const cut = splitByPrefixV4(t);
    expect(cut.starts.length).toBe(15);
    expect([...cut.starts.slice(0, 3)]).toEqual([0x0a000001, 0x0a000002, 0x0a000004]);
  });
});

describe('IPv6 prefix cuts', () => {
  const words = (v: bigint) => [96n, 64n, 32n, 0n].map((sh) => Number((v >> sh) & 0xffffffffn));
  const value = (w: ArrayLike<number>, k: number) =>
    [0, 1, 2, 3].reduce((acc, x) => (acc << 32n) | BigInt(w[k * 4 + x] as number), 0n);

  /** One interval [start, end] in piece [lo, hi] (net 0), then a gap to the top. */
  function oneInterval6(lo: bigint, hi: bigint, start: bigint, end: bigint): FamilyTable {
    const top = (1n << 128n) - 1n;
    const starts = end === top ? [start] : [start, end + 1n];
    return {
      family: 6,
      size: starts.length,
      starts: Uint32Array.from(starts.flatMap(words)),
      recs: Uint32Array.from(starts, (_, k) => (k === 0 ? 0 : NO_RECORD)),
      nets: Int32Array.from(starts, (_, k) => (k === 0 ? 0 : -1)),
      netStarts: Uint32Array.from(words(lo)),
      netEnds: Uint32Array.from(words(hi)),
      asnStarts: new Uint32Array(0),
      asnEnds: new Uint32Array(0),
      asnAsns: new Uint32Array(0),
      buckets: new Uint32Array(65537),
    };
  }

  it('splitByPrefixV6 cuts an interval at the block starts of its piece inside it', () => {
    const big = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
    // Mostly near one another (so that covers have many blocks), sometimes anywhere.
    const near = fc.tuple(
      big,
      fc.array(fc.bigInt({ min: 0n, max: 1n << 70n }), { minLength: 3, maxLength: 3 }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          near.map(([b, ds]) => [b, ...ds.map((d) => b + d)]),
          fc.array(big, { minLength: 4, maxLength: 4 }),
        ),
        (xs) => {
          const top = (1n << 128n) - 1n;
          const [lo, start, end, hi] = xs
            .map((x) => (x > top ? top : x))
            .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) as [bigint, bigint, bigint, bigint];
          const cut = splitByPrefixV6(oneInterval6(lo, hi, start, end));
          const expected = [start];
          let at = lo;
          for (const cidr of rangeToCidrs(6, lo, hi)) {
            if (at > start && at <= end) expected.push(at);
            at += 1n << BigInt(128 - Number(cidr.split('/')[1]));
          }
          if (end !== top) expected.push(end + 1n);
          const got = Array.from({ length: cut.origin.length }, (_, k) => value(cut.starts, k));
          expect(got).toEqual(expected);
          expect([...cut.origin]).toEqual(expected.map((x) => (x <= end ? 0 : 1)));
          expect([...cut.keys]).toEqual(expected.map((x) => Number(x >> 75n)));
        },
      ),
      { numRuns: 200, seed: 13 },
    );
  });
});

describe('IPv6 word helpers', () => {
  it('formats RFC 5952 text from words', () => {
    expect(formatV6Words(0x20010db8, 0, 0, 1)).toBe('2001:db8::1');
    expect(formatV6Words(0, 0, 0, 0)).toBe('::');
    expect(formatV6Words(0x20010db8, 0x00010000, 0x00010000, 0x00010001)).toBe('2001:db8:1:0:1:0:1:1');
    expect(formatV6Words(0x20010000, 0, 0x00010000, 0)).toBe('2001::1:0:0:0');
  });

  it('cidrAroundV6 agrees with the bigint cidrAround', () => {
    const out = new Uint32Array(4);
    const b = new Uint32Array(4);
    const w = (v: bigint) => Uint32Array.from([96n, 64n, 32n, 0n], (sh) => Number((v >> sh) & 0xffffffffn));
    const cases: [bigint, bigint, bigint][] = [
      [
        0x20010200n << 96n,
        (0x20010200n << 96n) | (0x01b9n << 80n) | ((1n << 80n) - 1n),
        (0x20010200n << 96n) | (0x01b8n << 80n) | 5n,
      ],
      [0n, (1n << 128n) - 1n, 12345n],
      [7n, 7n, 7n],
    ];
    for (const [s, e, ip] of cases) {
      const len = cidrAroundV6(w(ip), w(s), w(e), out, b);
      const ref = cidrAround(6, ip, s, e);
      expect(len).toBe(ref.length);
      expect([...out]).toEqual([...w(ref.network)]);
    }
  });
});
