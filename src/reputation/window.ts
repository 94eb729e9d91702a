import { DAY_MS } from '../core/clock.ts';
import type { EvidenceDay, KindCounts } from './store-types.ts';

/** A part of one UTC day whose events must be counted from the raw rows. */
export interface RawRange {
  from: number;
  to: number;
}

/** What the daily rollup says about the window [since, now], and which cut days it cannot settle. */
export interface WindowTally {
  counts: KindCounts;
  /** Days the window cuts through that hold events on both sides of the cut. */
  raw: RawRange[];
}

export const NO_EVENTS: KindCounts = { pristine: 0, recycled: 0, typo: 0, honeypot: 0 };

/** Day numbers of the window [since, now]: the days a read must fetch. */
export function windowDays(since: number, now: number): { fromDay: number; toDay: number } {
  return { fromDay: Math.floor(since / DAY_MS), toDay: Math.floor(now / DAY_MS) };
}

/**
 * CONTRACT §7 windows are [now - 30 days, now], cutting two UTC days. A day whose events all lie
 * inside the window counts whole, one whose events all lie outside counts nothing; a day with
 * events on both sides of a cut (only the first and the last day can be one) is named in `raw`
 * with the part of it inside the window, to be counted from the raw rows.
 */
export function tallyWindow(days: readonly EvidenceDay[], since: number, now: number): WindowTally {
  const counts = { ...NO_EVENTS };
  const raw: RawRange[] = [];
  for (const d of days) {
    if (d.lastAt < since || d.firstAt > now) continue;
    if (d.firstAt >= since && d.lastAt <= now) {
      counts.pristine += d.pristine;
      counts.recycled += d.recycled;
      counts.typo += d.typo;
      counts.honeypot += d.honeypot;
      continue;
    }
    const start = d.day * DAY_MS;
    raw.push({ from: Math.max(since, start), to: Math.min(now, start + DAY_MS - 1) });
  }
  return { counts, raw };
}

export function addCounts(a: KindCounts, b: KindCounts): KindCounts {
  return {
    pristine: a.pristine + b.pristine,
    recycled: a.recycled + b.recycled,
    typo: a.typo + b.typo,
    honeypot: a.honeypot + b.honeypot,
  };
}
