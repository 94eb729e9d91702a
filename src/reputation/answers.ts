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

type Point = { ip: string; score: number; computedAt: number };

/**
 * The stored points of an address with this computation: today's stored point is replaced by
 * it, unless it is dated after now (a clock moved back): then it stays and this one is not added.
 */
function historyWith(
  points: readonly Computation[],
  mine: Point,
  now: number,
  today: number,
): { score: number; computedAt: number }[] {
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
  return history;
}

/** The /24 as stored plus every computation of this batch in it (each saved just now). */
function subnetWith(
  stored: Map<string, MemberScore>,
  current: Map<string, Point>,
  inBatch: readonly Point[],
  now: number,
): SubnetMember[] {
  const list: SubnetMember[] = [];
  for (const m of stored.values()) if (!current.has(m.ip)) list.push(m);
  for (const c of inBatch) {
    const held = stored.get(c.ip);
    list.push(held !== undefined && held.computedAt > now ? held : c);
  }
  return list;
}

/** This batch's computations by /24, in batch order. */
function currentBySubnet(
  current: Map<string, Point>,
  subnetOfIp: Map<string, string | null>,
): Map<string, Point[]> {
  const currentIn = new Map<string, Point[]>();
  for (const c of current.values()) {
    const subnet = subnetOfIp.get(c.ip);
    if (subnet === null || subnet === undefined) continue;
    const list = currentIn.get(subnet) ?? [];
    list.push(c);
    currentIn.set(subnet, list);
  }
  return currentIn;
}

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
  const currentIn = currentBySubnet(current, subnetOfIp);
  const today = Math.floor(now / DAY_MS);
  return ips.map((ip): ReputationData => {
    const a = byIp.get(ip) as Assessment;
    const history = historyWith(storedHistory.get(ip) ?? [], current.get(ip) as Point, now, today);
    const subnet = subnetOfIp.get(ip) ?? null;
    let summary: SubnetSummary | null = null;
    if (subnet !== null) {
      const list = subnetWith(
        members.get(subnet) ?? new Map<string, MemberScore>(),
        current,
        currentIn.get(subnet) ?? [],
        now,
      );
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
