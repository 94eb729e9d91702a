import { describe, expect, it } from 'vitest';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { createTrapSet, TRAP_WINDOW_MS } from './trap-set.ts';

const NOW = Date.parse('2026-06-15T12:00:00Z');

describe('trap set', () => {
  it('adds ingested hits inside the 30-day window at once, and leaves older ones out', () => {
    const clock = createManualClock(NOW);
    let reads = 0;
    const read = async () => {
      reads++;
      return [];
    };
    const set = createTrapSet({ read, clock, refreshMs: 0 });
    set.add([
      { ip: '192.0.2.1', observedAt: NOW - DAY_MS },
      { ip: '192.0.2.2', observedAt: NOW - TRAP_WINDOW_MS - 1 },
    ]);
    expect([set.has('192.0.2.1'), set.has('192.0.2.2')]).toEqual([true, false]);
    // Adding costs no store read: a stream of ingests is not a stream of full scans.
    expect(reads).toBe(0);
  });

  it('a re-read replaces the set (hits that left the window go) but keeps what was added during it', async () => {
    const clock = createManualClock(NOW);
    let release: (ips: string[]) => void = () => {};
    const set = createTrapSet({
      read: () => new Promise<string[]>((resolve) => (release = resolve)),
      clock,
      refreshMs: 0,
    });
    set.add([{ ip: '192.0.2.9', observedAt: NOW - 29 * DAY_MS }]);
    const refreshing = set.refresh();
    // Stored after the read began, so the read may not see it.
    set.add([{ ip: '198.51.100.7', observedAt: NOW }]);
    release(['203.0.113.5']);
    await refreshing;
    expect(['192.0.2.9', '198.51.100.7', '203.0.113.5'].map((ip) => set.has(ip))).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('keeps the last set when a re-read fails, and reports the error', async () => {
    const clock = createManualClock(NOW);
    const errors: Error[] = [];
    let fail = false;
    const set = createTrapSet({
      read: async () => {
        if (fail) throw new Error('store down');
        return ['192.0.2.1'];
      },
      clock,
      refreshMs: 0,
      onError: (err) => errors.push(err),
    });
    await set.refresh();
    fail = true;
    await set.refresh();
    expect([set.has('192.0.2.1'), errors.map((e) => e.message)]).toEqual([true, ['store down']]);
  });
});
