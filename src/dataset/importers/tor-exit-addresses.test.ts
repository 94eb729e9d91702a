import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseTorExitAddresses } from './tor-exit-addresses.ts';

describe('Tor exit-addresses', () => {
  it('parses the real file: one row per distinct exit address', () => {
    const { rows, rejected } = parseTorExitAddresses(readFileSync(sharedDataPath('tor/exit-addresses')));
    expect(rejected).toEqual([]);
    // 2378 ExitAddress lines name 1174 distinct addresses: the same set as torbulkexitlist.
    const bulk = new Set(readFileSync(sharedDataPath('tor/torbulkexitlist.txt'), 'utf8').trim().split('\n'));
    expect(rows.length).toBe(bulk.size);
    expect(rows[0]).toMatchObject({ family: 4, start: 3119632616n, seenAt: '2024-03-12T13:19:56Z' });
    // 185.241.208.232 appears under 8 relays: the latest sighting is kept.
  });

  it('rejects truncated and orphan lines', () => {
    const text = [
      'ExitAddress 1.2.3.4 2024-03-12 08:10:51', // before any ExitNode
      'ExitNode FE39F07EBE7870DCE124AB30DF3ABD0700A43F75',
      'Published 2024-03-11',
      'ExitAddress 1.2.3.999 2024-03-12 08:10:51',
      'ExitAddress 5.6.7.8 2024-03-12',
      'ExitAddress 5.6.7.9 2024-03-12 08:10:51',
      'ExitNode nothex',
      'Garbage here',
    ].join('\n');
    const { rows, rejected } = parseTorExitAddresses(text);
    expect(rows.map((r) => r.start)).toEqual([0x05060709n]);
    expect(rejected.map((r) => r.reason)).toEqual([
      'ExitAddress outside an ExitNode block',
      'invalid timestamp',
      'invalid address',
      'invalid timestamp',
      'invalid fingerprint',
      'unknown keyword',
    ]);
  });
});
