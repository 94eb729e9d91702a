/**
 * The view parameters and the CSV writer (issue #38 item 2): periods from given and default days,
 * refused days and domains with the message they carry, CSV cells quoted as RFC 4180 says and
 * never read as a formula, read back with csv-parse. The views' sums are checked over HTTP on both
 * stores by ../http/routes/email-report-views.test.ts.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import { periodOf, viewDomain } from './view-params.ts';
import type { DomainSources, IpSource, OrganizationSource } from './view-types.ts';
import { csvCell, sourcesCsv } from './views-csv.ts';

const day = (text: string) => Date.parse(`${text}T00:00:00Z`);
const NOW = Date.parse('2026-06-15T12:00:00Z');
const text = (p: { from: number; to: number }) =>
  [p.from, p.to].map((ms) => new Date(ms).toISOString().slice(0, 10));

function refusal(f: () => unknown): [string, string] {
  try {
    f();
  } catch (err) {
    if (err instanceof AppError) return [err.code, err.message];
    throw err;
  }
  throw new Error('not refused');
}

describe('periodOf', () => {
  const latest = Date.parse('2026-03-10T17:30:00Z');

  it('takes given days and fills missing ones from the latest report', () => {
    expect(text(periodOf({ from: '2026-01-01', to: '2026-01-31' }, latest, NOW))).toEqual([
      '2026-01-01',
      '2026-01-31',
    ]);
    expect(text(periodOf({}, latest, NOW))).toEqual(['2026-02-09', '2026-03-10']);
    expect(text(periodOf({}, null, NOW))).toEqual(['2026-05-17', '2026-06-15']);
    expect(text(periodOf({ to: '2026-01-30' }, latest, NOW))).toEqual(['2026-01-01', '2026-01-30']);
    expect(text(periodOf({ from: '2026-03-01' }, latest, NOW))).toEqual(['2026-03-01', '2026-03-10']);
    // `from` after the latest report: the period is that one day; long before it: 366 days at most.
    expect(text(periodOf({ from: '2026-04-01' }, latest, NOW))).toEqual(['2026-04-01', '2026-04-01']);
    expect(text(periodOf({ from: '2020-01-01' }, latest, NOW))).toEqual(['2020-01-01', '2020-12-31']);
    expect(text(periodOf({ from: '2024-01-01', to: '2024-12-31' }, latest, NOW))).toEqual([
      '2024-01-01',
      '2024-12-31',
    ]);
  });

  it('refuses days that are not dates, out of range, reversed or too far apart', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ from: '2026-02-29' }, /^from must be a date as YYYY-MM-DD, not "2026-02-29"$/],
      [{ to: '2026-13-01' }, /^to must be a date/],
      [{ from: '20260101' }, /^from must be a date/],
      [{ from: ' 2026-01-01' }, /^from must be a date/],
      [{ from: '2026-01-01T00:00' }, /^from must be a date/],
      [{ from: '١٢٣٤-٠١-٠١' }, /^from must be a date/],
      [{ to: '2101-01-01' }, /^to must be between 1970-01-01 and 2100-12-31$/],
      [{ from: '2026-02-02', to: '2026-02-01' }, /^from \(2026-02-02\) is after to \(2026-02-01\)$/],
      [
        { from: '2025-01-01', to: '2026-01-02' },
        /^the period from 2025-01-01 to 2026-01-02 is longer than 366 days$/,
      ],
    ];
    for (const [q, message] of cases) {
      const [code, text] = refusal(() => periodOf(q, latest, NOW));
      expect(code, JSON.stringify(q)).toBe('INVALID_PARAMETER');
      expect(text, JSON.stringify(q)).toMatch(message);
    }
  });

  it('counts a day from its UTC midnight', () => {
    expect(periodOf({ from: '2026-01-01', to: '2026-01-01' }, null, NOW)).toEqual({
      from: day('2026-01-01'),
      to: day('2026-01-01'),
    });
  });
});

describe('viewDomain', () => {
  it('lower-cases and drops one trailing dot', () => {
    expect(viewDomain('Example.COM.')).toBe('example.com');
    expect(viewDomain('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(viewDomain(`${'a'.repeat(63)}.com`)).toBe(`${'a'.repeat(63)}.com`);
  });

  it('refuses what is not a domain name', () => {
    for (const raw of [
      '',
      '.',
      'a..b',
      '-a.com',
      'a-.com',
      `${'a'.repeat(64)}.com`,
      `${'a.'.repeat(127)}aa`,
      "x' or 1=1--",
      'a%b.com',
      'a_b.com',
      'exa mple.com',
      '\u202eexample.com',
      'ＥＸＡＭＰＬＥ.com',
    ])
      expect(refusal(() => viewDomain(raw))[0], raw).toBe('INVALID_DOMAIN');
  });
});

describe('sources CSV', () => {
  it('quotes per RFC 4180 and disarms formulas', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) expect(csvCell(`${lead}1+1`)).toMatch(/^"?'/);
    expect(csvCell('=SUM(A1,B1)')).toBe(`"'=SUM(A1,B1)"`);
  });

  const sums = {
    messages: 3,
    dmarc_pass: 2,
    dmarc_fail: 1,
    spf_aligned_pass: 1,
    dkim_aligned_pass: 2,
    dispositions: { none: 2, quarantine: 1, reject: 0, pass: 0 },
  };
  const ip: IpSource = {
    ip: '192.0.2.1',
    ...sums,
    reporters: ['@evil', 'Org, "Quoted"'],
    asn: 64500,
    asn_name: '=cmd|" /C calc"!A0',
    country: 'US',
    connection_type: null,
    cloud_provider: null,
    threat_score: 0,
    threat_level: 'low',
    reputation_score: null,
    reputation_level: null,
  };
  const answer = (
    group: 'ip' | 'organization',
    sources: IpSource[] | OrganizationSource[],
  ): DomainSources => ({
    domain: 'example.com',
    period: { from: '2026-01-01', to: '2026-01-31' },
    group,
    sources,
    total: sources.length,
    limit: 50,
    offset: 0,
  });

  it('writes the IP rows, read back as the same values', () => {
    const csv = sourcesCsv(answer('ip', [ip]));
    expect(csv.endsWith('\r\n')).toBe(true);
    const [row] = parse(csv, { columns: true }) as Record<string, string>[];
    expect(row).toMatchObject({
      ip: '192.0.2.1',
      messages: '3',
      disposition_quarantine: '1',
      reporters: `'@evil; Org, "Quoted"`,
      asn: '64500',
      asn_name: `'=cmd|" /C calc"!A0`,
      connection_type: '',
      reputation_score: '',
    });
  });

  it('writes the organisation rows with their lists', () => {
    const org: OrganizationSource = {
      asn: null,
      asn_name: null,
      ip_count: 2,
      ...sums,
      reporters: ['a.example', 'b.example'],
      countries: ['DE', 'US'],
      cloud_providers: [],
      threat_score_max: 10,
      reputation_score_min: 55,
    };
    const rows = parse(sourcesCsv(answer('organization', [org])), { columns: true }) as Record<
      string,
      string
    >[];
    expect(rows).toEqual([
      expect.objectContaining({
        asn: '',
        ip_count: '2',
        countries: 'DE; US',
        cloud_providers: '',
        reputation_score_min: '55',
      }),
    ]);
  });
});
