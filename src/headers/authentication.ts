import { aligned, cleanDomain, orgDomain } from './addresses.ts';
import { readArcChain } from './arc.ts';
import {
  type AuthResults,
  parseAuthResults,
  parseTags,
  type ResultInfo,
  resultEntry,
} from './auth-results.ts';
import { fieldValues, type HeaderField } from './header-block.ts';
import type { Authentication, AuthResultsHeader, DkimResult, DkimSignature } from './types.ts';

/**
 * Authentication facts from Authentication-Results (RFC 8601), Received-SPF (RFC 7208 §9.1),
 * DKIM-Signature (RFC 6376 §3.5) and ARC (RFC 8617). Headers are read, never verified: the
 * answer says what the receiving servers recorded.
 */
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
 * Which Authentication-Results to believe (RFC 8601 §5: a reader must know the authserv-ids of
 * its own administrative domain). Configured: exactly the ids of NETREP_TRUSTED_AUTHSERV_IDS
 * (lower case; `none` trusts no header). Otherwise the top-most header was written by the last
 * receiver, the mailbox the message was pasted from, whose border MTA removes incoming headers
 * carrying its own id: the top-most header and every header with its authserv-id are trusted.
 */
export interface AuthTrust {
  source: 'configured' | 'topmost';
  /** Whether the header at `index` (0 = top-most) with this authserv-id is trusted. */
  trusts(authservId: string | null, index: number | null): boolean;
}

export function authTrust(all: readonly AuthResults[], configured: readonly string[]): AuthTrust {
  if (configured.length > 0) {
    const ids = new Set(configured.map((id) => id.trim().toLowerCase()).filter((id) => id !== 'none'));
    return { source: 'configured', trusts: (id) => id !== null && ids.has(id) };
  }
  const top = all[0]?.authservId ?? null;
  return { source: 'topmost', trusts: (id, index) => index === 0 || (id !== null && id === top) };
}

/**
 * Picks the results to believe. Order: with configured trust, the top-most trusted
 * Authentication-Results; then the top-most Authentication-Results whose authserv-id matches the
 * receiving (top) hop's by-host; the newest ARC-Authentication-Results if it matches; the
 * top-most Authentication-Results; the newest ARC-Authentication-Results.
 */
