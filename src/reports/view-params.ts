/**
 * The parameters of the per-domain report views: the domain (lower-cased, LDH labels) and the
 * period (YYYY-MM-DD days, UTC, at most 366 of them), each refused with a message naming it.
 */
import { AppError } from '../core/errors.ts';

export const DAY_MS = 86_400_000;
/** The longest period one answer covers, in days. */
export const MAX_PERIOD_DAYS = 366;
/** The default period: this many days ending on the latest report's day. */
const DEFAULT_DAYS = 30;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2100, 11, 31);

export interface PeriodQuery {
  from?: string | undefined;
  to?: string | undefined;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A domain parameter, lower-cased, a trailing dot dropped; INVALID_DOMAIN unless LDH labels. */
export function viewDomain(raw: string): string {
  const domain = raw.toLowerCase().replace(/\.$/, '');
  if (domain.length === 0 || domain.length > 253 || !domain.split('.').every((l) => LABEL.test(l)))
    throw new AppError(
      'INVALID_DOMAIN',
      `domain ${JSON.stringify(raw.slice(0, 100))} is not a domain name (letters, digits, hyphens and dots, up to 253 characters)`,
    );
  return domain;
}

/** A YYYY-MM-DD parameter → epoch ms of that UTC day; INVALID_PARAMETER naming it otherwise. */
function dayOf(value: string, name: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new AppError(
      'INVALID_PARAMETER',
      `${name} must be a date as YYYY-MM-DD, not ${JSON.stringify(value.slice(0, 40))}`,
    );
  if (ms < EARLIEST || ms > LATEST)
    throw new AppError('INVALID_PARAMETER', `${name} must be between 1970-01-01 and 2100-12-31`);
  return ms;
}

export const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/**
 * The period of a view: both days given; `to` alone: the 30 days ending there; `from` alone: up to
 * the latest report's day (at most 366 days); neither: the 30 days ending on the latest report's
 * day (today's when there is none).
 */
export function periodOf(q: PeriodQuery, latest: number | null, now: number): { from: number; to: number } {
  const from = q.from === undefined ? null : dayOf(q.from, 'from');
  const to = q.to === undefined ? null : dayOf(q.to, 'to');
  const latestDay = floorDay(latest ?? now);
  let end = to ?? latestDay;
  if (from !== null && to === null)
    end = Math.min(Math.max(latestDay, from), from + (MAX_PERIOD_DAYS - 1) * DAY_MS);
  const start = from ?? end - (DEFAULT_DAYS - 1) * DAY_MS;
  if (start > end)
    throw new AppError('INVALID_PARAMETER', `from (${dayText(start)}) is after to (${dayText(end)})`);
  if ((end - start) / DAY_MS + 1 > MAX_PERIOD_DAYS)
    throw new AppError(
      'INVALID_PARAMETER',
      `the period from ${dayText(start)} to ${dayText(end)} is longer than ${MAX_PERIOD_DAYS} days`,
    );
  return { from: start, to: end };
}
