import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { realFeedRows } from '../../test/helpers/feeds-real-data.ts';
import { collect, tempDir } from '../../test/helpers/feeds-tools.ts';
import { sortFeedRows } from './sort-rows.ts';
import type { FeedRow } from './types.ts';

const tmp = tempDir('sort');
afterAll(tmp.cleanup);

const row = (network: string, extra: Partial<FeedRow> = {}): FeedRow => ({
  network,
  kind: 'k',
  source: 's',
  first_seen: '2026-01-05T00:00:00Z',
  last_seen: '2026-01-05T00:00:00Z',
  ...extra,
});

describe('sortFeedRows', () => {
  it('merges rows of the same network: first in total order wins, seen dates widen', async () => {
    const rows = [
      row('10.0.0.1/32', { source: 'z', first_seen: '2026-01-01T00:00:00Z' }),
      row('10.0.0.1', { source: 'a', last_seen: '2026-01-09T00:00:00Z' }),
      row('10.0.0.0/8'),
    ];
    const out = (await collect(sortFeedRows(rows))).map((c) => c.row);
    expect(out).toEqual([
      row('10.0.0.0/8'),
      row('10.0.0.1', { source: 'a', first_seen: '2026-01-01T00:00:00Z', last_seen: '2026-01-09T00:00:00Z' }),
    ]);
    const reversed = (await collect(sortFeedRows([...rows].reverse()))).map((c) => c.row);
    expect(reversed).toEqual(out);
  });

  it('spilled runs (external merge sort) give the same rows as the in-memory sort, and clean up', async () => {
    const rows = realFeedRows('tor_exits');
    const inMemory = await collect(sortFeedRows(rows));
    const spilled = await collect(sortFeedRows(rows, { spillDir: tmp.dir, runSize: 500 }));
    expect(spilled.map((c) => c.row)).toEqual(inMemory.map((c) => c.row));
    expect(spilled.map((c) => c.key)).toEqual(inMemory.map((c) => c.key));
    expect(inMemory.length).toBeLessThan(rows.length); // the two Tor lists overlap
    expect(readdirSync(tmp.dir)).toEqual([]);
  });

  it('removes its spill directory when the input throws midway', async () => {
    async function* failing() {
      for (let i = 0; i < 30; i++) yield row(`10.0.0.${i}`);
      yield row('not an ip');
    }
    await expect(collect(sortFeedRows(failing(), { spillDir: tmp.dir, runSize: 10 }))).rejects.toThrow(
      /not an IP/,
    );
    expect(readdirSync(tmp.dir)).toEqual([]);
  });
});
