/**
 * Deterministic sampling (CONTRACT §10): the same request, seed and dataset version give the same
 * addresses on any instance and either store. Method `hmac-sha256-draws-v1`:
 *   key   = SHA-256("netrep-audit-sample-v1" NUL seed NUL dataset_version NUL population_digest)
 *   draw j = HMAC-SHA256(key, j as 8-byte big-endian) read as a 256-bit integer, mod population
 * Draws j = 0, 1, 2, ... are kept when not already kept, until sample_size distinct indices are
 * held: the first sample_size entries of a keyed random permutation of the index space (the
 * modulo bias is below 2^-128 since the population is at most 2^128). When the population is not
 * larger than max_samples every address is taken. The sample is reported in index order.
 */
import crypto from 'node:crypto';
import type { AddressRange, Population } from './population.ts';

export const SAMPLING_METHOD = 'hmac-sha256-draws-v1';
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
  population: number;
  population_digest: string;
  ranges: number;
  sample_size: number;
  addresses?: string[];
  addresses_sha256?: string;
}

/** SHA-256 over the merged ranges, one `family start end` line each (decimal). */
export function populationDigest(ranges: readonly AddressRange[]): string {
  const h = crypto.createHash('sha256');
  for (const r of ranges) h.update(`${r.family} ${r.start} ${r.end}\n`);
  return h.digest('hex');
}

export function samplingKey(seed: string, datasetVersion: number, digest: string): Buffer {
  return crypto
    .createHash('sha256')
    .update(`netrep-audit-sample-v1\0${seed}\0${datasetVersion}\0${digest}`)
    .digest();
}

function drawIndices(key: Buffer, size: bigint, count: number): bigint[] {
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
  const size = population.size;
  const indices =
    size <= BigInt(options.maxSamples)
      ? Array.from({ length: Number(size) }, (_, i) => BigInt(i))
      : drawIndices(samplingKey(options.seed, options.datasetVersion, digest), size, options.maxSamples);
  const sample = indices.map((index) => ({ index, address: population.addressAt(index) }));
  const addresses = sample.map((s) => s.address);
  const manifest: SamplingManifest = {
    method: SAMPLING_METHOD,
    seed: options.seed,
    dataset_version: options.datasetVersion,
    population: Number(size),
    population_digest: digest,
    ranges: population.ranges.length,
    sample_size: sample.length,
  };
  if (addresses.length <= MANIFEST_ADDRESS_LIMIT) manifest.addresses = addresses;
  else manifest.addresses_sha256 = crypto.createHash('sha256').update(addresses.join('\n')).digest('hex');
  return { sample, manifest };
}