export function chooseAuthResults(
  fields: readonly HeaderField[],
  receivingHost: string | null,
  trustedIds: readonly string[] = [],
): { ar: AuthResults | null; trusted: boolean } {
  const all = fieldValues(fields, 'authentication-results').map(parseAuthResults);
  const trust = authTrust(all, trustedIds);
  const arc = newestArcResults(fields);
  const configured =
    trust.source === 'configured' ? all.find((ar) => trust.trusts(ar.authservId, null)) : undefined;
  const ar =
    configured ??
    all.find((ar) => matchesHost(ar.authservId, receivingHost)) ??
    (arc && matchesHost(arc.authservId, receivingHost) ? arc : undefined) ??
    all[0] ??
    arc;
  if (!ar) return { ar: null, trusted: false };
  const index = all.indexOf(ar);
  return { ar, trusted: trust.trusts(ar.authservId, index === -1 ? null : index) };
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

/** The SPF verdict: the trusted Authentication-Results' spf=, else the first Received-SPF header's word. */
function spfOf(fields: readonly HeaderField[], results: ResultInfo[]): ReturnType<typeof spfVerdict> {
  const fromAr = results
    .filter((r) => r.method === 'spf')
    .map((r) => spfVerdict(r.result))
    .find((v) => v !== null);
  if (fromAr !== undefined) return fromAr;
  const receivedSpf = fieldValues(fields, 'received-spf')[0];
  return receivedSpf === undefined ? null : spfVerdict(receivedSpf.split(' ')[0]);
}

type SignatureRef = { d: string | null; s: string | null };

/**
 * The DKIM signature the answer describes: one whose domain passed, else one aligned with From,
 * else the first. The receiver's record names the signature it checked (RFC 8601 §2.7.1
 * header.d/i, header.s): it stands in when the pasted header holds no DKIM-Signature, or one without s=.
 */
function chosenSignature(
  signatures: Record<string, string>[],
  dkimResults: ResultInfo[],
  verdict: ResultInfo | undefined,
  fromDomain: string | null,
): SignatureRef | undefined {
  const passingDomains = new Set(
    dkimResults
      .filter((r) => r.result === 'pass')
      .map(resultDomain)
      .filter((d): d is string => d !== null),
  );
  const withDomain = signatures.map((t) => ({ d: cleanDomain(t['d'] ?? ''), s: t['s'] || null }));
  const recorded = verdict ? { d: resultDomain(verdict), s: verdict.props['header.s'] || null } : undefined;
  const signed =
    withDomain.find((sig) => sig.d !== null && passingDomains.has(sig.d)) ??
    withDomain.find((sig) => sig.d !== null && fromDomain !== null && aligned(sig.d, fromDomain)) ??
    withDomain[0];
  if (signed && recorded && signed.s === null && signed.d === recorded.d) return { ...signed, s: recorded.s };
  return signed ?? recorded;
}

export function readAuthentication(
  fields: readonly HeaderField[],
  receivingHost: string | null,
  fromDomain: string | null,
  trustedIds: readonly string[] = [],
): Authentication {
  const { ar, trusted } = chooseAuthResults(fields, receivingHost, trustedIds);
  const results = ar?.results ?? [];
  const byMethod = (m: string) => results.filter((r) => r.method === m);
  const spf = spfOf(fields, results);
  const dkimResults = byMethod('dkim');
  const verdict = dkimResults.find((r) => r.result === 'pass') ?? dkimResults[0];
  const dkimVerdict = verdict?.result ?? null;
  const signatures = fieldValues(fields, 'dkim-signature').map(parseTags);
  const chosen = chosenSignature(signatures, dkimResults, verdict, fromDomain);
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
    authserv_id_trusted: trusted,
    ...readEvidence(fields, trustedIds),
  };
}

/** Caps on the lists an answer carries (a 48 KiB header block could hold thousands of results). */
export const MAX_AR_HEADERS = 50;
export const MAX_DKIM_RESULTS = 100;
export const MAX_DKIM_SIGNATURES = 50;

/** Everything the headers record, pass and fail: every A-R header, every dkim= result, every signature, ARC. */
function readEvidence(
  fields: readonly HeaderField[],
  trustedIds: readonly string[],
): Pick<
  Authentication,
  'trust_source' | 'authentication_results' | 'dkim_results' | 'dkim_signatures' | 'arc'
> {
  const all = fieldValues(fields, 'authentication-results').map(parseAuthResults);
  const trust = authTrust(all, trustedIds);
  const headers: AuthResultsHeader[] = all.slice(0, MAX_AR_HEADERS).map((ar, i) => ({
    authserv_id: ar.authservId,
    trusted: trust.trusts(ar.authservId, i),
    results: ar.results.map(resultEntry),
  }));
  const dkim: DkimResult[] = [];
  all.forEach((ar, i) => {
    for (const r of ar.results) {
      if (r.method !== 'dkim' || dkim.length >= MAX_DKIM_RESULTS) continue;
      dkim.push({
        result: r.result,
        domain: resultDomain(r),
        selector: r.props['header.s']?.slice(0, 253) || null,
        reason: r.props['reason'] ?? null,
        authserv_id: ar.authservId,
        trusted: trust.trusts(ar.authservId, i),
      });
    }
  });
  const signatures: DkimSignature[] = fieldValues(fields, 'dkim-signature')
    .slice(0, MAX_DKIM_SIGNATURES)
    .map((v) => {
      const t = parseTags(v);
      return {
        domain: cleanDomain(t['d'] ?? ''),
        selector: t['s']?.slice(0, 253) || null,
        algorithm: t['a']?.slice(0, 64).toLowerCase() || null,
      };
    });
  return {
    trust_source: trust.source,
    authentication_results: headers,
    dkim_results: dkim,
    dkim_signatures: signatures,
    arc: readArcChain(fields),
  };
}
