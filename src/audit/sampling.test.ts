/** Deterministic sampling and the canonical request, without a store (CONTRACT §10). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../test/helpers/process.ts';
import { ipv6ToBigInt, parseIp } from '../core/ip.ts';
import { canonicalRequest, rangeOf, requestHash } from './canonical-request.ts';
import { type AddressRange, createPopulation } from './population.ts';
import { familyShares, MANIFEST_ADDRESS_LIMIT, samplePopulation } from './sampling.ts';

const pop = (...cidrs: string[]) => createPopulation(cidrs.map(rangeOf));

describe('population', () => {
  it('merges overlapping ranges and reads one index space, IPv4 first', () => {
    const p = pop('2001:db8::/126', '10.0.0.0/30', '10.0.0.2', '10.0.0.4/31', '2001:db8:0:1::/64');
    expect([p.size, p.ipv4Size, p.ipv6Size]).toEqual([8n, 6n, 2n]);
    expect(Array.from({ length: 8 }, (_, i) => p.addressAt(BigInt(i)))).toEqual([
      '10.0.0.0',
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '10.0.0.4',
      '10.0.0.5',
      '2001:db8::1',
      '2001:db8:0:1::1',
    ]);
    expect(() => p.addressAt(8n)).toThrow(RangeError);
  });

  it('counts IPv6 in /64s, each probed at ::1 or at its lowest target address', () => {
    expect(pop('2001:db8::/32').ipv6Size).toBe(2n ** 32n);
    expect(pop('::/0').size).toBe(2n ** 64n);
    // Two targets in one /64 are one unit, probed at ::1 when a target range holds it.
    const one = pop('2001:db8::5', '2001:db8::ffff', '2001:db8::/127');
    expect([one.size, one.addressAt(0n)]).toEqual([1n, '2001:db8::1']);
    expect(pop('2001:db8::5', '2001:db8::9').addressAt(0n)).toBe('2001:db8::5');
    expect(pop('2001:db8::/128').addressAt(0n)).toBe('2001:db8::');
    // A range over a /64 boundary touches both /64s.
    const across = pop('2001:db8:0:0:ffff::/80', '2001:db8:0:1::/65');
    expect([across.size, across.addressAt(0n), across.addressAt(1n)]).toEqual([
      2n,
      '2001:db8:0:0:ffff::',
      '2001:db8:0:1::1',
    ]);
    // The unit's probe is inside the targets even when an earlier range ended in the /64 before it.
    const gap = pop('2001:db8::/128', '2001:db8::8/125', '2001:db8:0:5::/64');
    expect([gap.size, gap.addressAt(0n), gap.addressAt(1n)]).toEqual([2n, '2001:db8::', '2001:db8:0:5::1']);
  });
});

/** AS15169's ranges in the project's ASN reference data (@ip-location-db/asn, real BGP data). */
function realAsnRanges(asn: number): AddressRange[] {
  const out: AddressRange[] = [];
  for (const family of [4, 6] as const) {
    const file = path.join(REPO, `node_modules/@ip-location-db/asn/asn-ipv${family}.csv`);
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [start, end, as] = line.split(',');
      if (Number(as) !== asn) continue;
      const n = (text: string) => {
        const ip = parseIp(text);
        if (!ip) throw new Error(`bad address ${text}`);
        return family === 4 ? BigInt(ip.bytes.reduce((a, b) => a * 256 + b, 0)) : ipv6ToBigInt(ip.bytes);
      };
      out.push({ family, start: n(start as string), end: n(end as string) });
    }
  }
  return out;
}

describe('an ASN audit population (AS15169, real data)', () => {
  const ranges = realAsnRanges(15169);
  const population = createPopulation(ranges);
  const opts = { seed: 'as15169', datasetVersion: 1, maxSamples: 256 };

  it('fits an int64 max_population and samples both families, every address inside AS15169', () => {
    expect(ranges.filter((r) => r.family === 6).length).toBeGreaterThan(10);
    expect(population.size).toBeLessThan(10n ** 15n);
    expect(population.ipv4Size).toBeGreaterThan(1_000_000n);
    expect(population.ipv6Size).toBeGreaterThan(2n ** 32n);
    const { sample, manifest } = samplePopulation(population, opts);
    expect(manifest).toMatchObject({
      method: 'hmac-sha256-draws-v2',
      population_unit: 'IPv4 address; IPv6 /64',
      population: Number(population.size),
      population_ipv4: Number(population.ipv4Size),
      population_ipv6_64s: Number(population.ipv6Size),
      sample_size: 256,
      sample_ipv4: 128,
      sample_ipv6: 128,
    });
    const inside = (address: string) => {
      const ip = parseIp(address);
      if (!ip) return false;
      const n = ip.family === 4 ? BigInt(ip.bytes.reduce((a, b) => a * 256 + b, 0)) : ipv6ToBigInt(ip.bytes);
      return ranges.some((r) => r.family === ip.family && r.start <= n && n <= r.end);
    };
    expect(sample.filter((s) => !inside(s.address))).toEqual([]);
    expect(sample.filter((s) => s.address.includes(':'))).toHaveLength(128);
    expect(new Set(sample.map((s) => s.address)).size).toBe(256);
  });

  it('is deterministic: same ranges in another order, same seed and version, same sample', () => {
    const again = samplePopulation(createPopulation(ranges.slice().reverse()), opts);
    expect(again.manifest).toEqual(samplePopulation(population, opts).manifest);
    expect(samplePopulation(population, { ...opts, seed: 'other' }).manifest.addresses).not.toEqual(
      again.manifest.addresses,
    );
  });
});

