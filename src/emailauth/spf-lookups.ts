/**
 * The DNS side of check_host() (RFC 7208 §4.6.4, §5): the lookup state with its limits (10
 * DNS-querying terms, 2 void lookups), the address, MX and validated PTR lookups, and the
 * abort that turns a DNS failure into temperror and a limit into permerror.
 */
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import type { MacroContext } from './spf-macro.ts';
import { MAX_DNS_LOOKUPS, MAX_VOID_LOOKUPS } from './spf-record.ts';

export class SpfAbort extends Error {
  constructor(
    readonly result: 'temperror' | 'permerror',
    readonly reason: string,
  ) {
    super(reason);
  }
}

export interface State {
  lookups: number;
  voids: number;
  dns: DnsClient;
  base: Omit<MacroContext, 'domain'>;
}

export function transient(err: unknown, what: string): SpfAbort {
  const code = isDnsError(err) ? err.code : 'error';
  return new SpfAbort('temperror', `DNS ${code} while looking up ${what}`);
}

export function countVoid(state: State, what: string): void {
  state.voids += 1;
  // RFC 7208 §4.6.4: more than two void lookups is a permerror.
  if (state.voids > MAX_VOID_LOOKUPS) {
    throw new SpfAbort('permerror', `void lookup limit of ${MAX_VOID_LOOKUPS} exceeded at ${what}`);
  }
}

export async function addresses(
  state: State,
  name: string,
  family: 4 | 6,
  countVoids: boolean,
): Promise<ParsedIp[]> {
  try {
    const rows = family === 4 ? await state.dns.a(name) : await state.dns.aaaa(name);
    return rows.map((r) => parseIp(r)).filter((p): p is ParsedIp => p !== null);
  } catch (err) {
    if (isAbsent(err)) {
      if (countVoids) countVoid(state, `${name} ${family === 4 ? 'A' : 'AAAA'}`);
      return [];
    }
    throw transient(err, name);
  }
}

/** PTR names of the client IP whose forward lookup returns the IP (RFC 7208 §5.5), at most 10. */
export async function validatedNames(state: State, countVoids: boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await state.dns.ptr(state.base.ip.address);
  } catch (err) {
    if (isAbsent(err) && countVoids) countVoid(state, `${state.base.ip.address} PTR`);
    return [];
  }
  const valid: string[] = [];
  for (const name of names.slice(0, 10)) {
    try {
      const addrs = await addresses(state, name, state.base.ip.family, false);
      if (addrs.some((a) => a.address === state.base.ip.address)) valid.push(name);
    } catch {
      // RFC 7208 §5.5: a failed forward lookup just skips that name.
    }
  }
  return valid;
}

export async function mxNames(state: State, name: string): Promise<{ exchange: string }[]> {
  try {
    return await state.dns.mx(name);
  } catch (err) {
    if (!isAbsent(err)) throw transient(err, `${name} MX`);
    countVoid(state, `${name} MX`);
    return [];
  }
}

export function countLookup(state: State, term: string): void {
  state.lookups += 1;
  if (state.lookups > MAX_DNS_LOOKUPS) {
    throw new SpfAbort('permerror', `DNS lookup limit of ${MAX_DNS_LOOKUPS} exceeded at ${term}`);
  }
}
