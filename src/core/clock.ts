/** Epoch milliseconds, UTC. Injected into domain code so tests can move time. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** A clock tests can set and advance. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function createManualClock(start: number | string = '2026-01-01T00:00:00Z'): ManualClock {
  let now = typeof start === 'number' ? start : Date.parse(start);
  const clock = (() => now) as ManualClock;
  clock.set = (ms) => {
    now = ms;
  };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export const DAY_MS = 86_400_000;

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

let lastDayIndex = Number.NaN;
let lastDay = '';

/** The UTC calendar day of an instant, as YYYY-MM-DD (memoized: hot paths ask for today). */
export function utcDay(ms: number): string {
  const index = Math.floor(ms / DAY_MS);
  if (index !== lastDayIndex) {
    lastDay = new Date(ms).toISOString().slice(0, 10);
    lastDayIndex = index;
  }
  return lastDay;
}
