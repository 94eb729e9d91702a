import { describe, expect, it } from 'vitest';
import { adjustVolume, autoPause, baseVolume } from './volume.ts';

/** Spec §3.1 table, written out day by day. */
function specVolume(day: number): number {
  if (day <= 7) return 50;
  if (day <= 14) return 200;
  if (day <= 21) return 500;
  if (day <= 30) return 1000;
  if (day <= 45) return 2500;
  if (day <= 60) return 5000;
  return 10000;
}

describe('baseVolume', () => {
  it('follows the spec table on every day from 1 to 120', () => {
    for (let day = 1; day <= 120; day++) expect(baseVolume(day), `day ${day}`).toBe(specVolume(day));
  });

  it('treats a cold address (day 0) as day 1', () => {
    expect(baseVolume(0)).toBe(50);
  });
});

describe('adjustVolume', () => {
  it.each([
    [1000, 100, false, 1000],
    [1000, 50, false, 1000],
    [1000, 49, false, 500],
    [1000, 40, false, 500],
    [1000, 39, false, 250],
    [1000, 30, false, 250],
    [1000, 29, false, 0],
    [1000, 0, false, 0],
    [1000, 100, true, 0],
    [50, 39, false, 12],
    [50, 45, false, 25],
  ])('%i at score %i, listed %s -> %i', (volume, score, listed, expected) => {
    expect(adjustVolume(volume, score, listed)).toBe(expected);
  });
});

describe('autoPause', () => {
  it.each([
    [40, false, false],
    [39, false, true],
    [100, true, true],
    [10, true, true],
  ])('score %i, listed %s -> %s', (score, listed, recommended) => {
    const out = autoPause(score, listed);
    expect(out.recommended).toBe(recommended);
    expect(out.reason === null).toBe(!recommended);
  });

  it('names every reason', () => {
    expect(autoPause(12, true).reason).toBe(
      'the IP is actively blocklisted; reputation score 12 is below 40',
    );
  });
});
