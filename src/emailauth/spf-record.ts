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

type MechanismResult = SpfMechanism | string;

/** `[":" domain-spec]` after a ptr, a or mx mechanism (RFC 7208 §5.3-5.5). */
function withOptionalDomain(mech: SpfMechanism, tail: string): MechanismResult {
  if (tail === '') return mech;
  if (!tail.startsWith(':')) return 'expected ":" before the domain-spec';
  const err = domainSpecError(tail.slice(1));
  if (err) return err;
  mech.value = tail.slice(1);
  return mech;
}

/** include and exists: `":" domain-spec` is required (RFC 7208 §5.2, §5.7). */
function withRequiredDomain(mech: SpfMechanism, rest: string): MechanismResult {
  if (!rest.startsWith(':')) return 'a domain-spec is required';
  const err = domainSpecError(rest.slice(1));
  if (err) return err;
  mech.value = rest.slice(1);
  return mech;
}

/** a and mx: `[":" domain-spec] [dual-cidr-length]` (RFC 7208 §5.3, §5.4). */
function withDualCidr(mech: SpfMechanism, rest: string): MechanismResult {
  const cidr = DUAL_CIDR.exec(rest);
  const cidrText = cidr?.[0] ?? '';
  if (!cidr || cidrText === '') return withOptionalDomain(mech, rest);
  mech.cidr4 = cidr[1] === undefined ? null : Number(cidr[1]);
  mech.cidr6 = cidr[2] === undefined ? null : Number(cidr[2]);
  if ((mech.cidr4 ?? 0) > 32 || (mech.cidr6 ?? 0) > 128) return 'prefix length out of range';
  return withOptionalDomain(mech, rest.slice(0, rest.length - cidrText.length));
}

/** A network's prefix length text, or null when it is out of the RFC 7208 §12 ip4-cidr-length/ip6-cidr-length range. */
function prefixLength(text: string, v4: boolean): number | null {
  const pattern = new RegExp(`^${v4 ? CIDR4 : CIDR6}$`);
  const length = Number(text);
  return pattern.test(text) && length <= (v4 ? 32 : 128) ? length : null;
}

/** ip4 and ip6: `":" network ["/" length]` (RFC 7208 §5.6). */
function withNetwork(mech: SpfMechanism, rest: string): MechanismResult {
  if (!rest.startsWith(':')) return 'a network is required';
  const v4 = mech.type === 'ip4';
  const [addr = '', lenText] = rest.slice(1).split(/\/(.*)/s, 2);
  if (!parseIp(addr) || v4 === addr.includes(':'))
    return `"${addr}" is not an ${v4 ? 'IPv4' : 'IPv6'} address`;
  const length = lenText === undefined ? null : prefixLength(lenText, v4);
  if (lenText !== undefined && length === null) return 'prefix length out of range';
  mech.value = addr;
  if (v4) mech.cidr4 = length;
  else mech.cidr6 = length;
  return mech;
}

function mechanismArguments(mech: SpfMechanism, rest: string): MechanismResult {
  switch (mech.type) {
    case 'all':
      return rest === '' ? mech : '"all" takes no argument';
    case 'include':
    case 'exists':
      return withRequiredDomain(mech, rest);
    case 'ptr':
      return withOptionalDomain(mech, rest);
    case 'a':
    case 'mx':
      return withDualCidr(mech, rest);
    case 'ip4':
    case 'ip6':
      return withNetwork(mech, rest);
  }
}

function parseMechanism(term: string, errors: string[]): SpfMechanism | null {
  const m = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/i.exec(term);
  const name = m?.[2]?.toLowerCase() ?? '';
  if (!m || !MECHANISMS.has(name)) {
    errors.push(`unknown mechanism or invalid term "${term}"`);
    return null;
  }
  const type = name as SpfMechanismType;
  const mech: SpfMechanism = {
    raw: term,
    qualifier: (m[1] || '+') as SpfQualifier,
    type,
    value: null,
    cidr4: null,
    cidr6: null,
  };
  const result = mechanismArguments(mech, m[3] ?? '');
  if (typeof result === 'string') {
    errors.push(`invalid ${type} mechanism "${term}": ${result}`);
    return null;
  }
  return result;
}

/** A modifier term (RFC 7208 §6): redirect and exp at most once each, others checked as macro strings. */
function addModifier(result: ParsedSpf, term: string, eq: number): void {
  const name = term.slice(0, eq);
  const value = term.slice(eq + 1);
  if (!MODIFIER_NAME.test(name)) {
    result.errors.push(`invalid modifier name in "${term}"`);
    return;
  }
  const lower = name.toLowerCase();
  if (lower === 'redirect' || lower === 'exp') {
    const err = domainSpecError(value);
    if (err) result.errors.push(`invalid ${lower} modifier "${term}": ${err}`);
    if (result[lower] !== null) result.errors.push(`"${lower}" modifier appears more than once`);
    else result[lower] = value;
  } else {
    const err = validateMacroString(value, false);
    if (err) result.errors.push(`invalid modifier "${term}": ${err}`);
  }
  result.modifiers.push({ raw: term, name: lower, value });
}

/** The position of "=" when the term is a modifier (name "=" before any ":" or "/"), else -1. */
function modifierEquals(term: string): number {
  const eq = term.indexOf('=');
  const colon = term.indexOf(':');
  const slash = term.indexOf('/');
  return eq > 0 && (colon === -1 || eq < colon) && (slash === -1 || eq < slash) ? eq : -1;
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
    const eq = modifierEquals(term);
    if (eq > 0) {
      addModifier(result, term, eq);
      continue;
    }
    const mech = parseMechanism(term, result.errors);
    if (mech) result.mechanisms.push(mech);
  }
  return result;
}
