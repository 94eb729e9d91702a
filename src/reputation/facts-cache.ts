/**
 * The facts a reputation answer reads, kept per address with the change stamps read before them
 * (issue 18; store/stamps.ts). An entry answers instead of the store while
 * - the address's stamp and its /24's stamp are the ones it was read with (every write of
 *   evidence, telemetry, FCrDNS or a blocklist event raises them, on any instance), and
 * - the clock lies in [filledAt, validUntil): the window counts, the active listings and the
 *   /24 count change by time alone only at the moments `factsValidUntil` names.
 * The history of an address is kept for the UTC day it was read on (other days' points no
 * longer change; today's point is the answer's own computation), and the latest scores of a /24
 * while its stamp holds. Each map is bounded; the oldest entry goes first.
 */
import type { TelemetryFacts } from '../telemetry/index.ts';
import type { Computation } from './history.ts';
import { EVIDENCE_WINDOW_MS } from './score.ts';
import type { ListingSummary } from './sources.ts';
import type { EvidenceWindow, FcrdnsRecord, KindCounts } from './store-types.ts';
import type { ScoreResult } from './types.ts';

export interface FactsEntry {
  ipStamp: number;
  subnetStamp: number;
  filledAt: number;
  validUntil: number;
  /** Earliest production evidence (the age anchor's evidence half). */
  firstAt: number | null;
  /** Production events of each kind in the window at any moment of [filledAt, validUntil). */
  counts: KindCounts;
  telemetry: TelemetryFacts;
  fcrdns: FcrdnsRecord | null;
  listing: ListingSummary;
  /**
   * The last score made from this entry and the inputs it took besides the entry (reputation.ts
   * scoreMany): while they are the same, so is the score, and its factors are the same objects.
   */
  scored?: ScoredWith;
}

/** What a score depends on besides a facts entry's fields. */
export interface ScoredWith {
  listed: number;
  geoChangeCount: number | null;
  datacenter: boolean | null;
  ageDays: number | null;
  result: ScoreResult;
}

export interface HistoryEntry {
  /** UTC day number the points were read on. */
  day: number;
  filledAt: number;
  points: Computation[];
}

export interface MemberScore {
  ip: string;
  score: number;
  computedAt: number;
}

export interface SubnetEntry {
  stamp: number;
  members: Map<string, MemberScore>;
}

/**
 * Until when the window counts and listing facts read at `now` hold by time alone (exclusive),
 * or `now` when they cannot be kept: a day the window cuts through holds events whose times
 * only the raw rows know, and listing facts without `changesAt` give no bound.
 * An event at t counts while now − 30 days ≤ t ≤ now: the earliest one inside leaves at
 * t + 30 days + 1 ms, the earliest one after now enters at t.
 */
export function factsValidUntil(
  window: EvidenceWindow | undefined,
  listing: ListingSummary,
  now: number,
): number {
  if (listing.changesAt === undefined) return now;
  let until = listing.changesAt ?? Number.POSITIVE_INFINITY;
  if (window !== undefined) {
    if (window.cut.length > 0) return now;
    if (window.insideFirstAt !== null) until = Math.min(until, window.insideFirstAt + EVIDENCE_WINDOW_MS + 1);
    if (window.futureFirstAt !== null) until = Math.min(until, window.futureFirstAt);
  }
  return until;
}
