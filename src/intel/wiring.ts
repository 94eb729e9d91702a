import { parseIp } from '../core/ip.ts';
import type { Intel } from './intel.ts';

/** The first PTR name, or null on any failure or after `ms`. */
export function withDeadline(
  ptr: (ip: string) => Promise<string[]>,
  ms: number,
): (ip: string) => Promise<string | null> {
  return (ip) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    const answer = ptr(ip).then(
      (names) => names[0] ?? null,
      () => null,
    );
    return Promise.race([answer, deadline]).finally(() => clearTimeout(timer));
  };
}

/** Header analyzer hop enrichment: the lookup's fields, or null when no record or no dataset. */
export function ipEnrichmentOf(current: () => Intel | null): (ip: string) => {
  asn: number | null;
  asn_name: string | null;
  country: string | null;
  cloud_provider: string | null;
  connection_type: string | null;
  threat_score: number | null;
} | null {
  return (text) => {
    const intel = current();
    const ip = parseIp(text);
    if (!intel || !ip) return null;
    const a = intel.lookup(ip);
    if (!a) return null;
    return {
      asn: a.asn,
      asn_name: a.asn_name,
      country: a.country,
      cloud_provider: a.netrep.cloud_provider ?? null,
      connection_type: a.connection_type,
      threat_score: a.threat.score,
    };
  };
}

/** Reputation's dataset facts (CONTRACT §7): null while no dataset or no record is known. */
export function intelFactsOf(current: () => Intel | null): {
  datacenter(ip: string): boolean | null;
  geoChangeCount90d(ip: string): number | null;
} {
  return {
    datacenter(text) {
      const intel = current();
      const ip = parseIp(text);
      const a = intel && ip ? intel.lookup(ip) : null;
      return a && !a.bogon ? a.netrep.is_datacenter : null;
    },
    geoChangeCount90d(text) {
      const intel = current();
      const ip = parseIp(text);
      return intel && ip ? (intel.geoStability(ip)?.change_count ?? null) : null;
    },
  };
}
