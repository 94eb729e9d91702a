/**
 * SPF policy analysis for the domain check: the one v=spf1 record, its terms, and the DNS
 * lookups it needs counted recursively through include and redirect (RFC 7208 §4.6.4), the
 * way a receiver would spend them, with loops and void lookups found.
 */
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';
import {
  DNS_TERMS,
  isSpfRecord,
  MAX_DNS_LOOKUPS,
  MAX_VOID_LOOKUPS,
  type ParsedSpf,
  parseSpf,
  type SpfMechanism,
  type SpfQualifier,
} from './spf-record.ts';
import type { Checked, SpfResult } from './types.ts';

/** Past this many counted lookups the walk stops: the policy is already over the limit. */
const WALK_LIMIT = 2 * MAX_DNS_LOOKUPS;

type Fetched =
  | { kind: 'record'; raw: string; count: number }
  | { kind: 'absent' }
  | { kind: 'error'; message: string };

function problem(err: unknown, what: string): string {
  return `temperror: DNS ${isDnsError(err) ? err.code : 'error'} while looking up ${what}`;
}

async function fetchSpf(dns: DnsClient, domain: string): Promise<Fetched> {
  try {
    const rows = await dns.txt(domain);
    const records = rows.map((r) => r.join('')).filter(isSpfRecord);
    if (records.length === 0) return { kind: 'absent' };
    return { kind: 'record', raw: records[0] ?? '', count: records.length };
  } catch (err) {
    if (isAbsent(err)) return { kind: 'absent' };
    return { kind: 'error', message: problem(err, `${domain} TXT`) };
  }
}

export function emptySpf(): SpfResult {
  return {
    found: false,
    record_count: 0,
    status: 'none',
    raw: null,
    mechanisms: [],
    modifiers: [],
    all_qualifier: null,
    is_valid: false,
    is_permissive: false,
    validation_errors: [],
    warnings: [],
    dns_lookup_count: 0,
    exceeds_lookups: false,
    void_lookup_count: 0,
    exceeds_void_lookups: false,
    includes: [],
  };
}

interface Walk {
  dns: DnsClient;
  lookups: number;
  voids: number;
  errors: string[];
  warnings: string[];
  includes: string[];
}

async function voidCheck(walk: Walk, what: string, query: () => Promise<unknown[]>): Promise<unknown[]> {
  try {
    return await query();
  } catch (err) {
    if (isAbsent(err)) {
      walk.voids += 1;
      return [];
    }
    walk.errors.push(problem(err, what));
    return [];
  }
}

/** a: both families asked; a void when neither has an address (RFC 7208 §4.6.4). */
async function walkA(target: string, walk: Walk): Promise<void> {
  const [v4, v6] = await Promise.all([
    walk.dns.a(target).catch((e: unknown) => e),
    walk.dns.aaaa(target).catch((e: unknown) => e),
  ]);
  if (isAbsent(v4) && isAbsent(v6)) walk.voids += 1;
  else if (!Array.isArray(v4) && !Array.isArray(v6)) {
    // Neither family answered and one failed: name the failure, not the absence.
    walk.errors.push(isAbsent(v4) ? problem(v6, `${target} AAAA`) : problem(v4, `${target} A`));
  }
}

async function walkMx(mech: SpfMechanism, target: string, walk: Walk): Promise<void> {
  const rows = await voidCheck(walk, `${target} MX`, () => walk.dns.mx(target));
  if (rows.length > 10)
    walk.errors.push(`${mech.raw}: ${target} has ${rows.length} MX hosts, over the limit of 10`);
}

/** What one mechanism costs and risks; `all` is handled by the caller. */
async function walkMechanism(mech: SpfMechanism, target: string, chain: string[], walk: Walk): Promise<void> {
  switch (mech.type) {
    case 'include':
      await followRecord(target, `include:${target}`, chain, walk);
      return;
    case 'a':
      return walkA(target, walk);
    case 'mx':
      return walkMx(mech, target, walk);
    case 'ptr':
      walk.warnings.push(
        `${mech.raw}: the ptr mechanism is slow and unreliable and SHOULD NOT be used (RFC 7208 §5.5)`,
      );
      return;
    case 'exists':
      await voidCheck(walk, `${target} A`, () => walk.dns.a(target));
      return;
    default:
      return;
  }
}

/**
 * The mechanisms up to the first all: that all's qualifier (null when none), or 'over limit' when
 * the walk ran out of lookups (the rest of the record is then not walked).
 */
async function walkMechanisms(
  parsed: ParsedSpf,
  domain: string,
  chain: string[],
  walk: Walk,
): Promise<SpfQualifier | null | 'over limit'> {
  for (const mech of parsed.mechanisms) {
    if (DNS_TERMS.has(mech.type)) walk.lookups += 1;
    if (walk.lookups > WALK_LIMIT) return 'over limit';
    // "all" always matches: later terms are never evaluated, so they cost no lookups.
    if (mech.type === 'all') return mech.qualifier;
    if (mech.value?.includes('%')) {
      walk.warnings.push(`${mech.raw} uses macros; its lookups depend on each message and were not followed`);
      continue;
    }
    await walkMechanism(mech, mech.value ?? domain, chain, walk);
  }
  return null;
}

