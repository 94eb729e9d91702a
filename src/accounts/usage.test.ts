/**
 * The usage recorder against a plain count: random keys, days and flushes (some failing, whose
 * counts must come back) write exactly the requests recorded, per key and day, with the last
 * use of each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, utcDay } from '../core/clock.ts';
import { createUsageRecorder } from './usage.ts';

type Entry = { keyId: number; day: string; requests: number; lastUsedAt: number };

describe('usage recorder', () => {
  it('writes every recorded request once, whatever the order of keys, days and flushes', async () => {
    const step = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({ key: fc.integer({ min: 1, max: 3 }), day: fc.integer({ min: 0, max: 2 }) }),
      },
      { weight: 1, arbitrary: fc.constantFrom('flush', 'failing flush') },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        let now = 1_700_000_000_000;
        let fail = false;
        const written = new Map<string, Entry>();
        const recorder = createUsageRecorder(
          {
            async addUsage(entries) {
              if (fail) throw new Error('store down');
              for (const e of entries) {
                const k = `${e.keyId}|${e.day}`;
                const cur = written.get(k);
                written.set(k, {
                  ...e,
                  requests: (cur?.requests ?? 0) + e.requests,
                  lastUsedAt: Math.max(cur?.lastUsedAt ?? 0, e.lastUsedAt),
                });
              }
            },
          },
          () => now,
          3_600_000,
        );
        const expected = new Map<string, Entry>();
        for (const s of steps) {
          if (typeof s === 'string') {
            fail = s === 'failing flush';
            await recorder.flush();
            fail = false;
            continue;
          }
          now = 1_700_000_000_000 + s.day * DAY_MS + (now % 1000) + 1;
          recorder.record(s.key);
          const k = `${s.key}|${utcDay(now)}`;
          const cur = expected.get(k);
          expected.set(k, {
            keyId: s.key,
            day: utcDay(now),
            requests: (cur?.requests ?? 0) + 1,
            lastUsedAt: now,
          });
        }
        await recorder.close();
        expect(new Map([...written].sort())).toEqual(new Map([...expected].sort()));
      }),
      { numRuns: 300 },
    );
  });
});
