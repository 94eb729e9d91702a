/**
 * Deterministic sampling (CONTRACT §10): the same request, seed and dataset version give the same
 * addresses on any instance and either store. Method `hmac-sha256-draws-v2` (since 2026-11-27;
 * v1 counted IPv6 address by address and drew over both families at once):
 *   units  = IPv4 addresses and IPv6 /64s (population.ts); `population` counts units
 *   shares = when the population is larger than max_samples and holds both families, each
 *            family gets half of max_samples (IPv4 the odd one), a family with fewer units than
 *            its half all of them and the other family the rest; so an ASN with a /32 of IPv6
 *            beside its IPv4 is sampled in both families, not almost only in IPv6
 *   key_f  = SHA-256("netrep-audit-sample-v2" NUL seed NUL dataset_version NUL population_digest
 *            NUL family)   (family "4" or "6")
 *   draw j = HMAC-SHA256(key_f, j as 8-byte big-endian) read as a 256-bit integer, mod the
 *            family's units
 * Draws j = 0, 1, 2, ... are kept when not already kept, until the family's share of distinct
 * units is held: the first entries of a keyed random permutation of the family's units (the
 * modulo bias is below 2^-128 since a family has at most 2^64 units). A family whose share is all
 * its units is taken whole. The sample is reported in index order (IPv4, then IPv6).
 */
import crypto from 'node:crypto';
import type { AddressRange, Population } from './population.ts';

export const SAMPLING_METHOD = 'hmac-sha256-draws-v2';
/** What one unit of `population` is, as the manifest says it. */
export const POPULATION_UNIT = 'IPv4 address; IPv6 /64';
/** Up to this many sampled addresses are listed in the manifest; above, their digest. */
export const MANIFEST_ADDRESS_LIMIT = 1000;

export interface SampledAddress {
  index: bigint;
  address: string;
}

export interface SamplingManifest {
  method: string;
  seed: string;
  dataset_version: number;
  /** Units: IPv4 addresses plus IPv6 /64s. */
  population: number;
  population_unit: string;
  population_ipv4: number;
  /** IPv6 /64s the targets touch. */
  population_ipv6_64s: number;
  population_digest: string;
  ranges: number;
  sample_size: number;
  sample_ipv4: number;
  sample_ipv6: number;
  addresses?: string[];
  addresses_sha256?: string;
}

/** SHA-256 over the merged ranges, one `family start end` line each (decimal). */
export function populationDigest(ranges: readonly AddressRange[]): string {
  const h = crypto.createHash('sha256');
  for (const r of ranges) h.update(`${r.family} ${r.start} ${r.end}\n`);
  return h.digest('hex');
}

export function samplingKey(seed: string, datasetVersion: number, digest: string, family: 4 | 6): Buffer {
  return crypto
    .createHash('sha256')
    .update(`netrep-audit-sample-v2\0${seed}\0${datasetVersion}\0${digest}\0${family}`)
    .digest();
}

/** How many units of each family a sample of at most `max` takes (module comment). */
export function familyShares(ipv4: bigint, ipv6: bigint, max: number): { ipv4: number; ipv6: number } {
  const cap = (n: bigint, m: number) => (n < BigInt(m) ? Number(n) : m);
  if (ipv4 === 0n) return { ipv4: 0, ipv6: cap(ipv6, max) };
  if (ipv6 === 0n) return { ipv4: cap(ipv4, max), ipv6: 0 };
  let v4 = cap(ipv4, Math.ceil(max / 2));
  const v6 = cap(ipv6, max - v4);
  v4 = cap(ipv4, max - v6);
  return { ipv4: v4, ipv6: v6 };
}

function drawIndices(key: Buffer, size: bigint, count: number): bigint[] {
  if (BigInt(count) >= size) return Array.from({ length: Number(size) }, (_, i) => BigInt(i));
  const kept = new Set<bigint>();
  const counter = Buffer.alloc(8);
  for (let j = 0n; kept.size < count; j++) {
    counter.writeBigUInt64BE(j);
    const mac = crypto.createHmac('sha256', key).update(counter).digest('hex');
    kept.add(BigInt(`0x${mac}`) % size);
  }
  return [...kept].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function samplePopulation(
  population: Population,
  options: { seed: string; datasetVersion: number; maxSamples: number },
): { sample: SampledAddress[]; manifest: SamplingManifest } {
  const digest = populationDigest(population.ranges);
  const { size, ipv4Size, ipv6Size } = population;
  const shares = familyShares(ipv4Size, ipv6Size, options.maxSamples);
  const key = (family: 4 | 6) => samplingKey(options.seed, options.datasetVersion, digest, family);
  const indices = [
    ...drawIndices(key(4), ipv4Size, shares.ipv4),
    ...drawIndices(key(6), ipv6Size, shares.ipv6).map((i) => i + ipv4Size),
  ];
  const sample = indices.map((index) => ({ index, address: population.addressAt(index) }));
  const addresses = sample.map((s) => s.address);
  const manifest: SamplingManifest = {
    method: SAMPLING_METHOD,
    seed: options.seed,
    dataset_version: options.datasetVersion,
    population: Number(size),
    population_unit: POPULATION_UNIT,
    population_ipv4: Number(ipv4Size),
    population_ipv6_64s: Number(ipv6Size),
    population_digest: digest,
    ranges: population.ranges.length,
    sample_size: sample.length,
    sample_ipv4: shares.ipv4,
    sample_ipv6: shares.ipv6,
  };
  if (addresses.length <= MANIFEST_ADDRESS_LIMIT) manifest.addresses = addresses;
  else manifest.addresses_sha256 = crypto.createHash('sha256').update(addresses.join('\n')).digest('hex');
  return { sample, manifest };
}
