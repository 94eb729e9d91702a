/** What the reputation store saves and answers: its records and its interface (store.ts implements it). */
import type { EvidenceEvent } from './evidence.ts';
import type { EvidenceInput } from './evidence-input.ts';
import type { Computation } from './history.ts';
import type { FcrdnsRecord } from './types.ts';

export type { FcrdnsRecord };

export interface ComputationRecord {
  ip: string;
  subnet: string | null;
  score: number;
  level: string;
  computedAt: number;
}

/** One address confirmed by pristine trap hits: the earliest and latest hit in the window asked for. */
export interface PristineTrapSource {
  ip: string;
  firstSeen: number;
  lastSeen: number;
  /** The reporting source (smallest name when several reported it); null when none was given. */
  source: string | null;
}

/** One day of an address's production evidence, as the rollup holds it. */
export interface EvidenceDay {
  day: number;
  pristine: number;
  recycled: number;
  typo: number;
  honeypot: number;
  firstAt: number;
  lastAt: number;
}

/**
 * The rollup of one address over a window [since, now]: its earliest production evidence, the
 * events of the days wholly inside the window, and the days the window cuts (events on both
 * sides of `since` or of `now`, to be counted from the raw rows; see window.ts).
 */
export interface EvidenceWindow {
  firstAt: number | null;
  inside: KindCounts;
  cut: EvidenceDay[];
  /** Earliest event of the days wholly inside (it leaves the window first); null when none. */
  insideFirstAt: number | null;
  /** Earliest event dated after `now` (it enters the window then); null when none. */
  futureFirstAt: number | null;
}

/** Production events by kind. */
export interface KindCounts {
  pristine: number;
  recycled: number;
  typo: number;
  honeypot: number;
}

export interface ReputationStore {
  /** Writes all events of one request in one transaction. */
  insertEvidence(events: readonly EvidenceInput[], createdAt: number): Promise<void>;
  /**
   * The address's production evidence observed at or after `since`, plus its earliest
   * production event (the age anchor) when that is older.
   */
  evidenceFor(ip: string, since: number): Promise<EvidenceEvent[]>;
  /** Rollups of many addresses: days `fromDay`..`toDay` (day numbers), in one read per table. */
  /** The window [since, now] of many addresses from the daily rollups, in one read. */
  evidenceWindow(ips: readonly string[], since: number, now: number): Promise<Map<string, EvidenceWindow>>;
  /** Production events by address and kind observed in [from, to] (raw rows: a cut day). */
  evidenceCounts(ips: readonly string[], from: number, to: number): Promise<Map<string, KindCounts>>;
  /** Every day of every address's rollup and what the raw rows say it should be (the check). */
  rollupMismatches(): Promise<string[]>;
  fcrdnsForMany(ips: readonly string[]): Promise<Map<string, FcrdnsRecord>>;
  /** Change stamps of the keys (addresses, /24s); a key never raised is absent (store/stamps.ts). */
  stamps(keys: readonly string[]): Promise<Map<string, number>>;
  /** Stores computations of several addresses in one transaction. */
  saveComputations(cs: readonly ComputationRecord[]): Promise<void>;
  /** Distinct addresses with production pristine-trap evidence observed at or after `since`. */
  pristineTrapIpsSince(since: number): Promise<string[]>;
  saveFcrdns(record: FcrdnsRecord): Promise<void>;
  fcrdnsFor(ip: string): Promise<FcrdnsRecord | null>;
  /** Stored daily points of addresses from `sinceDay` (YYYY-MM-DD) on, in one read: address → points (none: absent). */
  historyForMany(ips: readonly string[], sinceDay: string): Promise<Map<string, Computation[]>>;
  /** Latest scores of the addresses of one /24. */
  subnetScores(subnet: string): Promise<{ ip: string; score: number; computedAt: number }[]>;
  /** The same for many /24s in one read: subnet → members (none: absent). */
  subnetScoresMany(
    subnets: readonly string[],
  ): Promise<Map<string, { ip: string; score: number; computedAt: number }[]>>;
  /** Production (non-synthetic) pristine trap hits observed in [since, until], one row per address, by ip. */
  pristineTrapSources(since: number, until: number): Promise<PristineTrapSource[]>;
}
