/** Facts a snapshot stores per network record (policy such as scoring lives in intel/). */
import type { AsClass, AsClassBasis } from './importers/as-class.ts';
import type { Rir } from './importers/rir-delegated.ts';
import type { CrawlerPurpose } from './sources.ts';

export const FLAG = {
  TOR_EXIT: 1,
  VPN: 2,
  DATACENTER_LIST: 4,
  DROP: 8,
  EDROP: 16,
  UCE1: 32,
  UCE2: 64,
  UCE3: 128,
  /** Listed on a public open-proxy list. */
  PROXY: 256,
  /** The proxy's anonymity as spys.me states it (one bit at most; none: the list does not say). */
  PROXY_TRANSPARENT: 512,
  PROXY_ANONYMOUS: 1024,
  PROXY_ELITE: 2048,
} as const;

export const RIRS: readonly Rir[] = ['ARIN', 'RIPE', 'APNIC', 'LACNIC', 'AFRINIC'];

export interface SourceInfo {
  id: string;
  /** The layer the file feeds (sources.ts SourceKind; npm packages: their id). */
  kind?: string;
  /** Where the rows came from: a path relative to the build input, or an npm package file. */
  path: string;
  rows: number;
  rejected: number;
  /** A few rejected lines with reasons, for `dataset list` and debugging. */
  rejectedSample: { line: number; reason: string }[];
  /** Said instead of the row count when the source adds no rows (DB-IP city: read at lookup time). */
  note?: string;
  /** ai-crawler sources: the crawler's name and purpose (sources.ts). */
  crawler?: { name: string; purpose: CrawlerPurpose };
  /** The list's own date where the format carries one (proxy lists), ISO 8601. */
  listed_at?: string;
  /** Left out of the build (its rows are not in the snapshot), e.g. an aged-out proxy list. */
  skipped?: string;
}

export interface AsnEntry {
  asn: number;
  name: string;
  country: string | null;
  rir: Rir | null;
  allocation_date: string | null;
  /** Flags from ASN-level sources. */
  datacenter: boolean;
  vpn: boolean;
  asn_drop: boolean;
  /** CAIDA AS classification and how CAIDA found it; absent in snapshots built before it was imported. */
  as_class?: AsClass | null;
  as_class_basis?: AsClassBasis | null;
}

export interface Manifest {
  format: number;
  version: number;
  created_at: string;
  sources: SourceInfo[];
  /** Source id → the dataset version that holds its data. */
  source_versions: Record<string, number>;
  dbip_city: { v4: string | null; v6: string | null };
  counts: {
    v4_intervals: number;
    v6_intervals: number;
    records: number;
    asns: number;
    roas: number;
    changes: number;
  };
  sections: import('./table-file.ts').Section[];
  /**
   * Size and SHA-256 of every file of the snapshot but the manifest, by path inside the
   * snapshot directory (written at build since 2026-11-27; absent in older snapshots, which
   * load with size checks only and are named unverified).
   */
  files?: Record<string, { size: number; sha256: string }>;
}

export interface ProgressEvent {
  phase: string;
  message: string;
  /** On `read` events: the upstream source id being read (the CLI weighs its ETA by file size). */
  source?: string;
}
