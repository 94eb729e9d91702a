/**
 * `netrep summarize [IP...] [--file PATH|-] [--json] [--top N]`: what a list of addresses is
 * made of: counts by ASN, country, connection type, flag and threat level, from the newest local
 * snapshot. Invalid lines are reported with where they were and make the exit code 1.
 */
import type { Command } from 'commander';
import type { IpAnswer } from '../intel/index.ts';
import {
  createOutput,
  EXIT_USAGE,
  hasInput,
  invalidLine,
  type ListSource,
  loadIntel,
  readList,
} from './ip-list.ts';
import { formatTable } from './table.ts';

const FLAGS = [
  'is_datacenter',
  'is_tor_exit',
  'is_proxy',
  'is_vpn',
  'is_residential',
  'is_mobile',
  'is_ai_crawler',
] as const;
const LEVELS = ['low', 'medium', 'high', 'critical'] as const;

export interface ListSummary {
  dataset_version: number;
  /** Lines and arguments read (blank lines and comments not counted). */
  total: number;
  invalid: number;
  /** Valid addresses no record covers. */
  not_found: number;
  bogon: number;
  /** Addresses with an answer that is not a bogon: the base of the counts below. */
  answered: number;
  asn: { asn: number | null; name: string | null; count: number }[];
  country: { country: string | null; count: number }[];
  connection_type: { connection_type: string | null; count: number }[];
  cloud_provider: { cloud_provider: string; count: number }[];
  flags: Record<(typeof FLAGS)[number], number>;
  threat_level: Record<(typeof LEVELS)[number], number>;
}

/** Counts per key, most frequent first (ties by key). */
function ranked<K>(counts: Map<K, number>): [K, number][] {
  return [...counts].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
}

function bump<K>(m: Map<K, number>, k: K): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

export function createSummary(datasetVersion: number): {
  add(answer: IpAnswer | null): void;
  invalid(): void;
  result(): ListSummary;
} {
  let total = 0;
  let invalid = 0;
  let notFound = 0;
  let bogon = 0;
  let answered = 0;
  const asns = new Map<string, number>();
  const names = new Map<string, string | null>();
  const countries = new Map<string | null, number>();
  const types = new Map<string | null, number>();
  const clouds = new Map<string, number>();
  const flags = Object.fromEntries(FLAGS.map((f) => [f, 0])) as ListSummary['flags'];
  const levels = Object.fromEntries(LEVELS.map((l) => [l, 0])) as ListSummary['threat_level'];
  return {
    add(a) {
      total++;
      if (!a) notFound++;
      else if (a.bogon) bogon++;
      else {
        answered++;
        const key = String(a.asn);
        bump(asns, key);
        names.set(key, a.asn_name);
        bump(countries, a.country);
        bump(types, a.connection_type);
        if (a.netrep.cloud_provider) bump(clouds, a.netrep.cloud_provider);
        for (const f of FLAGS) if (a.netrep[f]) flags[f]++;
        levels[a.threat.level]++;
      }
    },
    invalid() {
      total++;
      invalid++;
    },
    result: () => ({
      dataset_version: datasetVersion,
      total,
      invalid,
      not_found: notFound,
      bogon,
      answered,
      asn: ranked(asns).map(([k, count]) => ({
        asn: k === 'null' ? null : Number(k),
        name: names.get(k) ?? null,
        count,
      })),
      country: ranked(countries).map(([country, count]) => ({ country, count })),
      connection_type: ranked(types).map(([connection_type, count]) => ({ connection_type, count })),
      cloud_provider: ranked(clouds).map(([cloud_provider, count]) => ({ cloud_provider, count })),
      flags,
      threat_level: levels,
    }),
  };
}

function percent(n: number, of: number): string {
  return of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`;
}

/** The summary as sections of count, share and label; `top` rows per ranked section (0: all). */
export function formatSummary(s: ListSummary, top: number): string {
  const cut = <T>(rows: T[]): T[] => (top > 0 ? rows.slice(0, top) : rows);
  const more = (n: number): string => (top > 0 && n > top ? `  … ${n - top} more (--top 0 shows all)\n` : '');
  const section = (title: string, rows: [string, number][], extra = ''): string =>
    `\n${title}\n${formatTable(rows.map(([label, n]) => [`  ${n}`, percent(n, s.answered), label]))}${extra}`;
  const bogons = `${s.bogon} bogon${s.bogon === 1 ? '' : 's'}`;
  let text =
    `dataset v${s.dataset_version}: ${s.total} addresses, ${s.answered} answered, ` +
    `${s.not_found} without a record, ${bogons}, ${s.invalid} invalid\n`;
  text += section(
    'By ASN',
    cut(s.asn).map((r) => [r.asn === null ? '(no ASN)' : `AS${r.asn} ${r.name ?? ''}`.trimEnd(), r.count]),
    more(s.asn.length),
  );
  text += section(
    'By country',
    cut(s.country).map((r) => [r.country ?? '(unknown)', r.count]),
    more(s.country.length),
  );
  text += section(
    'By connection type',
    s.connection_type.map((r) => [r.connection_type ?? '(unknown)', r.count]),
  );
  text += section(
    'Flags',
    FLAGS.map((f) => [f, s.flags[f]]),
  );
  if (s.cloud_provider.length > 0)
    text += section(
      'Cloud providers',
      cut(s.cloud_provider).map((r) => [r.cloud_provider, r.count]),
      more(s.cloud_provider.length),
    );
  text += section(
    'Threat level',
    LEVELS.map((l) => [l, s.threat_level[l]]),
  );
  return text;
}

interface SummarizeOptions {
  file?: string;
  json?: boolean;
  top: string;
}

/** What is wrong with the command line (no addresses, a --top that is not a count), or null. */
export function usageError(source: ListSource, top: string): string | null {
  if (!hasInput(source)) return 'netrep: give addresses as arguments, or --file PATH (- for stdin)\n';
  const n = Number(top);
  if (!Number.isInteger(n) || n < 0)
    return `netrep: --top takes a whole number, not ${JSON.stringify(top)}\n`;
  return null;
}

export function registerSummarizeCommand(program: Command): void {
  program
    .command('summarize')
    .description('count a list of addresses by ASN, country, connection type, flag and threat level')
    .argument('[ips...]', 'IPv4 or IPv6 addresses')
    .option('-f, --file <path>', 'read addresses from a file, one a line (- reads stdin; # starts a comment)')
    .option('--json', 'print the summary as JSON (every row, no --top cut)')
    .option('--top <n>', 'rows per ranked section in the table (0: all)', '10')
    .action(async (ips: string[], opts: SummarizeOptions) => {
      const source = { args: ips, file: opts.file };
      const usage = usageError(source, opts.top);
      if (usage) {
        process.stderr.write(usage);
        process.exitCode = EXIT_USAGE;
        return;
      }
      const top = Number(opts.top);
      const intel = loadIntel();
      if (!intel) {
        process.exitCode = 1;
        return;
      }
      const summary = createSummary(intel.datasetVersion);
      for await (const entry of readList(source)) {
        if (entry.ip) summary.add(intel.lookup(entry.ip));
        else {
          summary.invalid();
          process.stderr.write(invalidLine(entry));
        }
      }
      const s = summary.result();
      const out = createOutput();
      out.write(opts.json ? `${JSON.stringify(s, null, 2)}\n` : formatSummary(s, top));
      await out.flush();
      if (s.invalid > 0) process.exitCode = 1;
    });
}
