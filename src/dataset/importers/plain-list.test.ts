import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parsePlainList } from './plain-list.ts';

describe('plain address lists', () => {
  it('reads Akamai CIDRs with trailing TABs and no final newline', () => {
    const text = readFileSync(sharedDataPath('cloud/akamai/akamai_ipv4_CIDRs.txt'), 'utf8');
    expect(text.endsWith('\n')).toBe(false);
    const { rows, rejected } = parsePlainList(text);
    expect(rejected).toEqual([]);
    expect(rows).toHaveLength(19);
  });

  it('reads Cloudflare v6, Tor bulk list, DuckDuckBot and the UCE L3 list (stray $NS rejected)', () => {
    expect(
      parsePlainList(readFileSync(sharedDataPath('cloud/cloudflare/ips-v6.txt'))).rows.every(
        (r) => r.family === 6,
      ),
    ).toBe(true);
    const tor = parsePlainList(readFileSync(sharedDataPath('tor/torbulkexitlist.txt')));
    expect(tor.rejected).toEqual([]);
    expect(tor.rows.length).toBeGreaterThan(1000);
    expect(
      parsePlainList(readFileSync(sharedDataPath('bots/duckduckgo/duckduckbot-ipv4.txt'))).rows.every(
        (r) => r.prefixLength === 32,
      ),
    ).toBe(true);
    const l3 = parsePlainList(
      readFileSync(sharedDataPath('dnsbl/uceprotect/uceprotect-3-NetworkRanges.derived.txt')),
    );
    expect(l3.rejected.map((r) => r.text)).toContain('$NS');
    expect(l3.rows.length).toBeGreaterThan(100_000);
  });

  it('rejects hostile lines', () => {
    const { rows, rejected } = parsePlainList(
      '1.2.3.0/24\n1.2.3.0/24\n300.1.1.1\n1.2.3.4/33\n2001:db8::/129\n10.0.0.1/8 # comment\n1.2.3.\n\xe9t\xe9\n::1',
    );
    expect(rows.map((r) => r.prefixLength)).toEqual([24, 8, 128]);
    expect(rows[1]?.start).toBe(0x0a000000n); // host bits cleared
    expect(rejected.map((r) => r.reason)).toEqual([
      'duplicate range',
      'not an IP address or CIDR',
      'not an IP address or CIDR',
      'not an IP address or CIDR',
      'not an IP address or CIDR',
      'not an IP address or CIDR',
    ]);
  });
});
