/**
 * `netrep lookup [IP...] [--file PATH|-] [--format table|json|csv]`: answers from the newest
 * local snapshot, loaded directly (about a second), then each address in microseconds. json is
 * one line per address (NDJSON), each the body GET /v1/ip/{ip} would send; an invalid address
 * is reported with where it was, and makes the exit code 1.
 */
import { type Command, Option } from 'commander';
import { csvField } from '../core/csv.ts';
import type { IpAnswer, IpAnswerExtended } from '../intel/index.ts';
import {
  createOutput,
  EXIT_USAGE,
  hasInput,
  invalidLine,
  type ListEntry,
  loadIntel,
  readList,
} from './ip-list.ts';
import {
  EXTENDED_CSV_COLUMNS,
  EXTENDED_TABLE_HEAD,
  extendedCsvValues,
  extendedTableCells,
} from './lookup-extended.ts';
import { formatTable } from './table.ts';

type Format = 'table' | 'json' | 'csv';

const CSV_COLUMNS = [
  'ip',
  'prefix',
  'asn',
  'asn_name',
  'country',
  'rir',
  'connection_type',
  'bogon',
  'is_datacenter',
  'is_tor_exit',
  'is_proxy',
  'is_vpn',
  'is_residential',
  'is_mobile',
  'is_ai_crawler',
  'ai_company',
  'cloud_provider',
  'threat_score',
  'threat_level',
] as const;

/** One CSV field of any answer value (RFC 4180, core/csv.ts); null and undefined are empty. */
function csvValue(value: unknown): string {
  return csvField(value === null || value === undefined ? '' : String(value));
}

function csvRow(ip: string, a: IpAnswer | IpAnswerExtended | null, extended = false): string {
  const columns = CSV_COLUMNS.length + (extended ? EXTENDED_CSV_COLUMNS.length : 0);
  if (!a) return `${csvValue(ip)}${','.repeat(columns - 1)}\n`;
  const n = a.netrep;
  const values = [
    a.ip,
    a.prefix,
    a.asn,
    a.asn_name,
    a.country,
    a.rir,
    a.connection_type,
    a.bogon,
    n.is_datacenter,
    n.is_tor_exit,
    n.is_proxy,
    n.is_vpn,
    n.is_residential,
    n.is_mobile,
    n.is_ai_crawler,
    n.ai_company,
    n.cloud_provider,
    a.threat.score,
    a.threat.level,
    ...(extended ? extendedCsvValues(a) : []),
  ];
  return `${values.map(csvValue).join(',')}\n`;
}

/** The flags that are set, in words (cloud and crawler names included). */
export function flagWords(a: IpAnswer): string {
  const n = a.netrep;
  const words: string[] = [];
  if (n.is_tor_exit) words.push('tor');
  if (n.is_vpn) words.push('vpn');
  if (n.is_proxy) words.push('proxy');
  if (n.is_datacenter) words.push(n.cloud_provider ? `cloud:${n.cloud_provider}` : 'datacenter');
  if (n.is_ai_crawler) words.push(n.ai_company ? `crawler:${n.ai_company}` : 'crawler');
  return words.join(',');
}

const TABLE_HEAD = ['IP', 'PREFIX', 'ASN', 'ORGANIZATION', 'CC', 'RIR', 'TYPE', 'FLAGS', 'THREAT'];
const ORG_WIDTH = 30;

function tableRow(ip: string, a: IpAnswer | null): string[] {
  if (!a) return [ip, '-', '-', '(no record)', '-', '-', '-', '', '-'];
  if (a.bogon) return [a.ip, a.prefix, '-', '(bogon)', '-', '-', '-', '', '-'];
  const org = a.asn_name ?? '-';
  return [
    a.ip,
    a.prefix,
    a.asn === null ? '-' : `AS${a.asn}`,
    org.length > ORG_WIDTH ? `${org.slice(0, ORG_WIDTH - 1)}…` : org,
    a.country ?? '-',
    a.rir ?? '-',
    a.connection_type ?? '-',
    flagWords(a),
    `${a.threat.score} ${a.threat.level}`,
  ];
}

interface LookupOptions {
  file?: string;
  format?: Format;
  extended?: boolean;
}

type Output = ReturnType<typeof createOutput>;
type Answer = IpAnswer | IpAnswerExtended | null;

