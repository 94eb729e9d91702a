/**
 * The dataset versions this instance holds, read for audit populations: an ASN expands to the
 * ranges the pinned version attributes to it. The last version read stays loaded.
 */
import { listDatasetVersions, loadSnapshot, type Snapshot } from '../dataset/index.ts';
import type { AddressRange } from './population.ts';

export interface DatasetVersions {
  has(version: number): boolean;
  /** The ranges the version attributes to the ASN (empty when it has none). */
  asnRanges(version: number, asn: number): AddressRange[];
}

function words(arr: Uint32Array, family: 4 | 6, i: number): bigint {
  if (family === 4) return BigInt(arr[i] as number);
  let n = 0n;
  for (let k = 0; k < 4; k++) n = (n << 32n) | BigInt(arr[i * 4 + k] as number);
  return n;
}

export function createDatasetVersions(dataDir: string): DatasetVersions {
  let loaded: Snapshot | null = null;
  const dirOf = (version: number) =>
    listDatasetVersions(dataDir).find((v) => v.version === version)?.dir ?? null;
  return {
    has: (version) => dirOf(version) !== null,
    asnRanges(version, asn) {
      if (loaded?.version !== version) {
        const dir = dirOf(version);
        if (!dir) return [];
        loaded = loadSnapshot(dir);
      }
      const out: AddressRange[] = [];
      for (const t of [loaded.v4, loaded.v6]) {
        for (let k = 0; k < t.asnAsns.length; k++) {
          if (t.asnAsns[k] !== asn) continue;
          out.push({
            family: t.family,
            start: words(t.asnStarts, t.family, k),
            end: words(t.asnEnds, t.family, k),
          });
        }
      }
      return out;
    },
  };
}
