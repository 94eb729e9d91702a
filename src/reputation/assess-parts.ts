/**
 * The small parts every reputation answer uses: the evidence deadline (503 EVIDENCE_UNAVAILABLE),
 * the FCrDNS status and answer object, the telemetry snapshot and the age anchor.
 */
import { toIso } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { memoByObject } from '../core/memo.ts';
import type { TelemetryFacts } from '../telemetry/index.ts';
import type { TelemetryRow } from './evidence.ts';
import type { FcrdnsRecord } from './store-types.ts';
import type { FcrdnsResult, FcrdnsStatus, TelemetrySnapshot } from './types.ts';

/**
 * Spec §2.5: if evidence cannot be read, an unavailable error is returned and never a neutral
 * or clean score. Every store or blocklist failure (closed store, lost server, timeout)
 * becomes 503 EVIDENCE_UNAVAILABLE; the cause stays attached for the log.
 */
export async function readEvidence<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('EVIDENCE_UNAVAILABLE', `evidence was not read within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('EVIDENCE_UNAVAILABLE', undefined, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

export function telemetryRows(facts: TelemetryFacts): TelemetryRow[] {
  // Earliest first, latest last: deriveEvidence lets the later row win on equal times.
  return [facts.earliest, facts.firstSending, facts.latest].filter((r) => r !== null);
}

export function fcrdnsStatus(record: FcrdnsRecord | null): FcrdnsStatus {
  if (record === null) return 'unknown';
  return record.forwardMatch ? 'pass' : 'fail';
}

/**
 * The answer's FCrDNS object, once per stored record: kept facts hand the same record to every
 * answer (issue 18: formatting its two instants was 1 % of a single answer's CPU).
 */
export const fcrdnsResult = memoByObject(fcrdnsResultOf);

function fcrdnsResultOf(r: FcrdnsRecord): FcrdnsResult {
  return {
    ip: r.ip,
    ptr_hostname: r.ptrHostname,
    forward_match: r.forwardMatch,
    forward_ips: r.forwardIps,
    last_checked_at: toIso(r.lastCheckedAt),
    last_observed_at: r.lastObservedAt === null ? null : toIso(r.lastObservedAt),
  };
}

export function parseOrThrow(raw: string, what = 'ip'): ParsedIp {
  const parsed = parseIp(raw);
  if (parsed === null) throw new AppError('INVALID_IP', `invalid IP address: ${what} ${JSON.stringify(raw)}`);
  return parsed;
}

export const EMPTY_TELEMETRY: TelemetryFacts = { latest: null, earliest: null, firstSending: null };

export function snapshotOf(facts: TelemetryFacts): TelemetrySnapshot | null {
  const t = facts.latest;
  if (t === null) return null;
  return {
    bounceRate: t.bounceRate,
    complaintRate: t.complaintRate,
    volume24h: t.volume24h,
    observedAt: t.observedAt,
  };
}

/** The age anchor: the earliest production observation of either kind (CONTRACT §7). */
export function anchorOf(evidenceFirst: number | null, facts: TelemetryFacts): number | null {
  const t = facts.earliest?.observedAt ?? null;
  if (evidenceFirst === null) return t;
  return t === null ? evidenceFirst : Math.min(evidenceFirst, t);
}
