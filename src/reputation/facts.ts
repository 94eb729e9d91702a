/**
 * The facts a score is computed from, per address: read with one query per table (evidence
 * rollups, telemetry summary, FCrDNS, listings) and kept while their change stamps and time
 * bounds hold (facts-cache.ts).
 */

import { BoundedMap } from '../core/bounded-map.ts';
import type { Telemetry } from '../telemetry/index.ts';
import { EMPTY_TELEMETRY } from './assess-parts.ts';
import { type FactsEntry, factsValidUntil } from './facts-cache.ts';
import { EVIDENCE_WINDOW_MS } from './score.ts';
import type { ListingFacts, ListingSummary } from './sources.ts';
import type { KindCounts, ReputationStore } from './store-types.ts';
import { subnetOf } from './subnet.ts';
import { addCounts, NO_EVENTS, type RawRange, tallyWindow } from './window.ts';

/** Addresses (and /24s) whose facts, history and members each instance keeps (facts-cache.ts). */
export const CACHE_ENTRIES = 20_000;

export async function listingsFor(
  listings: ListingFacts,
  ips: readonly string[],
  since: number,
): Promise<Map<string, ListingSummary>> {
  if (listings.factsForMany) return await listings.factsForMany(ips, since);
  const entries = await Promise.all(
    ips.map(async (ip): Promise<[string, ListingSummary]> => {
      const [activeListing, listedEvents, subnetActiveListings] = await Promise.all([
        listings.activeListing(ip),
        listings.listedEventsSince(ip, since),
        subnetOf(ip) === null ? Promise.resolve(null) : listings.activeCountInSubnet24(ip),
      ]);
      return [ip, { activeListing, listedEvents, subnetActiveListings }];
    }),
  );
  return new Map(entries);
}

/** Raw counts for the days the window cuts through: one read per distinct cut. */
async function countCuts(
  rows: ReputationStore,
  ips: readonly string[],
  cuts: readonly RawRange[][],
): Promise<Map<string, KindCounts>> {
  const groups = new Map<string, { range: RawRange; ips: string[] }>();
  cuts.forEach((ranges, i) => {
    for (const range of ranges) {
      const key = `${range.from} ${range.to}`;
      const group = groups.get(key) ?? { range, ips: [] };
      group.ips.push(ips[i] as string);
      groups.set(key, group);
    }
  });
  const out = new Map<string, KindCounts>();
  const results = await Promise.all(
    [...groups.values()].map((g) => rows.evidenceCounts(g.ips, g.range.from, g.range.to)),
  );
  for (const counts of results) {
    for (const [ip, c] of counts) out.set(ip, addCounts(out.get(ip) ?? NO_EVENTS, c));
  }
  return out;
}

export interface FactsReader {
  /** The change stamps of the addresses and their /24s, in one read. */
  readStamps(ips: readonly string[], subnetOfIp: Map<string, string | null>): Promise<Map<string, number>>;
  factsFor(
    ips: readonly string[],
    now: number,
    subnetOfIp: Map<string, string | null>,
    stamps: Map<string, number>,
  ): Promise<Map<string, FactsEntry>>;
}

export function createFactsReader(
  rows: ReputationStore,
  telemetry: Telemetry,
  listings: ListingFacts,
): FactsReader {
  const facts = new BoundedMap<string, FactsEntry>(CACHE_ENTRIES);

  /** The change stamps of the addresses and their /24s, in one read. */
  async function readStamps(ips: readonly string[], subnetOfIp: Map<string, string | null>) {
    const keys = new Set(ips);
    for (const s of subnetOfIp.values()) if (s !== null) keys.add(s);
    return await rows.stamps([...keys]);
  }

  /**
   * The facts of many addresses: kept ones whose stamps and time bounds hold, the others read
   * with one query per table (evidence rollups, telemetry summary, FCrDNS, listings) and kept
   * when they can be (facts-cache.ts).
   */
  async function factsFor(
    ips: readonly string[],
    now: number,
    subnetOfIp: Map<string, string | null>,
    stamps: Map<string, number>,
  ): Promise<Map<string, FactsEntry>> {
    const out = new Map<string, FactsEntry>();
    const missing: string[] = [];
    const stampOf = (key: string | null | undefined) => (key ? (stamps.get(key) ?? 0) : 0);
    for (const ip of ips) {
      const e = facts.get(ip);
      if (
        e !== undefined &&
        e.ipStamp === stampOf(ip) &&
        e.subnetStamp === stampOf(subnetOfIp.get(ip)) &&
        now >= e.filledAt &&
        now < e.validUntil
      ) {
        out.set(ip, e);
      } else missing.push(ip);
    }
    if (missing.length === 0) return out;
    const since = now - EVIDENCE_WINDOW_MS;
    const [rollups, tele, fcrdnsRows, listed] = await Promise.all([
      rows.evidenceWindow(missing, since, now),
      telemetry.factsForMany(missing),
      rows.fcrdnsForMany(missing),
      listingsFor(listings, missing, since),
    ]);
    // Days wholly inside are summed by the read; the cut days settle here (raw rows if needed).
    const tallies = missing.map((ip) => {
      const w = rollups.get(ip);
      const t = tallyWindow(w?.cut ?? [], since, now);
      return { counts: addCounts(t.counts, w?.inside ?? NO_EVENTS), raw: t.raw };
    });
    const cut = tallies.some((t) => t.raw.length > 0)
      ? await countCuts(
          rows,
          missing,
          tallies.map((t) => t.raw),
        )
      : new Map<string, KindCounts>();
    missing.forEach((ip, i) => {
      const listing = listed.get(ip) ?? { activeListing: null, listedEvents: [], subnetActiveListings: null };
      const window = rollups.get(ip);
      const entry: FactsEntry = {
        ipStamp: stampOf(ip),
        subnetStamp: stampOf(subnetOfIp.get(ip)),
        filledAt: now,
        validUntil: factsValidUntil(window, listing, now),
        firstAt: window?.firstAt ?? null,
        counts: addCounts(tallies[i]?.counts ?? NO_EVENTS, cut.get(ip) ?? NO_EVENTS),
        telemetry: tele.get(ip) ?? EMPTY_TELEMETRY,
        fcrdns: fcrdnsRows.get(ip) ?? null,
        listing,
      };
      out.set(ip, entry);
      if (entry.validUntil > now) facts.set(ip, entry);
    });
    return out;
  }

  return { readStamps, factsFor };
}
