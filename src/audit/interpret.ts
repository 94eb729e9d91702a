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

type ZoneCounts = Interpretation['zones'][string];

/** The counts of a job's observations, before the gate. */
interface Tally {
  zones: Interpretation['zones'];
  fcrdns: Interpretation['fcrdns'];
  listedAnywhere: Set<string>;
  listedOwn: Set<string>;
  errored: number;
}

const isZoneOutcome = (o: string): o is keyof ZoneCounts =>
  o === 'listed' || o === 'not_listed' || o === 'error' || o === 'timeout';
const isFcrdnsOutcome = (o: string): o is keyof Interpretation['fcrdns'] =>
  o === 'pass' || o === 'fail' || o === 'unknown';

/** A DNSBL probe: counted in its zone; a listing noted (on the own zone too), an error or timeout is an errored probe. */
function countDnsbl(tally: Tally, o: ObservationFact, ownZone: string): void {
  const z = tally.zones[o.sourceKey] ?? { listed: 0, not_listed: 0, error: 0, timeout: 0 };
  tally.zones[o.sourceKey] = z;
  if (isZoneOutcome(o.outcome)) z[o.outcome]++;
  if (o.outcome === 'listed') {
    tally.listedAnywhere.add(o.address);
    if (o.sourceKey === ownZone) tally.listedOwn.add(o.address);
  }
  if (o.outcome === 'error' || o.outcome === 'timeout') tally.errored++;
}

/** An FCrDNS probe: counted; `unknown` is an errored probe. */
function countFcrdns(tally: Tally, o: ObservationFact): void {
  if (isFcrdnsOutcome(o.outcome)) tally.fcrdns[o.outcome]++;
  if (o.outcome === 'unknown') tally.errored++;
}

/** The gate and its reasons (the rules at the top of this file). */
function acceptanceOf(
  tally: Tally,
  options: { addresses: number; ownZone: string; probes: number; partial: boolean },
): { gate: Gate; reasons: string[] } {
  const listedPct = pct(tally.listedAnywhere.size, options.addresses);
  const erroredPct = pct(tally.errored, options.probes);
  const fail: string[] = [];
  const review: string[] = [];
  if (tally.listedOwn.size > 0)
    fail.push(`${tally.listedOwn.size} address(es) listed on the service's own zone ${options.ownZone}`);
  if (listedPct > 5) fail.push(`${listedPct.toFixed(1)} % of addresses are listed (over 5 %)`);
  if (tally.listedAnywhere.size > 0)
    review.push(`${tally.listedAnywhere.size} address(es) listed on at least one zone`);
  if (erroredPct > 2) review.push(`${erroredPct.toFixed(1)} % of probes errored (over 2 %)`);
  if (options.partial) review.push('the job did not complete every probe');
  if (fail.length > 0) return { gate: 'fail', reasons: [...fail, ...review] };
  if (review.length > 0) return { gate: 'review', reasons: review };
  return { gate: 'pass', reasons: [`no address is listed and ${erroredPct.toFixed(1)} % of probes errored`] };
}

export function interpret(options: {
  addresses: number;
  ownZone: string;
  zones: readonly string[];
  observations: readonly ObservationFact[];
  acceptance: boolean;
  partial: boolean;
}): Interpretation {
  const tally: Tally = {
    zones: {},
    fcrdns: { pass: 0, fail: 0, unknown: 0 },
    listedAnywhere: new Set<string>(),
    listedOwn: new Set<string>(),
    errored: 0,
  };
  for (const z of options.zones) tally.zones[z] = { listed: 0, not_listed: 0, error: 0, timeout: 0 };
  for (const o of options.observations) {
    if (o.kind === 'dnsbl') countDnsbl(tally, o, options.ownZone);
    else if (o.kind === 'fcrdns') countFcrdns(tally, o);
  }
  const out: Interpretation = {
    addresses: options.addresses,
    probes: options.observations.length,
    zones: tally.zones,
    fcrdns: tally.fcrdns,
    listed_addresses: tally.listedAnywhere.size,
    errored_probes: tally.errored,
    partial: options.partial,
  };
  if (!options.acceptance) return out;
  out.acceptance = acceptanceOf(tally, { ...options, probes: options.observations.length });
  return out;
}
