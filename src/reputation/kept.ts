/**
 * The history points and /24 members each instance keeps, with the computations queued behind
 * the answers (write-behind.ts) laid over them exactly as the stored rows will hold them.
 */

import { BoundedMap } from '../core/bounded-map.ts';
import { DAY_MS, utcDay } from '../core/clock.ts';
import { CACHE_ENTRIES } from './facts.ts';
import type { HistoryEntry, MemberScore, SubnetEntry } from './facts-cache.ts';
import { type Computation, HISTORY_DAYS } from './history.ts';
import type { ComputationRecord, ReputationStore } from './store-types.ts';
import { summarizeSubnet } from './subnet.ts';
import type { SubnetSummary } from './types.ts';
import { overlayMembers, overlayPoints, type WriteBehind } from './write-behind.ts';

export interface Kept {
  historyOf(ips: readonly string[], now: number): Promise<Map<string, Computation[]>>;
  membersOf(
    list: readonly string[],
    stamps: Map<string, number>,
  ): Promise<Map<string, Map<string, MemberScore>>>;
  saveComputations(list: readonly ComputationRecord[]): Promise<void>;
  subnetSummary(subnet: string, activeListings: number): Promise<SubnetSummary>;
}

export function createKept(rows: ReputationStore, writer: WriteBehind): Kept {
  const histories = new BoundedMap<string, HistoryEntry>(CACHE_ENTRIES);
  const subnets = new BoundedMap<string, SubnetEntry>(CACHE_ENTRIES);

  /** The stored points of each address since the history window's first day, kept per UTC day. */
  async function historyOf(ips: readonly string[], now: number): Promise<Map<string, Computation[]>> {
    const today = Math.floor(now / DAY_MS);
    const out = new Map<string, Computation[]>();
    const missing: string[] = [];
    for (const ip of ips) {
      const e = histories.get(ip);
      if (e !== undefined && e.day === today && now >= e.filledAt) out.set(ip, e.points);
      else missing.push(ip);
    }
    if (missing.length === 0) return out;
    const read = await rows.historyForMany(missing, utcDay(now - (HISTORY_DAYS - 1) * DAY_MS));
    for (const ip of missing) {
      // With the computations not yet written (this instance's own).
      const points = overlayPoints(read.get(ip) ?? [], writer.pointsOf(ip));
      out.set(ip, points);
      histories.set(ip, { day: today, filledAt: now, points });
    }
    return out;
  }

  /** The latest stored score of every member of each /24, kept while the /24's stamp holds. */
  async function membersOf(
    list: readonly string[],
    stamps: Map<string, number>,
  ): Promise<Map<string, Map<string, MemberScore>>> {
    const out = new Map<string, Map<string, MemberScore>>();
    const missing: string[] = [];
    for (const subnet of list) {
      const e = subnets.get(subnet);
      if (e !== undefined && e.stamp === (stamps.get(subnet) ?? 0)) out.set(subnet, e.members);
      else missing.push(subnet);
    }
    if (missing.length === 0) return out;
    const read = await rows.subnetScoresMany(missing);
    for (const subnet of missing) {
      const stored = new Map((read.get(subnet) ?? []).map((m) => [m.ip, m]));
      const members = overlayMembers(stored, writer.latestIn(subnet));
      out.set(subnet, members);
      subnets.set(subnet, { stamp: stamps.get(subnet) ?? 0, members });
    }
    return out;
  }

  /**
   * Queues computations to be written (write-behind.ts) and updates the kept history and /24
   * members as the stored rows will read (a computation dated before the stored one never
   * replaces it). The /24's stamp is raised when the write lands, which then drops the kept
   * entry here too and has it read again from the rows.
   */
  async function saveComputations(list: readonly ComputationRecord[]): Promise<void> {
    const full = writer.queue(list);
    for (const c of list) {
      // The same merges the overlays of the rows make: per day, and per address, the later wins.
      const h = histories.get(c.ip);
      if (h !== undefined) h.points = overlayPoints(h.points, [c]);
      const members = c.subnet === null ? undefined : subnets.get(c.subnet)?.members;
      if (members !== undefined) overlayMembers(members, [c]);
    }
    if (full !== undefined) await full;
  }

  async function subnetSummary(subnet: string, activeListings: number): Promise<SubnetSummary> {
    const stored = new Map((await rows.subnetScores(subnet)).map((m) => [m.ip, m]));
    return summarizeSubnet(
      subnet,
      [...overlayMembers(stored, writer.latestIn(subnet)).values()],
      activeListings,
    );
  }

  return { historyOf, membersOf, saveComputations, subnetSummary };
}
