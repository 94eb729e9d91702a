import { isIP } from 'node:net';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { ipv4RangeEdges } from '../../test/helpers/ipv4-range-edges.ts';
import {
  intToIpv4,
  ipRange,
  ipWords,
  isPublicIp,
  normalizeIp,
  type ParsedIp,
  parseCidr,
  parseIp,
  readIp,
  toParsedIp,
} from './ip.ts';
import { seededRandom } from './random.ts';

describe('normalizeIp', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['  8.8.8.8\n', '8.8.8.8'],
    ['2A00:1450:4001:0:0:0:0:1', '2a00:1450:4001::1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:7F00:2', '127.0.0.2'],
    // The deprecated IPv4-compatible form is the IPv6 address it spells, not the IPv4 one.
    ['::1.2.3.4', '::102:304'],
    ['0::8.8.8.8', '::808:808'],
    ['2001:db8::0:1', '2001:db8::1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['100.64.0.1', '100.64.0.1'],
  ])('%s -> %s', (input, out) => {
    expect(normalizeIp(input)).toBe(out);
  });

  it.each([
    '',
    ' ',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '010.1.1.1',
    '1.2.3.04',
    '1.2.3.',
    '.1.2.3',
    '1..2.3',
    '1.2.3.256',
    '1.2.3.4.',
    '00.1.2.3',
    '1.2.3.4 x',
    '0x7f.0.0.1',
    '2130706433',
    'fe80::1%eth0',
    '[::1]',
    '1.2.3.4:80',
    '1.2.3.4/32',
    '::ffff:01.2.3.4',
    'gggg::1',
    '1:2:3:4:5:6:7:8:9',
    'x'.repeat(100),
    '１.２.３.４',
  ])('rejects %j', (input) => {
    expect(normalizeIp(input)).toBeNull();
  });

  it('rejects non-strings', () => {
    expect(normalizeIp(42)).toBeNull();
    expect(normalizeIp(null)).toBeNull();
    expect(normalizeIp({})).toBeNull();
  });
});

describe('parseCidr', () => {
  it('clears host bits unless strict', () => {
    expect(parseCidr('10.1.2.3/8')?.cidr).toBe('10.0.0.0/8');
    expect(parseCidr('10.1.2.3/8', { strict: true })).toBeNull();
    expect(parseCidr('2001:db8::1/32')?.cidr).toBe('2001:db8::/32');
    expect(parseCidr('1.2.3.4')?.cidr).toBe('1.2.3.4/32');
    expect(parseCidr('::ffff:10.0.0.0/104')?.cidr).toBe('10.0.0.0/8');
  });
  it('rejects bad lengths', () => {
    expect(parseCidr('1.2.3.4/33')).toBeNull();
    expect(parseCidr('1.2.3.4/-1')).toBeNull();
    expect(parseCidr('1.2.3.4/')).toBeNull();
    expect(parseCidr('::/129')).toBeNull();
  });
});

describe('isPublicIp', () => {
  it('classifies', () => {
    expect(isPublicIp(parseIp('8.8.8.8')!)).toBe(true);
    expect(isPublicIp(parseIp('10.0.0.1')!)).toBe(false);
    expect(isPublicIp(parseIp('127.0.0.1')!)).toBe(false);
    expect(isPublicIp(parseIp('2a00:1450::1')!)).toBe(true);
    expect(isPublicIp(parseIp('fe80::1')!)).toBe(false);
  });
});

