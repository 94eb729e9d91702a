import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { formatAddr } from './addr.ts';
import { parseFireholNetset, parseIpPortList, parseSpysProxyList } from './proxy-list.ts';

const spysText = () => readFileSync(sharedDataPath('proxy/clarketm/proxy-list.txt'));
const rawText = () => readFileSync(sharedDataPath('proxy/clarketm/proxy-list-raw.txt'));

describe('open proxy lists', () => {
  it('reads the spys.me list: 400 proxies with anonymity, country, HTTPS, the header date', () => {
    const r = parseSpysProxyList(spysText());
    expect(r.rejected).toEqual([]);
    expect(r.rows).toHaveLength(400);
    expect(r.listedAt).toBe('2023-03-24T04:58:01.000Z');
    const first = r.rows[0];
    expect(first && formatAddr(first.family, first.start)).toBe('170.239.207.241');
    expect(first).toMatchObject({ port: 999, country: 'CO', anonymity: 'transparent', https: true });
    expect(r.rows[1]).toMatchObject({ port: 80, country: 'HK', anonymity: 'anonymous', https: false });
    // Counted from the file's own column with awk: N 244, A 59, H 97 (with and without -S/!).
    const count = (a: string) => r.rows.filter((x) => x.anonymity === a).length;
    expect([count('transparent'), count('anonymous'), count('elite')]).toEqual([244, 59, 97]);
  });

  it('the raw IP:PORT list names the same 400 addresses as the spys.me list', () => {
    const raw = parseIpPortList(rawText());
    expect(raw.rejected).toEqual([]);
    expect(raw.rows).toHaveLength(400);
    expect(raw.rows.every((x) => x.anonymity === null && x.port !== null)).toBe(true);
    const key = (x: { family: 4 | 6; start: bigint; port: number | null }) =>
      `${formatAddr(x.family, x.start)}:${x.port}`;
    expect(raw.rows.map(key).sort()).toEqual(parseSpysProxyList(spysText()).rows.map(key).sort());
  });

  it('refuses broken lines with reasons and keeps IPv6 and bare addresses', () => {
    const r = parseIpPortList(
      '1.2.3.4:8080\n1.2.3.4:8080\n1.2.3.4:0\n1.2.3.4:70000\n300.1.1.1:80\n[2001:db8::1]:3128\n5.6.7.8\nhost:80\n',
    );
    expect(r.rows.map((x) => [formatAddr(x.family, x.start), x.port])).toEqual([
      ['1.2.3.4', 8080],
      ['2001:db8::1', 3128],
      ['5.6.7.8', null],
    ]);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'duplicate proxy',
      'not an IP:PORT',
      'not an IP:PORT',
      'not an IP:PORT',
      'not an IP:PORT',
    ]);
    const s = parseSpysProxyList(
      'Proxy list updated at Fri, 27 Nov 26 10:00:00 +0000\n1.2.3.4:80 US-H + \n1.2.3.x:80 US-H +\n9.9.9.9:80 US-Q +\nfooter text\n',
    );
    expect(s.rows).toHaveLength(1);
    expect(s.rejected.map((x) => x.line)).toEqual([3, 4]);
    expect(s.listedAt).toBe('2026-11-27T10:00:00.000Z');
  });

  it('reads a FireHOL netset: header date, addresses and CIDRs', () => {
    const r = parseFireholNetset(
      '#\n# firehol_proxies\n# This File Date : Fri Nov 27 10:12:43 UTC 2026\n# Entries : 3\n1.2.3.4\n5.6.7.0/24\nbad\n',
    );
    expect(r.listedAt).toBe('2026-11-27T10:12:43.000Z');
    expect(r.rows.map((x) => [formatAddr(x.family, x.start), formatAddr(x.family, x.end)])).toEqual([
      ['1.2.3.4', '1.2.3.4'],
      ['5.6.7.0', '5.6.7.255'],
    ]);
    expect(r.rejected).toHaveLength(1);
  });
});
