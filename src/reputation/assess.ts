/**
 * One address scored: from its kept facts (the scored result is kept with them while its inputs
 * hold), or from scratch over the raw rows as the model was first written.
 */
import type { Telemetry } from '../telemetry/index.ts';
import { anchorOf, fcrdnsStatus, snapshotOf, telemetryRows } from './assess-parts.ts';
import { deriveEvidence } from './evidence.ts';
import type { FactsEntry } from './facts-cache.ts';
import {
  ageDays,
  type CountedEvidence,
  countRecent,
  EVIDENCE_WINDOW_MS,
  scoreCounted,
  scoreReputation,
} from './score.ts';
import type { IntelFacts, ListingFacts } from './sources.ts';
import type { ReputationStore } from './store-types.ts';
import { subnetOf } from './subnet.ts';
import type { Assessment } from './types.ts';

/** Scores an address at `now` from its facts `f`. Stores nothing. */
export function scoreFacts(ip: string, f: FactsEntry, now: number, intel: IntelFacts): Assessment {
  const { listing } = f;
  const status = fcrdnsStatus(f.fcrdns);
  // Besides the entry, a score takes these; the same ones give the same score (kept facts
  // answer many requests, and scoring with its factor texts was a twentieth of an answer).
  const listed = countRecent(listing.listedEvents, now);
  const geoChangeCount = intel.geoChangeCount90d(ip);
  const datacenter = intel.datacenter(ip);
  const firstObservedAt = anchorOf(f.firstAt, f.telemetry);
  const age = firstObservedAt === null ? null : ageDays(firstObservedAt, now);
  let scored = f.scored;
  if (
    scored === undefined ||
    scored.listed !== listed ||
    scored.geoChangeCount !== geoChangeCount ||
    scored.datacenter !== datacenter ||
    scored.ageDays !== age
  ) {
    const evidence: CountedEvidence = {
      ip,
      activeListing: listing.activeListing,
      telemetry: snapshotOf(f.telemetry),
      geoChangeCount,
      fcrdns: status,
      firstObservedAt,
      datacenter,
      subnetActiveListings: listing.subnetActiveListings,
    };
    const result = scoreCounted(evidence, { ...f.counts, listed }, now);
    scored = { listed, geoChangeCount, datacenter, ageDays: age, result };
    f.scored = scored;
  }
  const result = scored.result;
  // Field by field, not `...result`: with the spread a single answer over HTTP took 47 µs of CPU,
  // without it 33 µs (bench/reputation.ts, 2026-12-07); every Assessment now has one shape.
  return {
    score: result.score,
    level: result.level,
    factors: result.factors,
    ip,
    listed: listing.activeListing !== null,
    fcrdns: f.fcrdns,
    fcrdnsStatus: status,
    telemetry: f.telemetry,
    subnetActiveListings: listing.subnetActiveListings,
    computedAt: now,
  };
}

export interface ScratchSources {
  rows: ReputationStore;
  telemetry: Telemetry;
  listings: ListingFacts;
  intel: IntelFacts;
}

/** The model as first written: every raw event and observation read, nothing stored. */
export async function fromScratch(deps: ScratchSources, ip: string, now: number): Promise<Assessment> {
  const { rows, telemetry, listings, intel } = deps;
  const since = now - EVIDENCE_WINDOW_MS;
  const subnet = subnetOf(ip);
  const [evidence, tele, fcrdns, activeListing, listedEvents, subnetCount] = await Promise.all([
    rows.evidenceFor(ip, since),
    telemetry.rawFactsFor(ip),
    rows.fcrdnsFor(ip),
    listings.activeListing(ip),
    listings.listedEventsSince(ip, since),
    subnet === null ? Promise.resolve(null) : listings.activeCountInSubnet24(ip),
  ]);
  const status = fcrdnsStatus(fcrdns);
  const record = deriveEvidence({
    ip,
    activeListing,
    listedEvents,
    evidence,
    telemetry: telemetryRows(tele),
    geoChangeCount: intel.geoChangeCount90d(ip),
    fcrdns: status,
    datacenter: intel.datacenter(ip),
    subnetActiveListings: subnetCount,
  });
  return {
    ...scoreReputation(record, now),
    ip,
    listed: activeListing !== null,
    fcrdns,
    fcrdnsStatus: status,
    telemetry: tele,
    subnetActiveListings: subnetCount,
    computedAt: now,
  };
}
