/**
 * Full reputation answers from what one batch read and scored: each computation joins its
 * history and its /24 in memory exactly as the stored rows will hold it once it is saved (the
 * later computation wins).
 */
import { DAY_MS } from '../core/clock.ts';
import { fcrdnsResult } from './assess-parts.ts';
import type { MemberScore } from './facts-cache.ts';
import { type Computation, dailyHistory } from './history.ts';
import { type SubnetMember, summarizeSubnet } from './subnet.ts';
import type { Assessment, ReputationData, SubnetSummary } from './types.ts';

/** The answers, in the order of `ips` (duplicates included), of the batch `assessed` at `now`. */
export function composeAnswers(
  ips: readonly string[],
  now: number,
  assessed: readonly Assessment[],
  storedHistory: Map<string, Computation[]>,
  members: Map<string, Map<string, MemberScore>>,
  subnetOfIp: Map<string, string | null>,
): ReputationData[] {
  const byIp = new Map(assessed.map((a) => [a.ip, a]));
  const current = new Map(assessed.map((a) => [a.ip, { ip: a.ip, score: a.score, computedAt: now }]));
  // This batch's computations by /24, in batch order.
  const currentIn = new Map<string, { ip: string; score: number; computedAt: number }[]>();
  for (const c of current.values()) {
    const subnet = subnetOfIp.get(c.ip);
    if (subnet === null || subnet === undefined) continue;
    const list = currentIn.get(subnet) ?? [];
    list.push(c);
    currentIn.set(subnet, list);
  }
  const today = Math.floor(now / DAY_MS);
  return ips.map((ip): ReputationData => {
    const a = byIp.get(ip) as Assessment;
    const mine = current.get(ip) as { ip: string; score: number; computedAt: number };
    const points = storedHistory.get(ip) ?? [];
    // Today's stored point is replaced by this computation, unless it is dated after now
    // (a clock moved back): then it stays and this one is not added.
    const history: { score: number; computedAt: number }[] = [];
    let heldToday = false;
    for (const p of points) {
      if (Math.floor(p.computedAt / DAY_MS) !== today) history.push(p);
      else if (p.computedAt > now) heldToday = true;
    }
    if (heldToday) {
      history.length = 0;
      history.push(...points);
    } else history.push(mine);
    const subnet = subnetOfIp.get(ip) ?? null;
    let summary: SubnetSummary | null = null;
    if (subnet !== null) {
      // The /24 as stored plus every computation of this batch in it (each saved just now).
      const stored = members.get(subnet) ?? new Map<string, MemberScore>();
      const list: SubnetMember[] = [];
      for (const m of stored.values()) if (!current.has(m.ip)) list.push(m);
      for (const c of currentIn.get(subnet) ?? []) {
        const held = stored.get(c.ip);
        list.push(held !== undefined && held.computedAt > now ? held : c);
      }
      summary = summarizeSubnet(subnet, list, a.subnetActiveListings ?? 0);
    }
    return {
      ip,
      score: a.score,
      level: a.level,
      factors: a.factors,
      history: dailyHistory(history, now),
      subnet: summary,
      blocklist: { listed: a.listed },
      fcrdns: a.fcrdns === null ? null : fcrdnsResult(a.fcrdns),
    };
  });
}
