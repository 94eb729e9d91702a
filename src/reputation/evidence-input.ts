import { AppError } from '../core/errors.ts';
import { normalizeIp } from '../core/ip.ts';
import { MAX_FEED_SOURCE_LENGTH } from '../feeds/index.ts';
import { CLOCK_SKEW_MS, parseTimestamp } from '../telemetry/index.ts';
import { EVIDENCE_KINDS, type EvidenceKind } from './evidence.ts';

/** CONTRACT §4: POST /v1/admin/evidence takes 1-1000 events. */
export const MAX_EVIDENCE_EVENTS = 1000;
/**
 * A pristine trap hit's source becomes the source column of the trap_confirmed feed's row, so it
 * keeps to the feed row's limit (an event over it is rejected here, not dropped at the build).
 */
export const MAX_SOURCE_LENGTH = MAX_FEED_SOURCE_LENGTH;

/** A validated evidence event, ready to store. */
export interface EvidenceInput {
  ip: string;
  kind: EvidenceKind;
  /** Epoch ms, UTC; never after the `now` it was validated against. */
  observedAt: number;
  synthetic: boolean;
  source: string | null;
}

/** Ten calendar years before `now` (CONTRACT §7: evidence may be dated up to 10 years back). */
export function oldestEvidenceTime(now: number): number {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - 10);
  return d.getTime();
}

/**
 * An event's observed_at as epoch ms, or the reason it is refused: required, RFC 3339 with a
 * zone, at most 10 years back, not in the future beyond the 60 s clock skew.
 */
function observedAtOf(at: unknown, now: number): number | string {
  if (typeof at !== 'string') return 'observed_at is required (ISO 8601 date-time)';
  const t = parseTimestamp(at.trim());
  if (t === null) return 'observed_at must be an ISO 8601 date-time with a time zone';
  if (t > now + CLOCK_SKEW_MS) return 'observed_at is in the future';
  if (t < oldestEvidenceTime(now)) return 'observed_at is more than 10 years old';
  return t;
}

/**
 * One event of POST /v1/admin/evidence, checked on its own: ip, kind, observed_at (required,
 * RFC 3339 with a zone, at most 10 years back, not in the future beyond the 60 s clock skew,
 * which is stored as now), synthetic (boolean, default false), source (string up to 128
 * characters, optional; an empty one is none). Returns the event or `events[i]: reason`.
 */
export function validateEvidenceEvent(raw: unknown, index: number, now: number): EvidenceInput | string {
  const prefix = `events[${index}]: `;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return `${prefix}event must be an object`;
  const obj = raw as Record<string, unknown>;
  const ip = normalizeIp(obj['ip']);
  if (ip === null) return `${prefix}ip is missing or not a valid IP address`;
  const kind = obj['kind'];
  if (typeof kind !== 'string' || !(EVIDENCE_KINDS as readonly string[]).includes(kind)) {
    return `${prefix}kind must be one of ${EVIDENCE_KINDS.join(', ')}`;
  }
  const t = observedAtOf(obj['observed_at'], now);
  if (typeof t === 'string') return `${prefix}${t}`;
  const synthetic = obj['synthetic'] ?? false;
  if (typeof synthetic !== 'boolean') return `${prefix}synthetic must be a boolean`;
  const given = obj['source'] ?? null;
  if (given !== null && (typeof given !== 'string' || given.length > MAX_SOURCE_LENGTH)) {
    return `${prefix}source must be a string of at most ${MAX_SOURCE_LENGTH} characters`;
  }
  const source = given === '' ? null : given;
  return { ip, kind: kind as EvidenceKind, observedAt: Math.min(t, now), synthetic, source };
}

/** The request shape: an object with `events`, 1-1000 entries. Throws AppError('INVALID_BODY'). */
export function validateEvidenceBody(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('INVALID_BODY', 'body must be a JSON object with an events array');
  }
  const list = (body as Record<string, unknown>)['events'];
  if (!Array.isArray(list)) throw new AppError('INVALID_BODY', 'events must be an array');
  if (list.length === 0) throw new AppError('INVALID_BODY', 'events must not be empty');
  if (list.length > MAX_EVIDENCE_EVENTS) {
    throw new AppError('INVALID_BODY', `maximum ${MAX_EVIDENCE_EVENTS} events per request`);
  }
  return list;
}