describe('ipRange: IPv4 names from ipaddr.js own table', () => {
  const ipaddrName = (a: string) => ipaddr.IPv4.parse(a).range();

  it("names every range's edges, and the addresses just outside, as ipaddr.js range() does", () => {
    const list = ipv4RangeEdges();
    expect(list.length).toBeGreaterThan(40);
    for (const a of list) expect([a, ipRange(parseIp(a) as ParsedIp)]).toEqual([a, ipaddrName(a)]);
  });

  it('names 200,000 random addresses as ipaddr.js range() does', () => {
    const rand = seededRandom(20261208);
    const wrong: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const a = intToIpv4(Math.floor(rand() * 2 ** 32));
      const got = ipRange(parseIp(a) as ParsedIp);
      if (got !== ipaddrName(a)) wrong.push(`${a}: ${got} / ${ipaddrName(a)}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});

/** The ipaddr.js reading of the rules (the former implementation): the fast parser must agree. */
function referenceParseIp(input: unknown): ParsedIp | null {
  const IPV4_STRICT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
  if (typeof input !== 'string') return null;
  const text = input.trim();
  if (text.length === 0 || text.length > 45) return null;
  if (text.includes(':')) {
    if (!/^[0-9a-fA-F:.]+$/.test(text) || !ipaddr.IPv6.isValid(text)) return null;
    const tail = text.slice(text.lastIndexOf(':') + 1);
    if (tail.includes('.') && !IPV4_STRICT.test(tail)) return null;
    let v6 = ipaddr.IPv6.parse(text);
    // ipaddr.js reads the IPv4-compatible `::a.b.c.d` as mapped; netrep keeps it IPv6 (README).
    if (/^::[0-9.]+$/.test(text))
      v6 = ipaddr.IPv6.parse(`::${v6.toNormalizedString().split(':').slice(-2).join(':')}`);
    if (v6.isIPv4MappedAddress()) {
      const v4 = v6.toIPv4Address();
      return { family: 4, address: v4.toString(), bytes: v4.toByteArray() };
    }
    return { family: 6, address: v6.toRFC5952String(), bytes: v6.toByteArray() };
  }
  if (!IPV4_STRICT.test(text)) return null;
  const v4 = ipaddr.IPv4.parse(text);
  return { family: 4, address: v4.toString(), bytes: v4.toByteArray() };
}

describe('parseIp agrees with the ipaddr.js reading', () => {
  const ipLike = (): fc.Arbitrary<string> => {
    const hex = fc.constantFrom(...'0123456789abcdefABCDEF'.split(''));
    const group = fc.oneof(
      fc.constant('0'),
      fc.constant('ffff'),
      fc.constant('FFFF'),
      fc.array(hex, { minLength: 1, maxLength: 5 }).map((a) => a.join('')),
    );
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map(String),
      fc.constantFrom('00', '01', '255', '256', '1000', ''),
    );
    const quad = fc.array(octet, { minLength: 3, maxLength: 5 }).map((a) => a.join('.'));
    const sep = fc.constantFrom(':', ':', ':', '::', ':::', '.', '');
    const v6 = fc
      .array(fc.tuple(group, sep), { minLength: 0, maxLength: 10 })
      .map((parts) => parts.map(([g, s]) => g + s).join(''));
    const lead = fc.constantFrom('', '', '::', ':', ' ', '\t', '\u00a0', '[');
    const tail = fc.constantFrom('', '', '', '%eth0', ' ', ']', '/64', '\n');
    return fc
      .oneof(
        quad,
        fc.tuple(lead, v6, tail).map(([a, b, c]) => a + b + c),
        fc.tuple(lead, v6, quad, tail).map(([a, b, q, c]) => a + b + q + c),
        fc.tuple(fc.constantFrom('::', '::ffff:', '::FFFF:', '0::', '1:2:3:4:5:6:', '::1:'), quad),
        fc.string({ maxLength: 50 }),
        fc.string({ unit: fc.constantFrom(...'0123456789abcdef:.'.split('')), maxLength: 46 }),
      )
      .map((x) => (Array.isArray(x) ? x.join('') : x));
  };

  it('on random IP-like strings (accept/reject, text, bytes)', () => {
    fc.assert(
      fc.property(ipLike(), (s) => {
        const want = referenceParseIp(s);
        expect(parseIp(s)).toEqual(want);
        // readIp (the lookup's entry, no ParsedIp) makes the same decision with the same result.
        const w = ipWords();
        expect(readIp(s, w)).toBe(want !== null);
        if (want) expect(toParsedIp(w)).toEqual(want);
        // Whatever netrep accepts, node:net accepts too (it also takes zone ids, which netrep refuses).
        if (want) expect(isIP(s.trim())).not.toBe(0);
      }),
      {
        numRuns: Number(process.env.IP_FUZZ_RUNS ?? 20_000),
        seed: Number(process.env.IP_FUZZ_SEED ?? 20261122),
      },
    );
  });

  it('on every IPv6 zero-run layout, compressed or written out', () => {
    for (let mask = 0; mask < 256; mask++) {
      const g = Array.from({ length: 8 }, (_, k) => ((mask >> k) & 1 ? 'a' : '0'));
      const full = g.join(':');
      expect(parseIp(full), full).toEqual(referenceParseIp(full));
      const compressed = referenceParseIp(full)?.address ?? '';
      expect(parseIp(compressed), compressed).toEqual(referenceParseIp(compressed));
    }
  });

  it.each([
    '::1.2.3.4',
    '::ffff:1.2.3.4',
    '0::1.2.3.4',
    '1:2:3:4:5:6:1.2.3.4',
    '1:2:3:4:5::1.2.3.4',
    '1:2:3:4:5:6::1.2.3.4',
    '1:2:3:4:5:6:7::',
    '::1:2:3:4:5:6:7',
    '1::2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:',
    '1::2:',
    ':1::',
    ':::',
    '::',
    '0:0:1:0:0:1:1:1',
    '1:0:0:1:1:1:0:0',
    '00000::1',
    '::ffff:256.1.1.1',
    ':1.2.3.4',
    '1.2::3',
  ])('%s', (s) => {
    expect(parseIp(s)).toEqual(referenceParseIp(s));
  });
});

/** Random valid addresses written in the forms people and programs write them. */
function validForms(): fc.Arbitrary<string> {
  const word = fc.integer({ min: 0, max: 0xffff });
  const v4 = fc.tuple(
    fc.integer({ min: 0, max: 255 }),
    fc.integer({ min: 0, max: 255 }),
    fc.integer({ min: 0, max: 255 }),
    fc.integer({ min: 0, max: 255 }),
  );
  // Groups mostly zero or small, so that runs of zeros (and their compression) are common.
  const group = fc.oneof(word, fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 15 }));
  const v6 = fc.array(group, { minLength: 8, maxLength: 8 });
  const hex = (g: number, pad: boolean, upper: boolean) => {
    const t = g.toString(16);
    const out = pad ? t.padStart(4, '0') : t;
    return upper ? out.toUpperCase() : out;
  };
  return fc.oneof(
    v4.map((q) => q.join('.')),
    fc
      .tuple(v6, fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 8 }))
      .map(([g, pad, upper, from, len]) => {
        const parts = g.map((x) => hex(x, pad, upper));
        // Compress any run of zero groups (not only the longest: all are valid input).
        let end = from;
        while (end < 8 && end < from + len && g[end] === 0) end++;
        if (end - from < 1) return parts.join(':');
        return `${parts.slice(0, from).join(':')}::${parts.slice(end).join(':')}`;
      }),
    // An embedded dotted quad: IPv4-mapped (netrep's IPv4 answer), or any six groups.
    fc.tuple(v4, fc.boolean()).map(([q, upper]) => `::${upper ? 'FFFF' : 'ffff'}:${q.join('.')}`),
    fc.tuple(v6, v4).map(
      ([g, q]) =>
        `${g
          .slice(0, 6)
          .map((x) => hex(x, false, false))
          .join(':')}:${q.join('.')}`,
    ),
    fc.tuple(word, v4).map(([g, q]) => `${hex(g, false, false)}::${q.join('.')}`),
  );
}

describe('parseIp on random valid addresses', () => {
  it('accepts every form node:net accepts, and agrees with the ipaddr.js reading', () => {
    fc.assert(
      fc.property(validForms(), fc.constantFrom('', ' ', '\t', '\n'), (s, pad) => {
        expect(isIP(s), s).not.toBe(0);
        const want = referenceParseIp(s);
        expect(want, s).not.toBeNull();
        expect(parseIp(pad + s + pad), s).toEqual(want);
        const w = ipWords();
        expect(readIp(s, w), s).toBe(true);
        expect(toParsedIp(w), s).toEqual(want);
        // Normalized text reads back to itself, and is the very input string when already normal.
        expect(parseIp(want?.address)?.address).toBe(want?.address);
        if (want?.address === s) expect(w.address).toBe(s);
      }),
      {
        numRuns: Number(process.env.IP_FUZZ_RUNS ?? 20_000),
        seed: Number(process.env.IP_FUZZ_SEED ?? 20261124),
      },
    );
  });

  it('rejects a valid address spoiled by one edit', () => {
    const spoil = fc.constantFrom(
      '%eth0',
      ':',
      '::',
      '.',
      '.0',
      ':0:0:0:0:0:0:0:0',
      'g',
      '/1',
      '[',
      '0',
      '00000',
    );
    fc.assert(
      fc.property(validForms(), spoil, fc.nat(), (s, bad, at) => {
        const k = at % (s.length + 1);
        const t = s.slice(0, k) + bad + s.slice(k);
        const want = referenceParseIp(t);
        expect(parseIp(t), t).toEqual(want);
        expect(readIp(t, ipWords()), t).toBe(want !== null);
        // A rejected edit is either refused by node:net too or one of netrep's stricter rules
        // (zone ids, leading zeros in a dotted quad, the IPv4-compatible reading).
        if (want === null && isIP(t) !== 0) expect(t).toMatch(/%|(^|[.:])0\d|\./);
      }),
      { numRuns: Number(process.env.IP_FUZZ_RUNS ?? 20_000), seed: 20261125 },
    );
  });
});
