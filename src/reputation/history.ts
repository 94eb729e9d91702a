import { DAY_MS, toIso } from '../core/clock.ts';
import { memoByObject } from '../core/memo.ts';
import { levelForScore } from './score.ts';
import type { HistoryPoint } from './types.ts';

/** One stored score computation of an address. */
export interface Computation {
  score: number;
  computedAt: number;
}

export const HISTORY_DAYS = 30;

/**
 * CONTRACT §7: one point per UTC day, the last computation of that day, over 30 days: the
 * UTC day of `now` and the 29 before it. Days without a computation have no point (nothing is
 * invented); computations dated after `now` are ignored. Oldest first. On equal times the
 * later entry of the input wins.
 */
export function dailyHistory(computations: readonly Computation[], now: number): HistoryPoint[] {
  // One slot per UTC day of the window, oldest first.
  const firstDay = Math.floor(now / DAY_MS) - (HISTORY_DAYS - 1);
  const slots: (Computation | undefined)[] = new Array(HISTORY_DAYS);
  for (const c of computations) {
    if (c.computedAt > now) continue;
    const slot = Math.floor(c.computedAt / DAY_MS) - firstDay;
    if (slot < 0) continue;
    const held = slots[slot];
    if (held === undefined || c.computedAt >= held.computedAt) slots[slot] = c;
  }
  const points: HistoryPoint[] = [];
  for (let i = 0; i < HISTORY_DAYS; i++) {
    const c = slots[i];
    // Today's point is each answer's own computation: a new one every time, not worth keeping.
    if (c !== undefined) points.push(i === HISTORY_DAYS - 1 ? pointMade(c) : pointOf(c));
  }
  return points;
}

/**
 * The answer's point of a stored computation, made once per computation object: kept histories
 * hand the same objects to every answer of the day (issue 18: 29 of the 30 points of an answer;
 * formatting their instants was a tenth of a single answer's CPU). Computations are never changed
 * once made (a new score is a new object).
 */
const pointMade = (c: Computation): HistoryPoint => ({
  score: c.score,
  level: levelForScore(c.score),
  computed_at: toIso(c.computedAt),
});
const pointOf = memoByObject(pointMade);