describe('familyShares', () => {
  it.each([
    [0n, 10n ** 9n, 256, 0, 256],
    [10n ** 6n, 0n, 256, 256, 0],
    [10n ** 6n, 10n ** 9n, 256, 128, 128],
    [10n ** 6n, 10n ** 9n, 255, 128, 127],
    [3n, 10n ** 9n, 256, 3, 253],
    [10n ** 6n, 5n, 256, 251, 5],
    [3n, 5n, 256, 3, 5],
  ])('%s IPv4 and %s IPv6 units, %s samples: %s and %s', (v4, v6, max, e4, e6) => {
    expect(familyShares(v4, v6, max)).toEqual({ ipv4: e4, ipv6: e6 });
  });
});

describe('samplePopulation', () => {
  const opts = { seed: 'seed-1', datasetVersion: 7, maxSamples: 50 };

  it('gives the same sample for the same population, seed and version', () => {
    const a = samplePopulation(pop('10.0.0.0/16'), opts);
    const b = samplePopulation(pop('10.0.128.0/17', '10.0.0.0/17'), opts);
    expect(a.sample.map((s) => s.address)).toEqual(b.sample.map((s) => s.address));
    expect(new Set(a.sample.map((s) => s.address)).size).toBe(50);
    expect(a.manifest).toMatchObject({ method: 'hmac-sha256-draws-v2', population: 65536, sample_size: 50 });
    // A stable, written-down method: this exact draw must not change between releases.
    expect(a.sample[0]?.address).toBe(samplePopulation(pop('10.0.0.0/16'), opts).sample[0]?.address);
  });

  it('changes with the seed and with the dataset version', () => {
    const base = samplePopulation(pop('10.0.0.0/16'), opts).manifest.addresses;
    expect(samplePopulation(pop('10.0.0.0/16'), { ...opts, seed: 'seed-2' }).manifest.addresses).not.toEqual(
      base,
    );
    expect(
      samplePopulation(pop('10.0.0.0/16'), { ...opts, datasetVersion: 8 }).manifest.addresses,
    ).not.toEqual(base);
  });

  it('takes every address when the population is not larger than max_samples', () => {
    const r = samplePopulation(pop('10.0.0.0/28'), { ...opts, maxSamples: 16 });
    expect(r.sample.map((s) => s.address)).toHaveLength(16);
    expect(r.sample[15]?.address).toBe('10.0.0.15');
  });

  it('lists up to 1000 addresses and digests larger samples', () => {
    const small = samplePopulation(pop('10.0.0.0/8'), { ...opts, maxSamples: MANIFEST_ADDRESS_LIMIT });
    expect(small.manifest.addresses).toHaveLength(1000);
    const big = samplePopulation(pop('10.0.0.0/8', '2001:db8::/32'), { ...opts, maxSamples: 10000 });
    expect(big.manifest.addresses).toBeUndefined();
    expect(big.manifest.addresses_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(big.sample).toHaveLength(10000);
  });
});

describe('canonicalRequest', () => {
  it('folds and normalizes the lists so equal requests hash equally', () => {
    const a = canonicalRequest({
      targets: ['AS64500', '10.0.0.5/24', '2001:DB8::1'],
      ips: ['192.0.2.1'],
      dataset_version: 3,
      seed: 's',
    });
    const b = canonicalRequest({
      asns: [64500, 64500],
      cidrs: ['10.0.0.0/24', '2001:db8::1/128'],
      targets: ['192.0.2.1', 'as64500'],
      dataset_version: 3,
      seed: 's',
      max_samples: 256,
      acceptance: false,
    });
    expect(a).toEqual(b);
    expect(a).toMatchObject({ ips: ['192.0.2.1', '2001:db8::1'], cidrs: ['10.0.0.0/24'], asns: [64500] });
    expect(requestHash(a)).toBe(requestHash(b));
    expect(requestHash({ ...a, seed: 't' })).not.toBe(requestHash(a));
  });
});
