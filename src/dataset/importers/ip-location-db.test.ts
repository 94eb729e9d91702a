import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoPath } from '../../../test/helpers/shared-data.ts';
import { parseAsnCsv, parseCountryCsv, splitCsvLine } from './ip-location-db.ts';

const pkg = (...p: string[]) => repoPath('node_modules/@ip-location-db', ...p);

describe('ip-location-db CSV', () => {
  it('parses the real IPv4 ASN file completely', () => {
    const text = readFileSync(pkg('asn/asn-ipv4.csv'), 'utf8');
    const { rows, rejected } = parseAsnCsv(text);
    expect(rejected).toEqual([]);
    expect(rows.length).toBe(text.trimEnd().split('\n').length);
    expect(rows[0]).toEqual({
      family: 4,
      start: 0x01000000n,
      end: 0x010000ffn,
      asn: 13335,
      org: 'Cloudflare, Inc.',
    });
  });

  it('parses the real IPv6 country file; its one conflicting duplicate range keeps the first row', () => {
    const { rows, rejected } = parseCountryCsv(
      readFileSync(pkg('geo-whois-asn-country/geo-whois-asn-country-ipv6.csv')),
    );
    expect(rejected).toEqual([
      {
        line: 25014,
        text: '2400:8e20::,2400:8e20:ffff:ffff:ffff:ffff:ffff:ffff,FR',
        reason: 'duplicate range',
      },
    ]);
    expect(rows.find((r) => r.start === 0x24008e20n << 96n)?.country).toBe('JP');
    expect(rows.length).toBeGreaterThan(200_000);
    expect(rows.every((r) => r.family === 6 && r.start <= r.end && /^[A-Z]{2}$/.test(r.country))).toBe(true);
  });

  it('rejects hostile lines with reasons and keeps the good ones', () => {
    const text = [
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."', // duplicate
      '1.0.4.0,1.0.7', // truncated
      '1.0.8.0,1.0.8.255,abc,Org', // bad ASN
      '1.0.9.255,1.0.9.0,1,Backwards', // start after end
      '1.0.10.0,2001::1,1,Mixed', // family mix
      '1.0.11.0,1.0.11.255,5,"unterminated', // bad quote
      '1.0.12.0,1.0.12.255,7,"He said ""hi"""',
      '1.0.13.0,1.0.13.255,8,Caf\u00e9 Org', // Latin-1 decoded char survives
      '214.95.0.0,215.0.255.255,721,Overlap Big',
      '215.0.0.0,215.0.0.255,5,Overlap Small', // overlap is kept, build decides
    ].join('\r\n'); // CRLF and no final newline
    const { rows, rejected } = parseAsnCsv(text);
    expect(rows.map((r) => r.org)).toEqual([
      'Cloudflare, Inc.',
      'He said "hi"',
      'Caf\u00e9 Org',
      'Overlap Big',
      'Overlap Small',
    ]);
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [2, 'duplicate range'],
      [3, 'expected 4 fields, got 2'],
      [4, 'invalid ASN'],
      [5, 'start after end'],
      [6, 'start and end differ in family'],
      [7, 'bad quoting'],
    ]);
  });

  it('rejects bad country codes and bad addresses', () => {
    const { rows, rejected } = parseCountryCsv(
      '1.0.0.0,1.0.0.255,au\n1.0.1.0,1.0.1.255,XYZ\n1.0.2.0,1.0.2.256,US\n01.0.3.0,1.0.3.255,US',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.country).toBe('AU');
    expect(rejected.map((r) => r.reason)).toEqual([
      'invalid country code',
      'invalid address',
      'invalid address',
    ]);
  });

  it('splits quoted CSV fields', () => {
    expect(splitCsvLine('a,"b,c",d')).toEqual(['a', 'b,c', 'd']);
    expect(splitCsvLine('a,"b"x')).toBeNull();
  });
});

describe('duplicates in unsorted input', () => {
  it('are found even when the repeat comes after rows with a higher start', () => {
    const r = parseCountryCsv(
      '5.0.0.0,5.0.0.255,DE\n9.0.0.0,9.0.0.255,FR\n5.0.0.0,5.0.0.255,IT\n1.0.0.0,1.0.0.255,AU\n9.0.0.0,9.0.0.255,ES\n',
    );
    expect(r.rows.map((x) => x.country)).toEqual(['DE', 'FR', 'AU']);
    expect(r.rejected.map((x) => x.line)).toEqual([3, 5]);
  });
});
