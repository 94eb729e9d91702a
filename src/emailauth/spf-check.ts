/**
 * check_host() of RFC 7208 §4: the SPF result for a client IP, a domain and a sender.
 * Results and reasons use the RFC's words; DNS failures become temperror, record and
 * limit problems permerror, never exceptions.
 */
import { type Clock, systemClock } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent } from '../core/dns/index.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import {
  addresses,
  countLookup,
  mxNames,
  SpfAbort,
  type State,
  transient,
  validatedNames,
} from './spf-lookups.ts';
import { expandMacros, truncateDomain, validateMacroString } from './spf-macro.ts';
import {
  DNS_TERMS,
  isSpfRecord,
  type ParsedSpf,
  parseSpf,
  type SpfMechanism,
  type SpfQualifier,
} from './spf-record.ts';

export type SpfResultCode = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror';

export interface SpfCheckOptions {
  dns: DnsClient;
  /** HELO/EHLO identity for %{h}; defaults to the domain. */
  helo?: string;
  /** Receiving host name for %{r} in explanations. */
  receiver?: string;
  clock?: Clock;
}

export interface SpfCheckResult {
  result: SpfResultCode;
  domain: string;
  ip: string;
  sender: string;
  /** The term that decided the result (e.g. "-all", "include:_spf.example.net"); null for defaults and errors. */
  mechanism: string | null;
  /** The domain whose record held that term. */
  mechanism_domain: string | null;
  /** Expanded exp= text on fail, when the domain publishes one. */
  explanation: string | null;
  /** Why, in RFC wording. */
  reason: string;
  dns_lookups: number;
  void_lookups: number;
}

const QUALIFIER_RESULT: Record<SpfQualifier, SpfResultCode> = {
  '+': 'pass',
  '-': 'fail',
  '~': 'softfail',
  '?': 'neutral',
};

interface Outcome {
  result: SpfResultCode;
  mechanism: string | null;
  mechanismDomain: string | null;
  explanation: string | null;
  reason: string;
}

/** RFC 7208 §4.3: labels of 1-63 octets, at least two labels, total under 254. */
export function isValidSpfDomain(domain: string): boolean {
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  return labels.length >= 2 && labels.every((l) => l.length >= 1 && l.length <= 63);
}

