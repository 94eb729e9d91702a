import { aligned, cleanDomain, orgDomain } from './addresses.ts';
import { fieldValues, type HeaderField } from './header-block.ts';
import type { Authentication } from './types.ts';

/**
 * Authentication facts from Authentication-Results (RFC 8601), Received-SPF (RFC 7208 §9.1),
 * DKIM-Signature (RFC 6376 §3.5) and ARC (RFC 8617). Headers are read, never verified: the
 * answer says what the receiving servers recorded.
 */
export interface ResultInfo {
  method: string;
  result: string;
  props: Record<string, string>;
}

export interface AuthResults {
  authservId: string | null;
  results: ResultInfo[];
}

type SpfResult = Authentication['spf_result'];
const SPF_RESULTS = new Set<string>([
  'pass',
  'fail',
  'softfail',
  'neutral',
  'none',
  'temperror',
  'permerror',
  'policy',
]);
// RFC 4408 and vendor spellings of the same verdicts.
const SPF_ALIASES: Record<string, SpfResult> = { hardfail: 'fail', error: 'temperror', unknown: 'permerror' };
const MAX_VALUE = 8192;

/** Drops (comments) outside "quoted strings" and splits on `;` outside quotes. */
function splitSegments(value: string): string[] {
  const segments: string[] = [];
  let current = '';
  let depth = 0;
  let quoted = false;
  for (const ch of value.slice(0, MAX_VALUE)) {
    if (quoted) {
      if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '(') depth++;
    else if (ch === ')' && depth > 0) depth--;
    else if (depth > 0) continue;
    else if (ch === '"') quoted = true;
    else if (ch === ';') {
      segments.push(current.trim());
      current = '';
    } else current += ch;
  }
  segments.push(current.trim());
  return segments;
}

function readResinfo(segment: string): ResultInfo | null {
  const tokens = segment.replaceAll(' =', '=').replaceAll('= ', '=').split(' ');
  const first = tokens[0] ?? '';
  const eq = first.indexOf('=');
  if (eq <= 0) return null;
  const method = (first.slice(0, eq).split('/')[0] as string).toLowerCase();
  const result = first.slice(eq + 1, eq + 33).toLowerCase();
  if (result.length === 0) return null;
  const props: Record<string, string> = {};
  for (const t of tokens.slice(1, 16)) {
    const e = t.indexOf('=');
    if (e > 0) props[t.slice(0, e).toLowerCase()] = t.slice(e + 1);
  }
  return { method, result, props };
}

export function parseAuthResults(value: string): AuthResults {
  const segments = splitSegments(value);
  const head = segments[0] ?? '';
  let authservId: string | null = null;
  let rest = segments.slice(1);
  // Microsoft 365 writes no authserv-id: the first segment is already a result.
  if (head.split(' ')[0]?.includes('=')) rest = segments;
  else authservId = head.split(' ')[0]?.toLowerCase() || null;
  const results: ResultInfo[] = [];
  for (const s of rest.slice(0, 32)) {
    const r = readResinfo(s);
    if (r) results.push(r);
  }
  return { authservId, results };
}

/** `k=v; k=v` tag lists (DKIM-Signature, ARC-Seal); whitespace inside values is dropped. */
export function parseTags(value: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const part of value.slice(0, MAX_VALUE).split(';').slice(0, 32)) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    if (!(key in tags)) tags[key] = part.slice(eq + 1).replaceAll(' ', '');
  }
  return tags;
}

function spfVerdict(word: string | undefined): SpfResult | null {
  const w = (word ?? '').toLowerCase();
  if (SPF_RESULTS.has(w)) return w as SpfResult;
  return SPF_ALIASES[w] ?? null;
}

/** Authserv-id matches the receiving host: same name, a parent of it, or the same organization. */
function matchesHost(authservId: string | null, host: string | null): boolean {
  if (authservId === null || host === null) return false;
  const a = cleanDomain(authservId);
  const h = cleanDomain(host);
  if (a === null || h === null) return false;
  return a === h || h.endsWith(`.${a}`) || orgDomain(a) === orgDomain(h);
}

