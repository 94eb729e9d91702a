/**
 * SPF record syntax (RFC 7208 §4.6, §5, §6, §7, ABNF in §12). Parsing is total: every term
 * becomes a mechanism or modifier, and every syntax error is collected (RFC 7208 §4.6: any
 * syntax error anywhere makes check_host() return permerror before evaluation).
 */
import { parseIp } from '../core/ip.ts';
import { validateMacroString } from './spf-macro.ts';

export type SpfQualifier = '+' | '-' | '~' | '?';
export type SpfMechanismType = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';

export interface SpfMechanism {
  /** The term as written. */
  raw: string;
  qualifier: SpfQualifier;
  type: SpfMechanismType;
  /** domain-spec (include, a, mx, ptr, exists) or network (ip4, ip6); null when absent. */
  value: string | null;
  /** IPv4 prefix length (ip4, a, mx); null when not given. */
  cidr4: number | null;
  /** IPv6 prefix length (ip6, a, mx); null when not given. */
  cidr6: number | null;
}

export interface SpfModifier {
  raw: string;
  name: string;
  value: string;
}

export interface ParsedSpf {
  raw: string;
  mechanisms: SpfMechanism[];
  modifiers: SpfModifier[];
  redirect: string | null;
  exp: string | null;
  /** Syntax errors, RFC-worded; non-empty means permerror. */
  errors: string[];
}

/** Terms that cause DNS queries (RFC 7208 §4.6.4); each counts against the limit of 10. */
export const DNS_TERMS: ReadonlySet<string> = new Set(['include', 'a', 'mx', 'ptr', 'exists', 'redirect']);
export const MAX_DNS_LOOKUPS = 10;
export const MAX_VOID_LOOKUPS = 2;

const MECHANISMS: ReadonlySet<string> = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);
const MODIFIER_NAME = /^[a-z][a-z0-9_.-]*$/i;
const TOPLABEL = /^([a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])$/i;
const CIDR4 = '(0|[1-9]\\d?)';
const CIDR6 = '(0|[1-9]\\d{0,2})';
const DUAL_CIDR = new RegExp(`(?:/${CIDR4})?(?://${CIDR6})?$`);

/** True when the record is an SPF version 1 record (RFC 7208 §4.5: "v=spf1" then space or end). */
export function isSpfRecord(text: string): boolean {
  return /^v=spf1( |$)/i.test(text);
}

/** domain-spec = macro-string domain-end (RFC 7208 §7.1); returns an error or null. */
export function domainSpecError(spec: string): string | null {
  if (spec.length === 0) return 'empty domain-spec';
  const macroError = validateMacroString(spec, false);
  if (macroError) return macroError;
  if (/%\{[a-z][^}]*\}$/i.test(spec)) return null;
  const trimmed = spec.endsWith('.') ? spec.slice(0, -1) : spec;
  const labels = trimmed.split('.');
  const top = labels.at(-1) ?? '';
  if (labels.length < 2 || !TOPLABEL.test(top)) {
    return `domain-spec "${spec}" does not end in a valid top label`;
  }
  return null;
}

