/**
 * The final interpretation of a job (CONTRACT §10): counts per zone and for FCrDNS, and with
 * `acceptance` the gate:
 *   fail   — an address is listed on the service's own zone, or over 5 % of addresses are
 *            listed on any zone;
 *   review — an address is listed anywhere, or over 2 % of probes errored (a DNSBL `error` or
 *            `timeout`, or an FCrDNS `unknown`);
 *   pass   — otherwise.
 */
export interface ObservationFact {
  address: string;
  kind: string;
  sourceKey: string;
  outcome: string;
}

export type Gate = 'pass' | 'review' | 'fail';

export interface Interpretation {
  addresses: number;
  probes: number;
  zones: Record<string, { listed: number; not_listed: number; error: number; timeout: number }>;
  fcrdns: { pass: number; fail: number; unknown: number };
  listed_addresses: number;
  errored_probes: number;
  partial: boolean;
  acceptance?: { gate: Gate; reasons: string[] };
}

const pct = (n: number, d: number) => (d === 0 ? 0 : (100 * n) / d);

export function interpret(options: {
  addresses: number;
  ownZone: string;
  zones: readonly string[];
  observations: readonly ObservationFact[];
  acceptance: boolean;
  partial: boolean;
}): Interpretation {
  const zones: Interpretation['zones'] = {};
  for (const z of options.zones) zones[z] = { listed: 0, not_listed: 0, error: 0, timeout: 0 };
  const fcrdns = { pass: 0, fail: 0, unknown: 0 };
  const listedAnywhere = new Set<string>();
  const listedOwn = new Set<string>();
  let errored = 0;
  for (const o of options.observations) {
    if (o.kind === 'dnsbl') {
      const z = zones[o.sourceKey] ?? { listed: 0, not_listed: 0, error: 0, timeout: 0 };
      zones[o.sourceKey] = z;
      if (
        o.outcome === 'listed' ||
        o.outcome === 'not_listed' ||
        o.outcome === 'error' ||
        o.outcome === 'timeout'
      ) {
        z[o.outcome]++;
      }
      if (o.outcome === 'listed') {
        listedAnywhere.add(o.address);
        if (o.sourceKey === options.ownZone) listedOwn.add(o.address);
      }
      if (o.outcome === 'error' || o.outcome === 'timeout') errored++;
    } else if (o.kind === 'fcrdns') {
      if (o.outcome === 'pass' || o.outcome === 'fail' || o.outcome === 'unknown') fcrdns[o.outcome]++;
      if (o.outcome === 'unknown') errored++;
    }
  }
  const out: Interpretation = {
    addresses: options.addresses,
    probes: options.observations.length,
    zones,
    fcrdns,
    listed_addresses: listedAnywhere.size,
    errored_probes: errored,
    partial: options.partial,
  };
  if (!options.acceptance) return out;
  const listedPct = pct(listedAnywhere.size, options.addresses);
  const erroredPct = pct(errored, options.observations.length);
  const fail: string[] = [];
  const review: string[] = [];
  if (listedOwn.size > 0)
    fail.push(`${listedOwn.size} address(es) listed on the service's own zone ${options.ownZone}`);
  if (listedPct > 5) fail.push(`${listedPct.toFixed(1)} % of addresses are listed (over 5 %)`);
  if (listedAnywhere.size > 0) review.push(`${listedAnywhere.size} address(es) listed on at least one zone`);
  if (erroredPct > 2) review.push(`${erroredPct.toFixed(1)} % of probes errored (over 2 %)`);
  if (options.partial) review.push('the job did not complete every probe');
  out.acceptance =
    fail.length > 0
      ? { gate: 'fail', reasons: [...fail, ...review] }
      : review.length > 0
        ? { gate: 'review', reasons: review }
        : {
            gate: 'pass',
            reasons: [`no address is listed and ${erroredPct.toFixed(1)} % of probes errored`],
          };
  return out;
}