function newestArcResults(fields: readonly HeaderField[]): AuthResults | null {
  let best: { i: number; ar: AuthResults } | null = null;
  for (const v of fieldValues(fields, 'arc-authentication-results')) {
    const semi = v.indexOf(';');
    if (semi === -1) continue;
    const i = Number(parseTags(v.slice(0, semi))['i']);
    if (!Number.isInteger(i)) continue;
    if (best === null || i > best.i) best = { i, ar: parseAuthResults(v.slice(semi + 1)) };
  }
  return best?.ar ?? null;
}

/**
 * Picks the results to believe. Order: the top-most Authentication-Results whose authserv-id
 * matches the receiving (top) hop's by-host; the newest ARC-Authentication-Results if it matches;
 * the top-most Authentication-Results; the newest ARC-Authentication-Results.
 */
export function chooseAuthResults(
  fields: readonly HeaderField[],
  receivingHost: string | null,
): AuthResults | null {
  const all = fieldValues(fields, 'authentication-results').map(parseAuthResults);
  const arc = newestArcResults(fields);
  return (
    all.find((ar) => matchesHost(ar.authservId, receivingHost)) ??
    (arc && matchesHost(arc.authservId, receivingHost) ? arc : undefined) ??
    all[0] ??
    arc
  );
}

function newestArcSealCv(fields: readonly HeaderField[]): string | null {
  let best: { i: number; cv: string } | null = null;
  for (const v of fieldValues(fields, 'arc-seal')) {
    const tags = parseTags(v);
    const i = Number(tags['i']);
    if (Number.isInteger(i) && tags['cv'] && (best === null || i > best.i))
      best = { i, cv: tags['cv'].toLowerCase() };
  }
  return best?.cv ?? null;
}

/** Signing domain a dkim= result names: header.d, else the domain of header.i. */
function resultDomain(r: ResultInfo): string | null {
  return cleanDomain(r.props['header.d'] ?? (r.props['header.i'] ?? '').split('@').pop() ?? '');
}

export function readAuthentication(
  fields: readonly HeaderField[],
  receivingHost: string | null,
  fromDomain: string | null,
): Authentication {
  const ar = chooseAuthResults(fields, receivingHost);
  const results = ar?.results ?? [];
  const byMethod = (m: string) => results.filter((r) => r.method === m);

  const spfFromAr = byMethod('spf')
    .map((r) => spfVerdict(r.result))
    .find((v) => v !== null);
  const receivedSpf = fieldValues(fields, 'received-spf')[0];
  const spf = spfFromAr ?? (receivedSpf === undefined ? null : spfVerdict(receivedSpf.split(' ')[0]));

  const dkimResults = byMethod('dkim');
  const verdict = dkimResults.find((r) => r.result === 'pass') ?? dkimResults[0];
  const dkimVerdict = verdict?.result ?? null;
  const passingDomains = new Set(
    dkimResults
      .filter((r) => r.result === 'pass')
      .map(resultDomain)
      .filter((d): d is string => d !== null),
  );
  const signatures = fieldValues(fields, 'dkim-signature').map(parseTags);
  const withDomain = signatures.map((t) => ({ d: cleanDomain(t['d'] ?? ''), s: t['s'] || null }));
  // The receiver's record names the signature it checked (RFC 8601 §2.7.1 header.d/i, header.s):
  // it stands in when the pasted header holds no DKIM-Signature, or one without s=.
  const recorded = verdict ? { d: resultDomain(verdict), s: verdict.props['header.s'] || null } : undefined;
  const signed =
    withDomain.find((sig) => sig.d !== null && passingDomains.has(sig.d)) ??
    withDomain.find((sig) => sig.d !== null && fromDomain !== null && aligned(sig.d, fromDomain)) ??
    withDomain[0];
  const chosen =
    signed && recorded && signed.s === null && signed.d === recorded.d
      ? { ...signed, s: recorded.s }
      : (signed ?? recorded);
  // A signature was there if the header carries one or a receiver recorded a DKIM result for one.
  const signaturePresent = signatures.length > 0 || (dkimVerdict !== null && dkimVerdict !== 'none');

  return {
    spf_result: spf ?? 'none',
    dkim_result: signaturePresent ? 'present' : 'absent',
    dkim_verdict: dkimVerdict,
    dkim_selector: chosen?.s?.slice(0, 253) ?? null,
    dkim_domain: chosen?.d ?? null,
    dmarc_result: byMethod('dmarc')[0]?.result ?? null,
    arc_result: byMethod('arc')[0]?.result ?? newestArcSealCv(fields),
    authserv_id: ar?.authservId ?? null,
  };
}