/** Walks one parsed record; returns the qualifier of its effective all (through redirect). */
async function walkRecord(
  parsed: ParsedSpf,
  domain: string,
  chain: string[],
  walk: Walk,
): Promise<SpfQualifier | null> {
  const allQualifier = await walkMechanisms(parsed, domain, chain, walk);
  if (allQualifier === 'over limit') return null;
  if (parsed.redirect !== null) {
    walk.lookups += 1;
    // RFC 7208 §6.1: redirect is ignored when the record has an all mechanism.
    const followed = allQualifier === null && !parsed.redirect.includes('%');
    if (allQualifier === null && !followed) {
      walk.warnings.push(`redirect=${parsed.redirect} uses macros and was not followed`);
    } else if (followed && walk.lookups <= WALK_LIMIT) {
      return followRecord(parsed.redirect, `redirect=${parsed.redirect}`, chain, walk);
    }
  }
  for (const mod of parsed.modifiers) {
    if (mod.name !== 'redirect' && mod.name !== 'exp')
      walk.warnings.push(`unknown modifier ${mod.raw} is ignored`);
  }
  return allQualifier;
}

async function followRecord(
  domain: string,
  term: string,
  chain: string[],
  walk: Walk,
): Promise<SpfQualifier | null> {
  const name = domain.toLowerCase().replace(/\.$/, '');
  if (chain.includes(name)) {
    walk.errors.push(`${term} loops back to ${[...chain, name].join(' → ')}`);
    return null;
  }
  walk.includes.push(name);
  const fetched = await fetchSpf(walk.dns, name);
  if (fetched.kind === 'error') {
    walk.errors.push(fetched.message);
    return null;
  }
  if (fetched.kind === 'absent') {
    walk.voids += 1;
    walk.errors.push(`${term}: ${name} has no SPF record (permerror)`);
    return null;
  }
  if (fetched.count > 1)
    walk.errors.push(`${term}: ${name} publishes ${fetched.count} SPF records (permerror)`);
  const parsed = parseSpf(fetched.raw);
  for (const err of parsed.errors) walk.errors.push(`${term}: ${err}`);
  return walkRecord(parsed, name, [...chain, name], walk);
}

export async function analyzeSpf(domain: string, dns: DnsClient): Promise<Checked<SpfResult>> {
  const result = emptySpf();
  let rows: string[][];
  try {
    rows = await dns.txt(domain);
  } catch (err) {
    if (!isAbsent(err)) {
      result.validation_errors.push(problem(err, `${domain} TXT`));
      result.status = 'temperror';
      return { result, status: 'temperror' };
    }
    return { result, status: 'absent' };
  }
  const records = rows.map((r) => r.join('')).filter(isSpfRecord);
  result.record_count = records.length;
  const raw = records[0];
  if (raw === undefined) return { result, status: 'absent' };
  result.raw = raw;
  if (records.length > 1) {
    result.validation_errors.push(
      `${records.length} SPF records at ${domain}; RFC 7208 §4.5 makes this a permerror`,
    );
  }
  const parsed = parseSpf(raw);
  result.validation_errors.push(...parsed.errors);
  result.mechanisms = parsed.mechanisms.map((m) => ({
    raw: m.raw,
    qualifier: m.qualifier,
    mechanism: m.type,
    value: termValue(m),
    ip4_cidr_length: m.cidr4,
    ip6_cidr_length: m.cidr6,
  }));
  result.modifiers = parsed.modifiers.map((m) => ({ raw: m.raw, name: m.name, value: m.value }));
  const walk: Walk = { dns, lookups: 0, voids: 0, errors: [], warnings: [], includes: [] };
  result.all_qualifier = await walkRecord(parsed, domain, [domain], walk);
  result.validation_errors.push(...walk.errors);
  result.warnings = [...new Set(walk.warnings)];
  result.includes = walk.includes;
  result.dns_lookup_count = walk.lookups;
  result.exceeds_lookups = walk.lookups > MAX_DNS_LOOKUPS;
  result.void_lookup_count = walk.voids;
  result.exceeds_void_lookups = walk.voids > MAX_VOID_LOOKUPS;
  if (result.exceeds_lookups) {
    result.validation_errors.push(
      `${walk.lookups > WALK_LIMIT ? `more than ${WALK_LIMIT}` : walk.lookups} DNS lookups, over the limit of ${MAX_DNS_LOOKUPS} (permerror)`,
    );
  }
  if (result.exceeds_void_lookups) {
    result.validation_errors.push(
      `${walk.voids} void lookups, over the limit of ${MAX_VOID_LOOKUPS} (permerror)`,
    );
  }
  result.found = true;
  result.is_permissive = result.all_qualifier === '+';
  result.is_valid = records.length === 1 && result.validation_errors.length === 0;
  result.status = spfStatus(records.length, result.validation_errors);
  // Only DNS failures stand between the record and a verdict: it could not be checked. A
  // permerror found beside a failure stands whatever the unread lookup would have said.
  return { result, status: result.status === 'temperror' ? 'temperror' : 'found' };
}

/** RFC 7208 words for what was found; a DNS failure alone is a temperror, any other error a permerror. */
function spfStatus(count: number, errors: readonly string[]): SpfResult['status'] {
  if (count > 1) return 'multiple_records';
  if (errors.length === 0) return 'valid';
  return errors.every((e) => e.startsWith('temperror:')) ? 'temperror' : 'permerror';
}

/** An ip4/ip6 network keeps its prefix length as written (ip4:192.0.2.0/24 → 192.0.2.0/24). */
function termValue(m: SpfMechanism): string | null {
  if (m.value === null) return null;
  const length = m.type === 'ip4' ? m.cidr4 : m.type === 'ip6' ? m.cidr6 : null;
  return length === null ? m.value : `${m.value}/${length}`;
}
