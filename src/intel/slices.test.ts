import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/stores.ts';
import { systemClock } from '../core/clock.ts';
import { parseIp } from '../core/ip.ts';
import { buildDataset, type Snapshot } from '../dataset/index.ts';
import { createIntel, createIntelSlices } from './intel.ts';
import { runSlices, runSlicesYielding } from './slices.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('sliced build of the lookup tables', () => {
  const dataDir = tempDir('netrep-slices-');
  let snapshot: Snapshot;
  beforeAll(async () => {
    const npmDir = path.join(here, '../dataset/fixtures/npm-a');
    snapshot = (await buildDataset({ dataDir, clock: systemClock, npmDir })).snapshot;
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('on a reload the event loop turns between slices, and the answers are those of createIntel', async () => {
    // Counts turns of the event loop: an immediate that schedules itself runs once a turn.
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    // Budget 0: a turn of the loop after every slice (the block index alone has 512).
    const yielded = await runSlicesYielding(createIntelSlices({ snapshot }), 0);
    counting = false;
    expect(turns).toBeGreaterThan(500);
    const whole = createIntel({ snapshot });
    const through = runSlices(createIntelSlices({ snapshot }));
    for (const text of [
      '8.8.8.8',
      '1.1.1.1',
      '10.0.0.1',
      '2001:4860:4860::8888',
      '2a00:1450::1',
      '203.0.113.9',
    ]) {
      const ip = parseIp(text);
      if (!ip) throw new Error(`not an address: ${text}`);
      expect(yielded.lookup(ip), text).toEqual(whole.lookup(ip));
      expect(through.lookup(ip), text).toEqual(whole.lookup(ip));
    }
  });
});
