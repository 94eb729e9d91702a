import { DAY_MS } from '../core/clock.ts';
import { contaminationLevel } from './subnet.ts';
import type {
  ContaminationLevel,
  EvidenceRecord,
  Factor,
  FactorName,
  ReputationLevel,
  ScoreResult,
} from './types.ts';

/**
 * The sending-reputation model of spec §2.5 with the details fixed by CONTRACT §7.
 * Deterministic: the same evidence and `now` give the same answer. The score starts at 50,
 * every factor states its exact contribution, the impacts sum to score - 50 before clamping.
 * Which factors are listed (see README): an event signal (listing, trap hits, honeypot,
 * corroboration, listing history) when it is present; a measurement (telemetry rates, /24
 * neighbourhood, geo changes, FCrDNS, age, datacenter) whenever it is known, even at impact 0.
 */

export const BASE_SCORE = 50;
/** CONTRACT §7: trap, honeypot and listing-history signals count events of the last 30 days. */
export const EVIDENCE_WINDOW_MS = 30 * DAY_MS;
/** Spec §2.5 thresholds: strictly above 5 % bounces and 0.1 % complaints. */
export const BOUNCE_THRESHOLD = 0.05;
export const COMPLAINT_THRESHOLD = 0.001;

const NEIGHBOR_IMPACT: Record<ContaminationLevel, number> = { clean: 10, light: 0, moderate: -5, heavy: -15 };

export function levelForScore(score: number): ReputationLevel {
  if (score >= 80) return 'good';
  if (score >= 60) return 'neutral';
  if (score >= 40) return 'poor';
  return 'bad';
}

/** Full days from the first production observation to `now` (the only way `now` enters the model besides the windows). */
export function ageDays(firstObservedAt: number, now: number): number {
  return Math.max(0, Math.floor((now - firstObservedAt) / DAY_MS));
}

/** Events in [now - 30 days, now]; events dated after now are not counted. */
export function countRecent(times: readonly number[], now: number): number {
  let n = 0;
  for (const t of times) if (t <= now && t >= now - EVIDENCE_WINDOW_MS) n++;
  return n;
}

function percent(rate: number): string {
  return `${Number((rate * 100).toPrecision(6))} %`;
}

/** Events of each signal counted in the window [now - 30 days, now]. */
export interface SignalCounts {
  pristine: number;
  recycled: number;
  typo: number;
  honeypot: number;
  listed: number;
}

/** The evidence record without its event times: what the model needs besides the counts. */
export type CountedEvidence = Omit<EvidenceRecord, 'trapHits' | 'honeypotEvents' | 'listedEvents'>;

/** Counts the record's event times in the window (the from-scratch path). */
export function countSignals(evidence: EvidenceRecord, now: number): SignalCounts {
  return {
    pristine: countRecent(evidence.trapHits.pristine, now),
    recycled: countRecent(evidence.trapHits.recycled, now),
    typo: countRecent(evidence.trapHits.typo, now),
    honeypot: countRecent(evidence.honeypotEvents, now),
    listed: countRecent(evidence.listedEvents, now),
  };
}

export function scoreReputation(evidence: EvidenceRecord, now: number): ScoreResult {
  return scoreCounted(evidence, countSignals(evidence, now), now);
}

type AddFactor = (name: FactorName, impact: number, detail: string) => void;

/** The evidence signals of CONTRACT §7 (listing, traps, honeypot); returns how many types are present. */
function evidenceSignals(evidence: CountedEvidence, counts: SignalCounts, add: AddFactor): number {
  let types = 0;
  if (evidence.activeListing !== null) {
    types++;
    add('blocklist_listing', -40, `active ${evidence.activeListing} listing on the blocklist`);
  }
  const pristine = counts.pristine;
  if (pristine > 0) {
    types++;
    add(
      'pristine_trap_hits',
      -Math.min(15 * pristine, 45),
      `${pristine} pristine trap hit(s) in the last 30 days (-15 each, capped at -45)`,
    );
  }
  const { recycled, typo } = counts;
  if (recycled + typo > 0) {
    types++;
    add(
      'recycled_trap_hits',
      -Math.min(5 * (recycled + typo), 20),
      `${recycled} recycled and ${typo} typo trap hit(s) in the last 30 days (-5 each, capped at -20)`,
    );
  }
  if (counts.honeypot > 0) {
    types++;
    add('smtp_honeypot', -15, `${counts.honeypot} SMTP honeypot event(s) in the last 30 days`);
  }
  return types;
}

