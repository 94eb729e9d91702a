/**
 * The ARC chain (RFC 8617) as the headers carry it: every ARC-Seal with its instance and cv=,
 * every ARC-Authentication-Results, the number of instances, the last sealer's verdict and the
 * first structural fault. No signature is checked (no DNS): a chain whose structure is sound may
 * still fail cryptographic validation.
 */
import { cleanDomain } from './addresses.ts';
import { parseAuthResults, parseTags, resultEntry } from './auth-results.ts';
import { fieldValues, type HeaderField } from './header-block.ts';
import type { ArcChain } from './types.ts';

/** RFC 8617 §4.2.1: at most 50 ARC sets; the lists an answer carries stop there too. */
export const MAX_ARC_INSTANCES = 50;
const ARC_HEADERS = ['arc-seal', 'arc-message-signature', 'arc-authentication-results'] as const;
const NAMES: Record<(typeof ARC_HEADERS)[number], string> = {
  'arc-seal': 'ARC-Seal',
  'arc-message-signature': 'ARC-Message-Signature',
  'arc-authentication-results': 'ARC-Authentication-Results',
};

/** RFC 8617 §4.1.3 (rsa-sha256), and RFC 8463's ed25519-sha256 that DKIM verifiers accept. */
const ALGORITHMS = new Set(['rsa-sha256', 'ed25519-sha256']);

/** i= as an instance number 1-50, or null when missing or not one. */
function instanceOf(tag: string | undefined): number | null {
  if (tag === undefined || !/^\d{1,2}$/.test(tag)) return null;
  const i = Number(tag);
  return i >= 1 && i <= MAX_ARC_INSTANCES ? i : null;
}

/** The i= tag of an ARC-Authentication-Results: the text before its first `;`. */
function aarInstance(value: string): { instance: number | null; rest: string } {
  const semi = value.indexOf(';');
  const tags = semi === -1 ? {} : parseTags(value.slice(0, semi));
  // Without a leading i= tag the value is read as Authentication-Results, authserv-id first.
  if (!('i' in tags)) return { instance: null, rest: value };
  return { instance: instanceOf(tags['i']), rest: value.slice(semi + 1) };
}

function headerInstance(name: string, value: string): number | null {
  return name === 'arc-authentication-results'
    ? aarInstance(value).instance
    : instanceOf(parseTags(value)['i']);
}

type InstanceCounts = Map<number, Record<string, number>>;

/** How many of each ARC header every instance has, or the fault of a header without a valid i=. */
function countInstances(fields: readonly HeaderField[]): InstanceCounts | string {
  const counts: InstanceCounts = new Map();
  for (const name of ARC_HEADERS) {
    for (const v of fieldValues(fields, name)) {
      const i = headerInstance(name, v);
      if (i === null) return `an ${NAMES[name]} header has no valid i= instance (1-50)`;
      const c = counts.get(i) ?? {};
      c[name] = (c[name] ?? 0) + 1;
      counts.set(i, c);
    }
  }
  return counts;
}

/** Every instance 1..n has each of the three headers exactly once. */
function setProblem(counts: InstanceCounts, n: number): string | null {
  for (let i = 1; i <= n; i++) {
    const c = counts.get(i);
    if (!c) return `instance i=${i} is missing (the chain goes up to i=${n})`;
    for (const name of ARC_HEADERS) {
      const seen = c[name] ?? 0;
      if (seen === 0) return `instance i=${i} has no ${NAMES[name]}`;
      if (seen > 1) return `instance i=${i} has ${seen} ${NAMES[name]} headers`;
    }
  }
  return null;
}

function cvProblem(i: number, cv: string): string | null {
  if (i === 1)
    return cv === 'none' ? null : `ARC-Seal i=1 says cv=${cv || '(missing)'}; the first must say none`;
  if (cv === 'pass') return null;
  return cv === 'fail'
    ? `ARC-Seal i=${i} says cv=fail: its sealer found the chain below it broken`
    : `ARC-Seal i=${i} says cv=${cv || '(missing)'}; after the first it must say pass`;
}

