import { ipv4Slash24, parseIp } from '../core/ip.ts';
import type { ContaminationLevel, SubnetSummary } from './types.ts';

/** Spec §2.5: contamination by active listings in the /24: clean 0, light 1-2, moderate 3-5, heavy 6+. */
export function contaminationLevel(activeListings: number): ContaminationLevel {
  if (activeListings >= 6) return 'heavy';
  if (activeListings >= 3) return 'moderate';
  if (activeListings >= 1) return 'light';
  return 'clean';
}

/** One address of the /24 the service holds data for. */
export interface SubnetMember {
  ip: string;
  /** Its current reputation score, 0-100. */
  score: number;
  /** True while it has an active blocklist listing (ignored when the count is given). */
  listed?: boolean;
}

/**
 * The subnet summary of spec §2.5 from the seen addresses of one /24. Each address counts
 * once (the last entry wins). listed_count is `activeListings` when given (the blocklist's
 * count of the /24, which also covers listed addresses never scored: the same count the
 * neighbor_reputation factor uses), else the number of members with an active listing.
 */
export function summarizeSubnet(
  subnet: string,
  members: readonly SubnetMember[],
  activeListings?: number,
): SubnetSummary {
  const byIp = new Map<string, SubnetMember>();
  for (const m of members) byIp.set(m.ip, m);
  const unique = [...byIp.values()];
  const listed = activeListings ?? unique.filter((m) => m.listed === true).length;
  let sum = 0;
  let worst: number | null = null;
  for (const m of unique) {
    sum += m.score;
    worst = worst === null ? m.score : Math.min(worst, m.score);
  }
  return {
    subnet,
    total_ips_seen: unique.length,
    listed_count: listed,
    avg_reputation: unique.length === 0 ? null : Math.round(sum / unique.length),
    worst_score: worst,
    contamination_level: contaminationLevel(listed),
  };
}

/** The /24 CIDR of an IPv4 address; null for IPv6 or invalid input (no /24 neighbourhood applies). */
export function subnetOf(ip: string): string | null {
  const parsed = parseIp(ip);
  return parsed?.family === 4 ? ipv4Slash24(parsed) : null;
}
