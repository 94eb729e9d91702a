import { describe, expect, it } from 'vitest';
import { serialPass } from './schedule.ts';

describe('serialPass', () => {
  it('never overlaps passes, and stop lets a pass in progress leave between its steps', async () => {
    let active = 0;
    let most = 0;
    let steps = 0;
    const worker = serialPass(
      async (stopping) => {
        active++;
        most = Math.max(most, active);
        let done = 0;
        while (done < 50 && !stopping()) {
          await new Promise((r) => setTimeout(r, 5));
          done++;
          steps++;
        }
        active--;
        return done;
      },
      { intervalMs: 60_000, enabled: false, onError: () => undefined },
    );
    const [a, b] = await Promise.all([worker.runOnce(), worker.runOnce()]);
    expect([a, b, most]).toEqual([50, 50, 1]);
    const third = worker.runOnce();
    await new Promise((r) => setTimeout(r, 30));
    await worker.stop();
    expect(worker.stopping()).toBe(true);
    expect(await third).toBeLessThan(50);
    expect(steps).toBeLessThan(150);
  });

  it('reports a failed scheduled pass and tries again on the next tick', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const worker = serialPass(
      async () => {
        calls++;
        if (calls === 1) throw new Error('first fails');
        return calls;
      },
      { intervalMs: 20, onError: (err) => errors.push(err) },
    );
    await new Promise((r) => setTimeout(r, 90));
    await worker.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(['first fails']);
    expect(calls).toBeGreaterThan(1);
  });
});