function parseMechanism(term: string, errors: string[]): SpfMechanism | null {
  const m = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/i.exec(term);
  const name = m?.[2]?.toLowerCase() ?? '';
  if (!m || !MECHANISMS.has(name)) {
    errors.push(`unknown mechanism or invalid term "${term}"`);
    return null;
  }
  const qualifier = (m[1] || '+') as SpfQualifier;
  const type = name as SpfMechanismType;
  let rest = m[3] ?? '';
  const mech: SpfMechanism = { raw: term, qualifier, type, value: null, cidr4: null, cidr6: null };
  const fail = (why: string) => {
    errors.push(`invalid ${type} mechanism "${term}": ${why}`);
    return null;
  };
  /** `[":" domain-spec]` after a ptr, a or mx mechanism (RFC 7208 §5.3-5.5). */
  const optionalDomain = (tail: string) => {
    if (tail === '') return mech;
    if (!tail.startsWith(':')) return fail('expected ":" before the domain-spec');
    const err = domainSpecError(tail.slice(1));
    if (err) return fail(err);
    mech.value = tail.slice(1);
    return mech;
  };
  switch (type) {
    case 'all':
      return rest === '' ? mech : fail('"all" takes no argument');
    case 'include':
    case 'exists': {
      if (!rest.startsWith(':')) return fail('a domain-spec is required');
      const spec = rest.slice(1);
      const err = domainSpecError(spec);
      if (err) return fail(err);
      mech.value = spec;
      return mech;
    }
    case 'ptr':
      return optionalDomain(rest);
    case 'a':
    case 'mx': {
      const cidr = DUAL_CIDR.exec(rest);
      const cidrText = cidr?.[0] ?? '';
      if (cidr && cidrText !== '') {
        mech.cidr4 = cidr[1] === undefined ? null : Number(cidr[1]);
        mech.cidr6 = cidr[2] === undefined ? null : Number(cidr[2]);
        if ((mech.cidr4 ?? 0) > 32 || (mech.cidr6 ?? 0) > 128) return fail('prefix length out of range');
        rest = rest.slice(0, rest.length - cidrText.length);
      }
      return optionalDomain(rest);
    }
    case 'ip4':
    case 'ip6': {
      if (!rest.startsWith(':')) return fail('a network is required');
      const body = rest.slice(1);
      const slash = body.indexOf('/');
      const addr = slash === -1 ? body : body.slice(0, slash);
      const lenText = slash === -1 ? null : body.slice(slash + 1);
      const ip = parseIp(addr);
      const isV6Text = addr.includes(':');
      if (!ip || (type === 'ip4' && isV6Text) || (type === 'ip6' && !isV6Text)) {
        return fail(`"${addr}" is not an ${type === 'ip4' ? 'IPv4' : 'IPv6'} address`);
      }
      const max = type === 'ip4' ? 32 : 128;
      if (lenText !== null) {
        const pattern = type === 'ip4' ? new RegExp(`^${CIDR4}$`) : new RegExp(`^${CIDR6}$`);
        if (!pattern.test(lenText) || Number(lenText) > max) return fail('prefix length out of range');
      }
      mech.value = addr;
      if (type === 'ip4') mech.cidr4 = lenText === null ? null : Number(lenText);
      else mech.cidr6 = lenText === null ? null : Number(lenText);
      return mech;
    }
  }
}

export function parseSpf(record: string): ParsedSpf {
  const result: ParsedSpf = {
    raw: record,
    mechanisms: [],
    modifiers: [],
    redirect: null,
    exp: null,
    errors: [],
  };
  // RFC 7208 §3.1: SPF records are 7-bit ASCII.
  if (/[^\x20-\x7e]/.test(record))
    result.errors.push('record contains characters outside printable US-ASCII');
  if (!isSpfRecord(record)) {
    result.errors.push('record does not start with "v=spf1"');
    return result;
  }
  const terms = record
    .slice(6)
    .split(' ')
    .filter((t) => t.length > 0);
  for (const term of terms) {
    const eq = term.indexOf('=');
    const colon = term.indexOf(':');
    const slash = term.indexOf('/');
    const isModifier = eq > 0 && (colon === -1 || eq < colon) && (slash === -1 || eq < slash);
    if (isModifier) {
      const name = term.slice(0, eq);
      const value = term.slice(eq + 1);
      if (!MODIFIER_NAME.test(name)) {
        result.errors.push(`invalid modifier name in "${term}"`);
        continue;
      }
      const lower = name.toLowerCase();
      if (lower === 'redirect' || lower === 'exp') {
        const err = domainSpecError(value);
        if (err) result.errors.push(`invalid ${lower} modifier "${term}": ${err}`);
        // RFC 7208 §6: redirect and exp each appear at most once.
        if (result[lower] !== null) result.errors.push(`"${lower}" modifier appears more than once`);
        else result[lower] = value;
      } else {
        const err = validateMacroString(value, false);
        if (err) result.errors.push(`invalid modifier "${term}": ${err}`);
      }
      result.modifiers.push({ raw: term, name: lower, value });
      continue;
    }
    const mech = parseMechanism(term, result.errors);
    if (mech) result.mechanisms.push(mech);
  }
  return result;
}
