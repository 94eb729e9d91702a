/** Deterministic sampling and the canonical request, without a store (CONTRACT §10). */
import { describe, expect, it } from 'vitest';
import { canonicalRequest, rangeOf, requestHash } from './canonical-request.ts';
import { createPopulation } from './population.ts';
import { MANIFEST_ADDRESS_LIMIT, samplePopulation } from './sampling.ts';

const pop = (...cidrs: string[]) => createPopulation(cidrs.map(rangeOf));

describe('population', () => {
  it('merges overlapping ranges and reads one index space, IPv4 first', () => {
    const p = pop('2001:db8::/126', '10.0.0.0/30', '10.0.0.2', '10.0.0.4/31');
    expect(p.size).toBe(4n + 6n);
    expect(Array.from({ length: 10 }, (_, i) => p.addressAt(BigInt(i)))).toEqual([
      '10.0.0.0',
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '10.0.0.4',
      '10.0.0.5',
      '2001:db8::',
      '2001:db8::1',
      '2001:db8::2',
      '2001:db8::3',
    ]);
    expect(() => p.addressAt(10n)).toThrow(RangeError);
  });
});

describe('samplePopulation', () => {
  const opts = { seed: 'seed-1', datasetVersion: 7, maxSamples: 50 };

  it('gives the same sample for the same population, seed and version', () => {
    const a = samplePopulation(pop('10.0.0.0/16'), opts);
    const b = samplePopulation(pop('10.0.128.0/17', '10.0.0.0/17'), opts);
    expect(a.sample.map((s) => s.address)).toEqual(b.sample.map((s) => s.address));
    expect(new Set(a.sample.map((s) => s.address)).size).toBe(50);
    expect(a.manifest).toMatchObject({ method: 'hmac-sha256-draws-v1', population: 65536, sample_size: 50 });
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
