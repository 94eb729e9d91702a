/**
 * The report views (issue #38 item 2) as the API routes and the dashboard pages read them: one
 * composition, so the two can never show different numbers for the same reports. Each source
 * address gets the serving snapshot's facts and its sending reputation.
 */
import { isPublicIp, parseIp } from '../core/ip.ts';
import { createReportViews, type ReportViews, type SourceIntel } from '../reports/index.ts';
import type { HttpServices } from './context.ts';

/** The dataset's facts of an address from the serving snapshot; null while none is loaded. */
function intelOf(services: HttpServices) {
  return (raw: string): SourceIntel | null => {
    const ip = parseIp(raw);
    const a = ip && services.intel.current()?.lookup(ip);
    if (!a) return null;
    return {
      asn: a.asn,
      asn_name: a.asn_name,
      country: a.country,
      connection_type: a.connection_type,
      cloud_provider: a.netrep.cloud_provider ?? null,
      threat_score: a.threat.score,
      threat_level: a.threat.level,
    };
  };
}

/**
 * Sending reputation of the public addresses, 100 at a time (the batch route's size). Each
 * assessment is stored for the address's history, as a reputation lookup stores it.
 */
function reputationOf(services: HttpServices) {
  return async (ips: string[]) => {
    const scores = new Map<string, { score: number; level: string }>();
    const publicIps = ips.filter((raw) => {
      const ip = parseIp(raw);
      return ip !== null && isPublicIp(ip);
    });
    for (let i = 0; i < publicIps.length; i += 100)
      for (const a of await services.reputation.assessMany(publicIps.slice(i, i + 100)))
        scores.set(a.ip, { score: a.score, level: a.level });
    return scores;
  };
}

export function httpReportViews(services: HttpServices): ReportViews {
  return createReportViews({
    store: services.store,
    now: services.clock,
    intelOf: intelOf(services),
    reputationOf: reputationOf(services),
  });
}
