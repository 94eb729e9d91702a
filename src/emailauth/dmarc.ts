/**
 * DMARC record parsing and discovery (RFC 7489 §6.3, §6.6.3). Facts first: every tag and
 * problem is recorded; the score and recommendations are applied elsewhere.
 */
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';
import { organizationalDomain } from './domain-name.ts';
import { forEachTag } from './tag-list.ts';
import type { Checked, DmarcResult } from './types.ts';

export type DmarcPolicy = 'none' | 'quarantine' | 'reject';

export interface ParsedDmarc {
  version: string | null;
  policy: DmarcPolicy | null;
  /** sp= as written; null when omitted. */
  subdomain_policy: DmarcPolicy | null;
  percentage: number;
  aggregate_report_uris: string[];
  forensic_report_uris: string[];
  dkim_alignment: 'r' | 's';
  spf_alignment: 'r' | 's';
  failure_options: string;
  report_format: string;
  report_interval: number;
  /** Every tag as written (lower-case names), first occurrence wins. */
  tags: Record<string, string>;
  errors: string[];
  warnings: string[];
}

const POLICIES: ReadonlySet<string> = new Set(['none', 'quarantine', 'reject']);
const MAILTO = /^mailto:[^@\s,;!]+@[a-z0-9.-]+\.[a-z]{2,63}(![0-9]+[kmgt]?)?$/i;
const URI_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** True when the TXT record is a DMARC record (RFC 7489 §6.6.3: starts with "v=DMARC1"). */
export function isDmarcRecord(text: string): boolean {
  return /^v\s*=\s*DMARC1\s*(;|$)/i.test(text.trim());
}

function parseUris(tag: string, value: string, errors: string[], warnings: string[]): string[] {
  const uris = value
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u.length > 0);
  if (uris.length === 0) errors.push(`${tag}= is empty`);
  for (const uri of uris) {
    if (MAILTO.test(uri)) continue;
    if (URI_SCHEME.test(uri) && !uri.toLowerCase().startsWith('mailto:')) {
      warnings.push(`${tag}= URI "${uri}" is not mailto:; most receivers only send reports by email`);
    } else errors.push(`${tag}= URI "${uri}" is not a valid mailto: address`);
  }
  return uris;
}

/** A record's fields before any tag is read: RFC 7489 §6.3 defaults (fresh lists each call). */
function dmarcDefaults(): Omit<ParsedDmarc, 'tags' | 'errors' | 'warnings'> {
  return {
    version: null,
    policy: null,
    subdomain_policy: null,
    percentage: 100,
    aggregate_report_uris: [],
    forensic_report_uris: [],
    dkim_alignment: 'r',
    spf_alignment: 'r',
    failure_options: '0',
    report_format: 'afrf',
    report_interval: 86400,
  };
}

/** Reads one known tag's value into the record; returns why the value is invalid, or null. */
type TagRule = (out: ParsedDmarc, value: string, name: string) => string | null;

function policyTag(out: ParsedDmarc, value: string, name: string): string | null {
  const policy = value.toLowerCase();
  if (!POLICIES.has(policy)) return 'expected none, quarantine or reject';
  if (name === 'p') out.policy = policy as DmarcPolicy;
  else out.subdomain_policy = policy as DmarcPolicy;
  return null;
}

function alignmentTag(out: ParsedDmarc, value: string, name: string): string | null {
  if (value !== 'r' && value !== 's') return 'expected r or s';
  if (name === 'adkim') out.dkim_alignment = value;
  else out.spf_alignment = value;
  return null;
}

function reportFormatTag(out: ParsedDmarc, value: string): string | null {
  if (!/^[a-z0-9]+(:[a-z0-9]+)*$/i.test(value)) return 'expected a colon-separated list of formats';
  out.report_format = value.toLowerCase();
  if (!out.report_format.split(':').includes('afrf')) out.warnings.push('rf= does not list afrf');
  return null;
}

const TAG_RULES: Readonly<Record<string, TagRule>> = {
  v: (out, value) => {
    out.version = value;
    return value === 'DMARC1' ? null : 'must be DMARC1';
  },
  p: policyTag,
  sp: policyTag,
  pct: (out, value) => {
    if (!/^\d{1,3}$/.test(value) || Number(value) > 100) return 'expected an integer 0-100';
    out.percentage = Number(value);
    return null;
  },
  rua: (out, value) => {
    out.aggregate_report_uris = parseUris('rua', value, out.errors, out.warnings);
    return null;
  },
  ruf: (out, value) => {
    out.forensic_report_uris = parseUris('ruf', value, out.errors, out.warnings);
    return null;
  },
  adkim: alignmentTag,
  aspf: alignmentTag,
  fo: (out, value) => {
    if (!/^[01ds](:[01ds])*$/.test(value)) return 'expected a colon-separated list of 0, 1, d, s';
    out.failure_options = value;
    return null;
  },
  rf: reportFormatTag,
  ri: (out, value) => {
    if (!/^\d{1,10}$/.test(value) || Number(value) > 4294967295) return 'expected an unsigned 32-bit integer';
    out.report_interval = Number(value);
    return null;
  },
};

