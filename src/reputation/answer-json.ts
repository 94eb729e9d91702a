/**
 * The reputation answer (`ReputationData`) written as JSON by hand, in the schema's property
 * order (issue 18). fast-json-stringify over the schema was about a seventh of a single answer's
 * CPU over HTTP: one call and one string piece per value of the 4 KB answer. Here what is the
 * same object from answer to answer is written once and its text reused: a stored history point
 * (history.ts), the factor list of a kept score and the FCrDNS object (reputation.ts); strings
 * go through JSON.stringify (the escapes fast-json-stringify writes too).
 *
 * The schema stays the one definition of the shape: `answer-json.test.ts` checks that this writes
 * the same bytes as fast-json-stringify over `ReputationData` for random values the schema
 * admits, and for real answers through the route.
 */
import { memoByObject } from '../core/memo.ts';
import type { Factor, FcrdnsResult, HistoryPoint, ReputationData, SubnetSummary } from './types.ts';

const text = JSON.stringify as (value: string) => string;

/**
 * The same text as one flat string. Concatenation makes a tree of pieces, and a kept text is
 * written into every answer: flat, it is copied at once when the answer is turned into bytes;
 * as a tree, it is walked piece by piece every time (that walk was a tenth of a single answer's
 * CPU). Reading a string as a number flattens it in V8.
 */
function flat(s: string): string {
  Number(s);
  return s;
}

const orNull = <T>(value: T | null, write: (value: T) => string): string =>
  value === null ? 'null' : write(value);

/** The factors' text, once per list: a kept score hands the same list to every answer (reputation.ts). */
const factorsJson = memoByObject((factors: readonly Factor[]): string => {
  let out = '';
  for (const f of factors) {
    out += `${out === '' ? '' : ','}{"name":${text(f.name)},"impact":${f.impact},"detail":${text(f.detail)}}`;
  }
  return flat(out);
});

const pointText = (p: HistoryPoint): string =>
  `{"score":${p.score},"level":${text(p.level)},"computed_at":${text(p.computed_at)}}`;
/** A point's text, once per point object (stored points are shared by every answer of the day). */
const pointJson = memoByObject((p: HistoryPoint): string => flat(pointText(p)));

function subnetJson(s: SubnetSummary): string {
  return (
    `{"subnet":${text(s.subnet)},"total_ips_seen":${s.total_ips_seen},"listed_count":${s.listed_count},` +
    `"avg_reputation":${orNull(s.avg_reputation, String)},"worst_score":${orNull(s.worst_score, String)},` +
    `"contamination_level":${text(s.contamination_level)}}`
  );
}

function fcrdnsJson(f: FcrdnsResult): string {
  let ips = '';
  for (const ip of f.forward_ips) ips += (ips === '' ? '' : ',') + text(ip);
  return (
    `{"ip":${text(f.ip)},"ptr_hostname":${orNull(f.ptr_hostname, text)},"forward_match":${f.forward_match},` +
    `"forward_ips":[${ips}],"last_checked_at":${text(f.last_checked_at)},` +
    `"last_observed_at":${orNull(f.last_observed_at, text)}}`
  );
}

/** One answer's FCrDNS object is the same for every answer until the record changes (reputation.ts). */
const fcrdnsText = memoByObject((f: FcrdnsResult) => flat(fcrdnsJson(f)));

export function reputationDataJson(d: ReputationData): string {
  let history = '';
  const last = d.history.length - 1;
  for (let i = 0; i <= last; i++) {
    const p = d.history[i] as HistoryPoint;
    // The last point is today's, each answer's own (history.ts): its text is not kept.
    history += (i === 0 ? '' : ',') + (i === last ? pointText(p) : pointJson(p));
  }
  return (
    `{"ip":${text(d.ip)},"score":${d.score},"level":${text(d.level)},"factors":[${factorsJson(d.factors)}],` +
    `"history":[${history}],"subnet":${orNull(d.subnet, subnetJson)},` +
    `"blocklist":{"listed":${d.blocklist.listed}},"fcrdns":${orNull(d.fcrdns, fcrdnsText)}}`
  );
}
