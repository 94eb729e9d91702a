/** The rows a build reads, by what they say (the merge's layers), and the per-source summary. */
import type {
  AddrRange,
  AsClassRow,
  AsnDropRow,
  AsnRangeRow,
  CountryRangeRow,
  GeofeedRow,
  ParseResult,
  RirAsnRow,
  RirRangeRow,
  RoaRow,
} from './importers/index.ts';
import type { SourceInfo } from './types.ts';

export interface LabeledRange extends AddrRange {
  label: string;
  /** Id of the source file the row came from (provenance). */
  source: string;
}

export interface FlagRange extends AddrRange {
  flag: number;
  /** true: a carve-out (rbldnsd `!` line) that clears the flag inside a listed range. */
  exclude: boolean;
  source: string;
}

export interface Inputs {
  asn: AsnRangeRow[];
  whois: CountryRangeRow[];
  asnCountry: CountryRangeRow[];
  rirRanges: (RirRangeRow & { source: string })[];
  rirAsns: (RirAsnRow & { source: string })[];
  geofeed: (GeofeedRow & { label: string })[];
  cloud: LabeledRange[];
  ai: LabeledRange[];
  flags: FlagRange[];
  datacenterAsns: Set<number>;
  vpnAsns: Set<number>;
  asnDrop: Map<number, AsnDropRow>;
  /** CAIDA AS classification by ASN. */
  asClasses: Map<number, AsClassRow>;
  roas: RoaRow[];
  sources: SourceInfo[];
  dbipCity: { v4: string | null; v6: string | null };
}

/** The summary line of one source read: rows kept, rows refused and a sample of the reasons. */
export function sourceInfo(id: string, file: string, r: ParseResult<unknown>, kind?: string): SourceInfo {
  return {
    id,
    ...(kind ? { kind } : {}),
    path: file,
    rows: r.rows.length,
    rejected: r.rejected.length,
    rejectedSample: r.rejected.slice(0, 5).map((x) => ({ line: x.line, reason: x.reason })),
  };
}

export function emptyInputs(): Inputs {
  return {
    asn: [],
    whois: [],
    asnCountry: [],
    rirRanges: [],
    rirAsns: [],
    geofeed: [],
    cloud: [],
    ai: [],
    flags: [],
    datacenterAsns: new Set(),
    vpnAsns: new Set(),
    asnDrop: new Map(),
    asClasses: new Map(),
    roas: [],
    sources: [],
    dbipCity: { v4: null, v6: null },
  };
}
