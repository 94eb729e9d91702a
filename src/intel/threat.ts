/** Threat score per CONTRACT §6: additive, clamped 0-100, one explanation line per contribution. */
import type { Threat } from './types.ts';

export interface Contribution {
  points: number;
  reason: string;
}

/**
 * The wording of the two threat lines no flag of the answer carries (CONTRACT §6), written once:
 * intel/lookup.ts adds them, the IP page (web/ip-page.ts) reads them back as warning signs.
 */
export const THREAT_REASON = {
  listingPrefix: 'active blocklist listing',
  listing: (type: string) => `active blocklist listing (${type})`,
  trap: 'pristine spam trap hit in the last 30 days',
} as const;

export const POINTS = {
  listingMalware: 60,
  listingSpam: 45,
  drop: 50,
  uce3: 15,
  uce2: 15,
  uce1: 25,
  tor: 35,
  proxy: 30,
  vpn: 15,
  trap: 20,
  datacenter: 5,
} as const;

export function threatLevel(score: number): Threat['level'] {
  if (score >= 75) return 'critical';
  if (score >= 50) return 'high';
  if (score >= 25) return 'medium';
  return 'low';
}

export function scoreThreat(contributions: readonly Contribution[]): Threat {
  let sum = 0;
  for (const c of contributions) sum += c.points;
  const score = Math.max(0, Math.min(100, sum));
  return {
    score,
    level: threatLevel(score),
    explanation: contributions.map((c) => `+${c.points} ${c.reason}`),
  };
}