export function parseDmarc(raw: string): ParsedDmarc {
  const out: ParsedDmarc = {
    ...dmarcDefaults(),
    tags: {},
    errors: [],
    warnings: [],
  };
  forEachTag(
    raw,
    { lowerCaseNames: true, namePattern: /^[a-z][a-z0-9_]*$/ },
    (name, value, index) => {
      out.tags[name] = value;
      if (name === 'v' && index !== 0) out.errors.push('v=DMARC1 must be the first tag');
      // RFC 7489 §6.3's tags are the keys of TAG_RULES.
      const rule = Object.hasOwn(TAG_RULES, name) ? TAG_RULES[name] : undefined;
      if (!rule) {
        // RFC 7489 §6.3: unknown tags MUST be ignored; reported so typos are seen.
        out.warnings.push(`unknown tag ${name}= is ignored`);
        return;
      }
      const why = rule(out, value, name);
      if (why !== null) out.errors.push(`invalid ${name}= value "${value}": ${why}`);
    },
    (message) => out.errors.push(message),
  );
  if (out.version === null) out.errors.push('missing v=DMARC1');
  if (out.policy === null && !('p' in out.tags)) out.errors.push('required tag p= is missing');
  return out;
}

type Fetched =
  | { kind: 'records'; records: string[] }
  | { kind: 'absent' }
  | { kind: 'error'; message: string };

async function fetchDmarc(dns: DnsClient, domain: string): Promise<Fetched> {
  try {
    const rows = await dns.txt(`_dmarc.${domain}`);
    const records = rows.map((r) => r.join('')).filter(isDmarcRecord);
    return records.length === 0 ? { kind: 'absent' } : { kind: 'records', records };
  } catch (err) {
    if (isAbsent(err)) return { kind: 'absent' };
    const code = isDnsError(err) ? err.code : 'error';
    return {
      kind: 'error',
      message: `DNS ${code} while looking up _dmarc.${domain} TXT; DMARC could not be checked`,
    };
  }
}

export function emptyDmarc(orgDomain: string): DmarcResult {
  return {
    found: false,
    raw: null,
    ...dmarcDefaults(),
    effective_policy: null,
    organizational_domain: orgDomain,
    record_domain: null,
    inherited: false,
    partial_rollout: false,
    no_visibility: true,
    strength_rating: 'weak',
    is_valid: false,
    validation_errors: [],
    warnings: [],
  };
}

/** CONTRACT §8: strong = reject at 100 %; moderate = quarantine, or reject below 100 %; else weak. */
export function dmarcStrength(
  valid: boolean,
  policy: DmarcPolicy | null,
  pct: number,
): DmarcResult['strength_rating'] {
  if (!valid || policy === null || policy === 'none') return 'weak';
  if (policy === 'reject' && pct >= 100) return 'strong';
  return 'moderate';
}

/** Finds the DMARC record of a domain, falling back to its organizational domain (RFC 7489 §6.6.3). */
export async function checkDmarc(domain: string, dns: DnsClient): Promise<Checked<DmarcResult>> {
  const orgDomain = organizationalDomain(domain);
  const result = emptyDmarc(orgDomain);
  let recordDomain = domain;
  let fetched = await fetchDmarc(dns, domain);
  if (fetched.kind === 'absent' && orgDomain !== domain) {
    recordDomain = orgDomain;
    fetched = await fetchDmarc(dns, orgDomain);
  }
  if (fetched.kind === 'error') {
    result.validation_errors.push(fetched.message);
    return { result, status: 'temperror' };
  }
  if (fetched.kind === 'absent') return { result, status: 'absent' };
  const [raw = '', ...others] = fetched.records;
  const parsed = parseDmarc(raw);
  const subdomainPolicy = parsed.subdomain_policy ?? parsed.policy;
  const inherited = recordDomain !== domain;
  const errors = [...parsed.errors];
  if (others.length > 0) {
    // RFC 7489 §6.6.3: more than one record means no DMARC policy applies.
    errors.unshift(
      `${fetched.records.length} DMARC records at _dmarc.${recordDomain}; receivers apply none of them`,
    );
  }
  const valid = errors.length === 0;
  const effective = inherited ? subdomainPolicy : parsed.policy;
  const found: DmarcResult = {
    ...result,
    found: true,
    raw,
    version: parsed.version,
    policy: parsed.policy,
    subdomain_policy: subdomainPolicy,
    effective_policy: effective,
    percentage: parsed.percentage,
    aggregate_report_uris: parsed.aggregate_report_uris,
    forensic_report_uris: parsed.forensic_report_uris,
    dkim_alignment: parsed.dkim_alignment,
    spf_alignment: parsed.spf_alignment,
    failure_options: parsed.failure_options,
    report_format: parsed.report_format,
    report_interval: parsed.report_interval,
    record_domain: recordDomain,
    inherited,
    partial_rollout: parsed.percentage < 100,
    no_visibility: parsed.aggregate_report_uris.length === 0,
    strength_rating: dmarcStrength(valid, effective, parsed.percentage),
    is_valid: valid,
    validation_errors: errors,
    warnings: parsed.warnings,
  };
  return { result: found, status: 'found' };
}