function cidrMatch(ip: ParsedIp, network: ParsedIp, prefix: number): boolean {
  if (ip.family !== network.family) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const left = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    const i = bit / 8;
    if (((ip.bytes[i] ?? 0) & mask) !== ((network.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function isSubdomainOf(name: string, domain: string): boolean {
  const n = name.toLowerCase();
  const d = domain.toLowerCase().replace(/\.$/, '');
  return n === d || n.endsWith(`.${d}`);
}

async function target(mech: { value: string | null }, domain: string, state: State): Promise<string> {
  if (mech.value === null) return domain;
  return truncateDomain(await expandMacros(mech.value, { ...state.base, domain }));
}

/** ip4 and ip6 (RFC 7208 §5.6); an ip6 network written as IPv4-mapped stays an IPv6 network. */
function matchNetwork(mech: SpfMechanism, ip: ParsedIp): boolean {
  const net = parseIp(mech.value);
  if (!net) return false;
  if (mech.type === 'ip4') return ip.family === 4 && cidrMatch(ip, net, mech.cidr4 ?? 32);
  if (ip.family !== 6) return false;
  const bytes = net.family === 6 ? net.bytes : [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...net.bytes];
  return cidrMatch(ip, { ...net, family: 6, bytes }, mech.cidr6 ?? 128);
}

function prefixFor(mech: SpfMechanism, ip: ParsedIp): number {
  return ip.family === 4 ? (mech.cidr4 ?? 32) : (mech.cidr6 ?? 128);
}

/** a (RFC 7208 §5.3). */
async function matchA(mech: SpfMechanism, domain: string, state: State): Promise<boolean> {
  const name = await target(mech, domain, state);
  if (!isValidSpfDomain(name)) return false;
  const ip = state.base.ip;
  const addrs = await addresses(state, name, ip.family, true);
  return addrs.some((a) => cidrMatch(ip, a, prefixFor(mech, ip)));
}

/** mx (RFC 7208 §5.4). */
async function matchMx(mech: SpfMechanism, domain: string, state: State): Promise<boolean> {
  const name = await target(mech, domain, state);
  if (!isValidSpfDomain(name)) return false;
  const mxs = await mxNames(state, name);
  // RFC 7208 §4.6.4: more than 10 MX names is a permerror.
  if (mxs.length > 10) throw new SpfAbort('permerror', `${name} has more than 10 MX records`);
  const ip = state.base.ip;
  for (const mx of mxs) {
    if (mx.exchange === '' || mx.exchange === '.') continue;
    const addrs = await addresses(state, mx.exchange, ip.family, false);
    if (addrs.some((a) => cidrMatch(ip, a, prefixFor(mech, ip)))) return true;
  }
  return false;
}

/** ptr (RFC 7208 §5.5). */
async function matchPtr(mech: SpfMechanism, domain: string, state: State): Promise<boolean> {
  const name = await target(mech, domain, state);
  const names = await validatedNames(state, true);
  return names.some((n) => isSubdomainOf(n, name));
}

/** exists (RFC 7208 §5.7): always an A query, whatever the client's address family. */
async function matchExists(mech: SpfMechanism, domain: string, state: State): Promise<boolean> {
  const name = await target(mech, domain, state);
  if (!isValidSpfDomain(name)) return false;
  return (await addresses(state, name, 4, true)).length > 0;
}

/** include (RFC 7208 §5.2): the inner result decides match, no match or an error. */
async function matchInclude(mech: SpfMechanism, domain: string, state: State): Promise<boolean> {
  const name = await target(mech, domain, state);
  const inner = await evaluate(name, state);
  switch (inner.result) {
    case 'pass':
      return true;
    case 'fail':
    case 'softfail':
    case 'neutral':
      return false;
    case 'temperror':
      throw new SpfAbort('temperror', inner.reason);
    case 'none':
      throw new SpfAbort('permerror', `include:${name} has no SPF record`);
    default:
      throw new SpfAbort('permerror', inner.reason);
  }
}

async function matches(mech: SpfMechanism, domain: string, state: State): Promise<boolean> {
  switch (mech.type) {
    case 'all':
      return true;
    case 'ip4':
    case 'ip6':
      return matchNetwork(mech, state.base.ip);
    case 'a':
      return matchA(mech, domain, state);
    case 'mx':
      return matchMx(mech, domain, state);
    case 'ptr':
      return matchPtr(mech, domain, state);
    case 'exists':
      return matchExists(mech, domain, state);
    case 'include':
      return matchInclude(mech, domain, state);
  }
}

async function explain(exp: string, domain: string, state: State): Promise<string | null> {
  try {
    const name = truncateDomain(await expandMacros(exp, { ...state.base, domain }));
    if (!isValidSpfDomain(name)) return null;
    const records = await state.dns.txt(name);
    if (records.length !== 1) return null;
    const text = (records[0] ?? []).join('');
    if (validateMacroString(text, true) !== null) return null;
    return await expandMacros(text, { ...state.base, domain });
  } catch {
    // RFC 7208 §6.2: any error while fetching or expanding the explanation means none.
    return null;
  }
}

async function fetchRecord(domain: string, state: State): Promise<string | Outcome> {
  const fail = (result: SpfResultCode, reason: string): Outcome => ({
    result,
    mechanism: null,
    mechanismDomain: null,
    explanation: null,
    reason,
  });
  let rows: string[][];
  try {
    rows = await state.dns.txt(domain);
  } catch (err) {
    if (isAbsent(err)) return fail('none', `no SPF record at ${domain}`);
    return fail('temperror', transient(err, `${domain} TXT`).reason);
  }
  const records = rows.map((r) => r.join('')).filter(isSpfRecord);
  if (records.length === 0) return fail('none', `no SPF record at ${domain}`);
  if (records.length > 1) return fail('permerror', `${domain} publishes ${records.length} SPF records`);
  return records[0] ?? '';
}

function outcomeOf(result: SpfResultCode, mechanismDomain: string | null, reason: string): Outcome {
  return { result, mechanism: null, mechanismDomain, explanation: null, reason };
}

/** The record's mechanisms in order, then its redirect, then the default neutral (RFC 7208 §4.6, §6.1). */
async function evaluateRecord(parsed: ParsedSpf, domain: string, state: State): Promise<Outcome> {
  for (const mech of parsed.mechanisms) {
    if (DNS_TERMS.has(mech.type)) countLookup(state, mech.raw);
    if (!(await matches(mech, domain, state))) continue;
    const result = QUALIFIER_RESULT[mech.qualifier];
    const explanation =
      result === 'fail' && parsed.exp !== null ? await explain(parsed.exp, domain, state) : null;
    return {
      result,
      mechanism: mech.raw,
      mechanismDomain: domain,
      explanation,
      reason: `${domain} matched ${mech.raw}`,
    };
  }
  if (parsed.redirect === null) {
    return outcomeOf('neutral', domain, `no mechanism of ${domain} matched (default neutral)`);
  }
  countLookup(state, `redirect=${parsed.redirect}`);
  const next = truncateDomain(await expandMacros(parsed.redirect, { ...state.base, domain }));
  const inner = await evaluate(next, state);
  // RFC 7208 §6.1: a redirect to a domain without an SPF record is a permerror.
  if (inner.result === 'none')
    return { ...inner, result: 'permerror', reason: `redirect=${next} has no SPF record` };
  return inner;
}

async function evaluate(domain: string, state: State): Promise<Outcome> {
  if (!isValidSpfDomain(domain)) return outcomeOf('none', null, 'invalid domain');
  const record = await fetchRecord(domain, state);
  if (typeof record !== 'string') return record;
  const parsed = parseSpf(record);
  if (parsed.errors.length > 0) {
    return outcomeOf('permerror', domain, `syntax error in SPF record of ${domain}: ${parsed.errors[0]}`);
  }
  try {
    return await evaluateRecord(parsed, domain, state);
  } catch (err) {
    if (err instanceof SpfAbort) return outcomeOf(err.result, domain, err.reason);
    throw err;
  }
}

/** Splits a sender into local-part and domain (RFC 7208 §4.3: no local-part means "postmaster"). */
function splitSender(sender: string, fallbackDomain: string): { local: string; domain: string } {
  const at = sender.lastIndexOf('@');
  if (at === -1) return { local: 'postmaster', domain: sender || fallbackDomain };
  return { local: sender.slice(0, at) || 'postmaster', domain: sender.slice(at + 1) };
}

export async function checkHost(
  ip: string,
  domain: string,
  sender: string,
  options: SpfCheckOptions,
): Promise<SpfCheckResult> {
  const parsedIp = parseIp(ip);
  const name = domain.trim().toLowerCase();
  const parts = splitSender(sender.trim(), name);
  const fullSender = `${parts.local}@${parts.domain}`;
  const base = {
    result: 'none' as SpfResultCode,
    domain: name,
    ip: parsedIp?.address ?? ip,
    sender: fullSender,
    mechanism: null,
    mechanism_domain: null,
    explanation: null,
    reason: '',
    dns_lookups: 0,
    void_lookups: 0,
  };
  if (!parsedIp) return { ...base, result: 'permerror', reason: 'client IP address is not valid' };
  if (!isValidSpfDomain(name)) return { ...base, reason: 'domain is not a valid multi-label domain name' };
  const clock = options.clock ?? systemClock;
  const state: State = {
    lookups: 0,
    voids: 0,
    dns: options.dns,
    base: {
      sender: fullSender,
      localPart: parts.local,
      senderDomain: parts.domain,
      ip: parsedIp,
      helo: options.helo ?? name,
      receiver: options.receiver ?? 'unknown',
      nowSeconds: Math.floor(clock() / 1000),
      validatedDomain: async () => 'unknown',
    },
  };
  state.base.validatedDomain = async () => {
    const names = await validatedNames(state, false);
    return names.find((n) => isSubdomainOf(n, name)) ?? names[0] ?? 'unknown';
  };
  const outcome = await evaluate(name, state);
  return {
    ...base,
    result: outcome.result,
    mechanism: outcome.mechanism,
    mechanism_domain: outcome.mechanismDomain,
    explanation: outcome.explanation,
    reason: outcome.reason,
    dns_lookups: state.lookups,
    void_lookups: state.voids,
  };
}
