import { AppError } from '../core/errors.ts';
import { normalizeIp } from '../core/ip.ts';
import type { IngestResult, Observation } from './types.ts';

export const MAX_OBSERVATIONS = 100;
/** Spec §2.9: observed_at must lie within the last 48 hours. */
export const MAX_OBSERVATION_AGE_MS = 48 * 3_600_000;
/**
 * A sender's clock a little ahead of ours is not a future observation: up to 60 s ahead is
 * accepted and stored as `now`, so stored times are never in the future.
 */
export const CLOCK_SKEW_MS = 60_000;

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Strict RFC 3339 date-time (the ISO 8601 profile the spec's timestamps use): a time zone is
 * required, because a zoneless time would be read in the server's local time. Calendar
 * fields are range-checked (Date.parse would roll 2026-02-30 over into March).
 */
export function parseTimestamp(text: string): number | null {
  if (text.length > 40) return null;
  const m = ISO_8601.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMin = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC maps years 0-99 to 1900-1999; such dates are far outside any window anyway.
  return utc - offsetMin * 60_000;
}

type Field<T> = { value: T | null } | { error: string };

function rate(raw: Record<string, unknown>, name: string): Field<number> {
  const v = raw[name];
  if (v === undefined || v === null) return { value: null };
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    return { error: `${name} must be a number between 0.0 and 1.0` };
  }
  return { value: v === 0 ? 0 : v };
}

function volume(raw: Record<string, unknown>): Field<number> {
  const v = raw['volume_24h'];
  if (v === undefined || v === null) return { value: null };
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    return { error: 'volume_24h must be an integer >= 0' };
  }
  return { value: v === 0 ? 0 : v };
}

function observedAt(raw: Record<string, unknown>, now: number): Field<number> {
  const v = raw['observed_at'];
  if (v === undefined || v === null) return { value: now };
  if (typeof v !== 'string') return { error: 'observed_at must be an ISO 8601 date-time string' };
  const t = parseTimestamp(v.trim());
  if (t === null) return { error: 'observed_at must be an ISO 8601 date-time with a time zone' };
  if (t > now + CLOCK_SKEW_MS) return { error: 'observed_at is in the future' };
  if (t < now - MAX_OBSERVATION_AGE_MS) return { error: 'observed_at is older than 48 hours' };
  return { value: Math.min(t, now) };
}

/**
 * Spec §2.9 and rule 3: one observation checked on its own. Returns the accepted observation,
 * or the reason it is rejected as `observations[i]: reason`. Absent (or null) optional fields
 * stay null; an observation must carry at least one measurement, since one without any says
 * nothing and would only move the age anchor.
 */
export function validateObservation(raw: unknown, index: number, now: number): Observation | string {
  const prefix = `observations[${index}]: `;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return `${prefix}observation must be an object`;
  }
  const obj = raw as Record<string, unknown>;
  if (obj['ip'] === undefined || obj['ip'] === null) return `${prefix}ip is required`;
  const ip = normalizeIp(obj['ip']);
  if (ip === null) return `${prefix}ip is not a valid IP address`;
  const bounce = rate(obj, 'bounce_rate');
  if ('error' in bounce) return prefix + bounce.error;
  const complaint = rate(obj, 'complaint_rate');
  if ('error' in complaint) return prefix + complaint.error;
  const vol = volume(obj);
  if ('error' in vol) return prefix + vol.error;
  const at = observedAt(obj, now);
  if ('error' in at) return prefix + at.error;
  if (bounce.value === null && complaint.value === null && vol.value === null) {
    return `${prefix}at least one of bounce_rate, complaint_rate or volume_24h is required`;
  }
  return {
    ip,
    bounceRate: bounce.value,
    complaintRate: complaint.value,
    volume24h: vol.value,
    observedAt: at.value as number,
  };
}

/**
 * The request shape of POST /v1/email/telemetry/ingest: an object with `observations`, an
 * array of 1-100 entries. Returns the entries, each still to be validated on its own.
 */
export function validateIngestBody(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('INVALID_BODY', 'body must be a JSON object with an observations array');
  }
  const list = (body as Record<string, unknown>)['observations'];
  if (!Array.isArray(list)) throw new AppError('INVALID_BODY', 'observations must be an array');
  if (list.length === 0) throw new AppError('INVALID_BODY', 'observations must not be empty');
  if (list.length > MAX_OBSERVATIONS) throw new AppError('TOO_MANY_OBSERVATIONS');
  return list;
}

/** The whole request: shape first (throws), then every observation on its own. */
export function validateIngest(
  body: unknown,
  now: number,
): { observations: Observation[]; result: IngestResult } {
  const observations: Observation[] = [];
  const errors: string[] = [];
  validateIngestBody(body).forEach((raw, i) => {
    const out = validateObservation(raw, i, now);
    if (typeof out === 'string') errors.push(out);
    else observations.push(out);
  });
  return { observations, result: { accepted: observations.length, rejected: errors.length, errors } };
}