/** Bounce and complaint rates; the two high ones count as signal types for corroboration. */
function telemetryFactors(evidence: CountedEvidence, signalTypes: number, add: AddFactor): void {
  const telemetry = evidence.telemetry;
  const bounceHigh = telemetry?.bounceRate != null && telemetry.bounceRate > BOUNCE_THRESHOLD;
  const complaintHigh = telemetry?.complaintRate != null && telemetry.complaintRate > COMPLAINT_THRESHOLD;
  // The six negative signal types of CONTRACT §7 (cross-signal corroboration).
  const types = signalTypes + (bounceHigh ? 1 : 0) + (complaintHigh ? 1 : 0);
  if (types >= 2) {
    add(
      'signal_corroboration',
      -Math.min(10 * (types - 1), 30),
      `${types} independent negative signal types corroborate each other (-10 per additional type, capped at -30)`,
    );
  }
  if (telemetry?.bounceRate != null) {
    add(
      'telemetry_bounce_rate',
      bounceHigh ? -25 : 0,
      `latest bounce rate ${percent(telemetry.bounceRate)} (${bounceHigh ? 'above' : 'not above'} 5 %)`,
    );
  }
  if (telemetry?.complaintRate != null) {
    add(
      'telemetry_complaint_rate',
      complaintHigh ? -30 : 0,
      `latest complaint rate ${percent(telemetry.complaintRate)} (${complaintHigh ? 'above' : 'not above'} 0.1 %)`,
    );
  }
}

/** The neighbourhood, the listing history and geolocation stability. */
function contextFactors(evidence: CountedEvidence, counts: SignalCounts, add: AddFactor): void {
  if (evidence.subnetActiveListings !== null) {
    const level = contaminationLevel(evidence.subnetActiveListings);
    add(
      'neighbor_reputation',
      NEIGHBOR_IMPACT[level],
      `/24 is ${level}: ${evidence.subnetActiveListings} active listing(s) in the /24`,
    );
  }
  const listedEvents = counts.listed;
  if (listedEvents > 0) {
    add(
      'listing_history',
      listedEvents >= 3 ? -10 : 0,
      `${listedEvents} listing event(s) in the last 30 days (three or more: -10)`,
    );
  }
  if (evidence.geoChangeCount !== null) {
    const changes = evidence.geoChangeCount;
    const impact = changes >= 3 ? -20 : changes >= 1 ? -10 : 0;
    add(
      'geo_instability',
      impact,
      `${changes} geolocation change(s) over the last 90 days of dataset versions`,
    );
  }
}

/** FCrDNS, the address's age and the datacenter bonus (withheld when any factor so far is negative). */
function identityFactors(evidence: CountedEvidence, now: number, factors: Factor[], add: AddFactor): void {
  if (evidence.fcrdns !== 'unknown') {
    const failed = evidence.fcrdns === 'fail';
    add(
      'fcrdns',
      failed ? -15 : 0,
      `latest forward-confirmed reverse DNS check ${failed ? 'failed' : 'passed'}`,
    );
  }
  if (evidence.firstObservedAt !== null) {
    const days = ageDays(evidence.firstObservedAt, now);
    add(
      'ip_age_days',
      Math.min(2 * Math.floor(days / 30), 20),
      `first production observation ${days} day(s) ago (+2 per 30 full days, capped at +20)`,
    );
  }
  if (evidence.datacenter === null) return;
  if (!evidence.datacenter) {
    add('datacenter_type', 0, 'not classified as a datacenter address');
    return;
  }
  // "Negative reputation signal" = any factor above with a negative impact.
  const negative = factors.some((f) => f.impact < 0);
  add(
    'datacenter_type',
    negative ? 0 : 5,
    negative
      ? 'datacenter address; bonus withheld because a negative reputation signal is present'
      : 'datacenter address with no negative reputation signal',
  );
}

/**
 * The model over window counts: the rollup path counts from daily buckets, the from-scratch
 * path from event times (countSignals); both end here, so they cannot drift apart.
 */
export function scoreCounted(evidence: CountedEvidence, counts: SignalCounts, now: number): ScoreResult {
  const factors: Factor[] = [];
  const add: AddFactor = (name, impact, detail) => {
    factors.push({ name, impact, detail });
  };
  const signalTypes = evidenceSignals(evidence, counts, add);
  telemetryFactors(evidence, signalTypes, add);
  contextFactors(evidence, counts, add);
  identityFactors(evidence, now, factors, add);
  const raw = BASE_SCORE + factors.reduce((sum, f) => sum + f.impact, 0);
  const score = Math.min(100, Math.max(0, raw));
  return { score, level: levelForScore(score), factors };
}