/** Writes the answers in one format: built once per run, called once per address. */
interface AnswerWriter {
  /** An entry that is not an IP address (already reported on stderr). */
  invalid(entry: ListEntry): void;
  answer(entry: ListEntry, address: string, answer: Answer): void;
  end(): void;
}

/** NDJSON: each line the body GET /v1/ip/{ip} would send, or its error body. */
function jsonWriter(out: Output, datasetVersion: number): AnswerWriter {
  const meta = `"meta":{"dataset_version":${datasetVersion}}`;
  return {
    invalid(entry) {
      const message = `${JSON.stringify(entry.text.slice(0, 100))} is not an IP address`;
      out.write(`${errorLine(entry, 'INVALID_IP', message)}\n`);
    },
    answer(entry, address, answer) {
      const line = answer
        ? `{"data":${JSON.stringify(answer)},${meta}}`
        : errorLine(entry, 'NOT_FOUND', `no data found for ${address}`, meta);
      out.write(`${line}\n`);
    },
    end() {},
  };
}

/** CSV with a header line; an invalid entry writes nothing. */
function csvWriter(out: Output, extended: boolean): AnswerWriter {
  const columns = extended ? [...CSV_COLUMNS, ...EXTENDED_CSV_COLUMNS] : CSV_COLUMNS;
  out.write(`${columns.join(',')}\n`);
  return {
    invalid() {},
    answer(_entry, address, answer) {
      out.write(csvRow(address, answer, extended));
    },
    end() {},
  };
}

/** An aligned table, written at the end (its column widths need every row). */
function tableWriter(out: Output, extended: boolean): AnswerWriter {
  const table: string[][] = [extended ? [...TABLE_HEAD, ...EXTENDED_TABLE_HEAD] : [...TABLE_HEAD]];
  return {
    invalid() {},
    answer(_entry, address, answer) {
      table.push([...tableRow(address, answer), ...(extended ? extendedTableCells(answer) : [])]);
    },
    end() {
      out.write(formatTable(table));
    },
  };
}

function answerWriter(format: Format, out: Output, datasetVersion: number, extended: boolean): AnswerWriter {
  if (format === 'json') return jsonWriter(out, datasetVersion);
  if (format === 'csv') return csvWriter(out, extended);
  return tableWriter(out, extended);
}

async function runLookup(args: string[], opts: LookupOptions): Promise<void> {
  const source = { args, file: opts.file };
  if (!hasInput(source)) {
    process.stderr.write('netrep: give addresses as arguments, or --file PATH (- for stdin)\n');
    process.exitCode = EXIT_USAGE;
    return;
  }
  const intel = loadIntel();
  if (!intel) {
    process.exitCode = 1;
    return;
  }
  const format: Format = opts.format ?? (process.stdout.isTTY ? 'table' : 'json');
  const out = createOutput();
  const extended = opts.extended === true;
  const writer = answerWriter(format, out, intel.datasetVersion, extended);
  let invalid = 0;
  for await (const entry of readList(source)) {
    if (!entry.ip) {
      invalid++;
      process.stderr.write(invalidLine(entry));
      writer.invalid(entry);
      continue;
    }
    const answer: Answer = extended ? await intel.lookupExtended(entry.ip) : intel.lookup(entry.ip);
    writer.answer(entry, entry.ip.address, answer);
  }
  writer.end();
  await out.flush();
  if (invalid > 0) process.exitCode = 1;
}

/** The error body the API would send (CONTRACT §2 codes), with where the input was. */
function errorLine(entry: ListEntry, code: string, message: string, meta?: string): string {
  const error = JSON.stringify({ code, message, input: entry.where });
  return `{"error":${error}${meta ? `,${meta}` : ''}}`;
}

export function registerLookupCommand(program: Command): void {
  program
    .command('lookup')
    .description(
      'look up addresses in the newest local snapshot (arguments, --file PATH, or --file - for stdin)',
    )
    .argument('[ips...]', 'IPv4 or IPv6 addresses')
    .option('-f, --file <path>', 'read addresses from a file, one a line (- reads stdin; # starts a comment)')
    .addOption(
      new Option(
        '--format <format>',
        'table, json (one object a line) or csv; default: table on a terminal, else json',
      ).choices(['table', 'json', 'csv']),
    )
    .option(
      '--extended',
      'the extended answer (geolocation, RPKI, ownership, reputation lists): json gives it whole, csv and table add columns; slower',
    )
    .action(async (ips: string[], opts: LookupOptions) => {
      await runLookup(ips, opts);
    });
}
