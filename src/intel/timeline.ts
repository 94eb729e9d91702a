/** ownership_timeline and geo_stability from the change history of every dataset version. */
import { DAY_MS } from '../core/clock.ts';
import type { HistoryFile } from '../dataset/index.ts';
import type { GeoStability, OwnershipChange } from './types.ts';

interface Indexed {
  changedAt: string;
  changedMs: number;
  v4: HistoryFile['changes'];
  v6: HistoryFile['changes'];
}

export interface HistoryIndex {
  changesFor(family: 4 | 6, ip: bigint): OwnershipChange[];
}

export function createHistoryIndex(files: readonly HistoryFile[]): HistoryIndex {
  const indexed: Indexed[] = files.map((f) => ({
    changedAt: f.changed_at,
    changedMs: Date.parse(f.changed_at),
    v4: f.changes.filter((c) => c[0] === 4),
    v6: f.changes.filter((c) => c[0] === 6),
  }));
  return {
    changesFor(family, ip) {
      const out: OwnershipChange[] = [];
      for (const h of indexed) {
        const c = changeHolding(family === 4 ? h.v4 : h.v6, ip);
        if (c) out.push(ownershipChangeOf(c, h.changedAt));
      }
      return out;
    },
  };
}

type Change = HistoryFile['changes'][number];

/** The change whose span holds ip, by binary search over one version's sorted, disjoint spans. */
function changeHolding(list: HistoryFile['changes'], ip: bigint): Change | undefined {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = list[mid] as Change;
    if (BigInt(c[2]) < ip) lo = mid + 1;
    else if (BigInt(c[1]) > ip) hi = mid - 1;
    else return c;
  }
  return undefined;
}

/** The answer's entry for a change: its kind is the first of ASN, organization, country that changed. */
function ownershipChangeOf(c: Change, changedAt: string): OwnershipChange {
  const [, , , pa, ca, po, co, pc, cc] = c;
  return {
    change_kind: pa !== ca ? 'asn' : po !== co ? 'organization' : 'country',
    previous_country: pc,
    current_country: cc,
    previous_asn: pa,
    current_asn: ca,
    previous_org: po,
    current_org: co,
    changed_at: changedAt,
  };
}

/** CONTRACT §7: country changes over the last 90 days of dataset versions. */
export function geoStability(timeline: readonly OwnershipChange[], now: number): GeoStability {
  const since = now - 90 * DAY_MS;
  const changes = timeline.filter(
    (c) => c.previous_country !== c.current_country && Date.parse(c.changed_at) >= since,
  );
  const count = changes.length;
  const last = changes.reduce<string | null>(
    (acc, c) => (acc === null || c.changed_at > acc ? c.changed_at : acc),
    null,
  );
  return {
    change_count: count,
    level: count === 0 ? 'stable' : count <= 2 ? 'moderate' : 'unstable',
    last_change: last,
  };
}