/** Instance i's seal and message signature: cv, algorithms, no h= on the seal, no seal signed. */
function pairProblem(i: number, seal: Record<string, string>, ams: Record<string, string>): string | null {
  const cv = cvProblem(i, (seal['cv'] ?? '').toLowerCase());
  if (cv) return cv;
  for (const [name, tags] of [
    ['ARC-Seal', seal],
    ['ARC-Message-Signature', ams],
  ] as const) {
    const a = (tags['a'] ?? '').toLowerCase();
    if (!ALGORITHMS.has(a))
      return `${name} i=${i} has ${a ? `a=${a.slice(0, 32)}` : 'no a= algorithm'} (rsa-sha256 or ed25519-sha256 expected)`;
  }
  if ('h' in seal) return `ARC-Seal i=${i} carries an h= tag, which a seal must not`;
  const signed = (ams['h'] ?? '').toLowerCase().split(':');
  return signed.includes('arc-seal')
    ? `ARC-Message-Signature i=${i} signs ARC-Seal (h=), which it must not`
    : null;
}

/**
 * The first fault of RFC 8617 §5.2 steps 1-3 that a reader can see without keys: each header's
 * i= valid, each instance 1..N present exactly once in each of the three headers, at most 50,
 * ARC-Seal i=1 with cv=none and every later one with cv=pass (a cv=fail is the sealer saying
 * the chain had already failed), a known a= on each seal and message signature, no h= on a seal
 * and no ARC-Seal among the headers a message signature signs.
 */
function chainProblem(fields: readonly HeaderField[]): string | null {
  const counts = countInstances(fields);
  if (typeof counts === 'string') return counts;
  if (counts.size === 0) return null;
  const n = Math.max(...counts.keys());
  const set = setProblem(counts, n);
  if (set) return set;
  const tagsByInstance = (name: string) =>
    new Map(
      fieldValues(fields, name).map((v) => {
        const t = parseTags(v);
        return [instanceOf(t['i']) as number, t] as const;
      }),
    );
  const seals = tagsByInstance('arc-seal');
  const signatures = tagsByInstance('arc-message-signature');
  for (let i = 1; i <= n; i++) {
    const problem = pairProblem(
      i,
      seals.get(i) as Record<string, string>,
      signatures.get(i) as Record<string, string>,
    );
    if (problem) return problem;
  }
  return null;
}

export function readArcChain(fields: readonly HeaderField[]): ArcChain {
  const seals = fieldValues(fields, 'arc-seal')
    .slice(0, MAX_ARC_INSTANCES)
    .map((v) => {
      const t = parseTags(v);
      return {
        instance: instanceOf(t['i']),
        cv: t['cv']?.slice(0, 32).toLowerCase() || null,
        domain: cleanDomain(t['d'] ?? ''),
        selector: t['s']?.slice(0, 253) || null,
      };
    });
  const results = fieldValues(fields, 'arc-authentication-results')
    .slice(0, MAX_ARC_INSTANCES)
    .map((v) => {
      const { instance, rest } = aarInstance(v);
      const ar = parseAuthResults(rest);
      return { instance, authserv_id: ar.authservId, results: ar.results.map(resultEntry) };
    });
  const instances = new Set<number>();
  for (const name of ARC_HEADERS)
    for (const v of fieldValues(fields, name)) {
      const i = headerInstance(name, v);
      if (i !== null) instances.add(i);
    }
  // The last sealer: the highest instance; the top-most of two seals claiming it (the newer).
  let last: (typeof seals)[number] | undefined;
  for (const s of seals)
    if (s.instance !== null && (last === undefined || (last.instance as number) < s.instance)) last = s;
  return {
    instances: instances.size,
    seals,
    verdict: last?.cv ?? null,
    chain_problem: chainProblem(fields),
    authentication_results: results,
  };
}
