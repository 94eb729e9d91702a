/**
 * The sending sources view as CSV (RFC 4180: CRLF line ends, a field with a comma, quote, CR or
 * LF quoted, quotes doubled). A field a spreadsheet would read as a formula (it starts with =, +,
 * -, @, tab or CR) gets a leading apostrophe: reporter names and ASN names come from outside.
 */
import { csvField } from '../core/csv.ts';
import type { DomainSources, IpSource, OrganizationSource } from './view-types.ts';

type Cell = string | number | null;

export function csvCell(value: Cell): string {
  if (value === null) return '';
  let text = String(value);
  // A negative number is no formula; text is checked as written.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return csvField(text);
}

const SUMS = [
  'messages',
  'dmarc_pass',
  'dmarc_fail',
  'spf_aligned_pass',
  'dkim_aligned_pass',
  'disposition_none',
  'disposition_quarantine',
  'disposition_reject',
  'disposition_pass',
] as const;

function sumCells(r: IpSource | OrganizationSource): Cell[] {
  const d = r.dispositions;
  return [
    r.messages,
    r.dmarc_pass,
    r.dmarc_fail,
    r.spf_aligned_pass,
    r.dkim_aligned_pass,
    d.none,
    d.quarantine,
    d.reject,
    d.pass,
  ];
}

const IP_HEADER = [
  'ip',
  ...SUMS,
  'reporters',
  'asn',
  'asn_name',
  'country',
  'connection_type',
  'cloud_provider',
  'threat_score',
  'threat_level',
  'reputation_score',
  'reputation_level',
];

const ORG_HEADER = [
  'asn',
  'asn_name',
  'ip_count',
  ...SUMS,
  'reporters',
  'countries',
  'cloud_providers',
  'threat_score_max',
  'reputation_score_min',
];

/** Lists in one cell, joined with `; ` (organisation names may hold spaces). */
const list = (values: string[]) => values.join('; ');

function ipCells(r: IpSource): Cell[] {
  return [
    r.ip,
    ...sumCells(r),
    list(r.reporters),
    r.asn,
    r.asn_name,
    r.country,
    r.connection_type,
    r.cloud_provider,
    r.threat_score,
    r.threat_level,
    r.reputation_score,
    r.reputation_level,
  ];
}

function orgCells(r: OrganizationSource): Cell[] {
  return [
    r.asn,
    r.asn_name,
    r.ip_count,
    ...sumCells(r),
    list(r.reporters),
    list(r.countries),
    list(r.cloud_providers),
    r.threat_score_max,
    r.reputation_score_min,
  ];
}

/** The header line and one line per source of the page, each ended by CRLF. */
export function sourcesCsv(answer: DomainSources): string {
  const lines =
    answer.group === 'ip'
      ? [IP_HEADER, ...(answer.sources as IpSource[]).map(ipCells)]
      : [ORG_HEADER, ...(answer.sources as OrganizationSource[]).map(orgCells)];
  return lines.map((cells) => `${cells.map(csvCell).join(',')}\r\n`).join('');
}
