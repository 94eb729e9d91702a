import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryUdp, type Rbldnsd, startRbldnsd, tempDir } from '../../test/helpers/dnsbl-tools.ts';
import { intToIpv4, normalizeIp } from '../core/ip.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName } from './query-name.ts';
import { type DnsblServer, startDnsblServer } from './server.ts';
import type { DnsblListing } from './types.ts';
import { writeZoneExport, type ZoneExportOptions } from './zone-export.ts';

const execFileP = promisify(execFile);
const ZONE = 'bl.netrep.test';
const url = (ip: string) => `http://127.0.0.1:8080/v1/public/blocklist/ip/${ip}`;
const CODES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.10'];

/** Seeded listings: 5,000 IPv4 and 200 IPv6, with awkward reasons. */
function makeListings(): DnsblListing[] {
  const [v4, v6] = fc.sample(
    fc.tuple(
      fc.uniqueArray(fc.integer({ min: 0x01000000, max: 0xdfffffff }), { minLength: 5000, maxLength: 5000 }),
      // Unique after normalization ('::' and '0::' are one address), as in the blocklist store.
      fc.uniqueArray(fc.ipV6(), { minLength: 200, maxLength: 200, selector: (ip) => normalizeIp(ip) }),
    ),
    { seed: 5782, numRuns: 1 },
  )[0] as [number[], string[]];
  const reasons = ['spam', 'costs $$5 "quoted" \\ back', 'line\nbreak', 'ünïcode', ''];
  const v4Listings = v4.map((n, i) => ({
    ip: intToIpv4(n),
    returnCode: CODES[i % 4] as string,
    reason: reasons[i % 5] as string,
  }));
  const v6Listings = v6.map((ip, i) => ({ ip, returnCode: CODES[i % 4] as string, reason: `v6 ${i}` }));
  return [...v4Listings, ...v6Listings];
}

async function exportTo(file: string, listings: DnsblListing[], format: 'rbldnsd' | 'bind') {
  const options: ZoneExportOptions = {
    format,
    zone: ZONE,
    lookupUrl: url,
    now: Date.parse('2026-06-01T00:00:00Z'),
  };
  const out = fs.createWriteStream(file);
  const summary = await writeZoneExport(listings, options, out);
  await new Promise<void>((r) => out.end(() => r()));
  return summary;
}

describe('zone export', () => {
  const listings = makeListings();
  const tmp = tempDir('netrep-dnsbl-');
  let rbldnsd: Rbldnsd;
  let netrep: DnsblServer;

  beforeAll(async () => {
    const summary = await exportTo(path.join(tmp.dir, 'zone.rbldnsd'), listings, 'rbldnsd');
    expect(summary.listings).toBe(listings.length);
    rbldnsd = await startRbldnsd(ZONE, path.join(tmp.dir, 'zone.rbldnsd'));
    netrep = await startDnsblServer({
      zone: ZONE,
      listen: '127.0.0.1:0',
      index: createListingIndex(listings),
      lookupUrl: url,
    });
  });
  afterAll(async () => {
    await rbldnsd?.stop();
    await netrep?.close();
    tmp.remove();
  });

  it('rbldnsd serving the export gives the same rcode and A records as netrep for 10,000 names', async () => {
    // Every listed name, neighbours that are not listed, and the RFC 5782 test entries.
    const ips: string[] = listings.map((l) => l.ip);
    for (let i = 0; ips.length < 9996; i++) {
      const l = listings[i % listings.length] as DnsblListing;
      if (l.ip.includes('.')) {
        const parts = l.ip.split('.').map(Number);
        ips.push(`${parts[0]}.${parts[1]}.${parts[2]}.${((parts[3] as number) + 1 + (i % 7)) % 256}`);
      } else {
        ips.push(l.ip.replace(/[0-9a-f]$/, (d) => ((Number.parseInt(d, 16) + 1) % 16).toString(16)));
      }
    }
    ips.push('127.0.0.2', '127.0.0.1', '::ffff:7f00:2', '::ffff:7f00:1');
    const questions = ips.map((ip) => ({ name: ipToQueryName(ip, ZONE) as string, type: 'A' as const }));
    expect(questions).toHaveLength(10_000);
    const [a, b] = await Promise.all([
      queryUdp(rbldnsd.port, questions, 20_000),
      queryUdp(netrep.udpPort, questions, 20_000),
    ]);
    const summary = (x: typeof a) =>
      x.map(
        (r) =>
          `${r.rcode} ${r.answers
            .map((ans) => ('data' in ans ? String(ans.data) : ''))
            .sort()
            .join(',')}`,
      );
    const ra = summary(a);
    const rb = summary(b);
    const diffs = ips
      .map((ip, i) => (ra[i] === rb[i] ? '' : `${ip}: rbldnsd ${ra[i]} netrep ${rb[i]}`))
      .filter(Boolean);
    expect(diffs.slice(0, 10)).toEqual([]);
    const listedCount = rb.filter((s) => s.startsWith('NOERROR')).length;
    expect(listedCount).toBeGreaterThanOrEqual(listings.length);
    expect(rb.filter((s) => s.startsWith('NXDOMAIN')).length).toBeGreaterThan(4000);
    expect(ra[9996]).toBe('NOERROR 127.0.0.2');
    expect(ra[9997]?.startsWith('NXDOMAIN')).toBe(true);
  });

  it('writes a BIND zone file that named-checkzone accepts with every record', async () => {
    const file = path.join(tmp.dir, 'zone.bind');
    await exportTo(file, listings, 'bind');
    const { stdout } = await execFileP('named-checkzone', ['-i', 'local', ZONE, file]);
    expect(stdout).toContain('OK');
    // Dump the parsed zone and count what BIND loaded: the SOA, one NS, A+TXT per listing and test entry.
    const { stdout: dump } = await execFileP('named-checkzone', ['-D', '-o', '-', ZONE, file]);
    const lines = dump.split('\n').filter((l) => l.length > 0);
    expect(lines.filter((l) => /\sIN\sA\s/.test(l))).toHaveLength(listings.length + 2);
    expect(lines.filter((l) => /\sIN\sTXT\s/.test(l))).toHaveLength(listings.length + 2);
    expect(lines.find((l) => l.startsWith('2.0.0.127.'))).toMatch(/A\s+127\.0\.0\.2$/);
    expect(dump).toContain('"costs $$5 \\"quoted\\" \\\\ back; http');
  });

  it('keeps rbldnsd lines intact for reasons with newlines and dollars', () => {
    const text = fs.readFileSync(path.join(tmp.dir, 'zone.rbldnsd'), 'utf8');
    expect(text).toContain(':costs $$$$5 "quoted" \\ back; http');
    expect(text).toContain(':line break; http');
    expect(text).not.toMatch(/^line$/m);
  });

  it('skips rows that are not addresses and the RFC 5782 addresses', async () => {
    const summary = await exportTo(
      path.join(tmp.dir, 'small.bind'),
      [
        { ip: 'not-an-ip', returnCode: '127.0.0.2', reason: 'x' },
        { ip: '127.0.0.1', returnCode: '127.0.0.2', reason: 'x' },
        { ip: '10.0.0.1', returnCode: '127.0.0.3', reason: 'x' },
      ],
      'bind',
    );
    expect(summary).toMatchObject({ listings: 1, skipped: 2 });
  });
});
