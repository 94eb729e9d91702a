/**
 * Forward-confirmed reverse DNS (as Haraka's fcrdns plugin and RFC 8601's `iprev` define it):
 * the IP's PTR names are looked up, each name's A (IPv4) or AAAA (IPv6) records are resolved,
 * and the check passes when one of them is the IP again. Facts first, verdict second:
 * - no PTR record (NXDOMAIN or NODATA): fail (a sending IP without reverse DNS);
 * - PTR names that resolve, but never back to the IP: fail;
 * - a timeout or SERVFAIL that leaves the answer open: unknown (null), nothing is stored,
 *   so a resolver outage never turns into a -15 (CONTRACT §7: "no factor when unknown").
 */
import { type DnsClient, isAbsent } from '../core/dns/index.ts';
import { parseIp } from '../core/ip.ts';
import type { FcrdnsRecord } from './store.ts';

/** RFC 8601 §3 suggests bounding the names checked; Haraka uses the first few too. */
export const MAX_PTR_NAMES = 5;

/** The PTR names of an address (lower case, no trailing dot): [] when absent, null when undecided. */
async function ptrNames(dns: DnsClient, address: string): Promise<string[] | null> {
  try {
    return (await dns.ptr(address)).map((n) => n.replace(/\.$/, '').toLowerCase());
  } catch (err) {
    return isAbsent(err) ? [] : null;
  }
}

/** The A (IPv4) or AAAA (IPv6) addresses of a name, normalized: [] when absent, null when undecided. */
async function forwardAddresses(dns: DnsClient, family: 4 | 6, name: string): Promise<string[] | null> {
  try {
    const addrs = family === 4 ? await dns.a(name) : await dns.aaaa(name);
    return addrs.map((a) => parseIp(a)?.address ?? a);
  } catch (err) {
    return isAbsent(err) ? [] : null;
  }
}

export async function checkFcrdns(
  ip: string,
  dns: DnsClient,
  now: number,
  lastObservedAt: number | null,
): Promise<FcrdnsRecord | null> {
  const parsed = parseIp(ip);
  if (!parsed) return null;
  const record = (ptrHostname: string | null, forwardMatch: boolean, forwardIps: string[]): FcrdnsRecord => ({
    ip: parsed.address,
    ptrHostname,
    forwardMatch,
    forwardIps,
    lastCheckedAt: now,
    lastObservedAt,
  });

  const names = await ptrNames(dns, parsed.address);
  if (names === null) return null;
  if (names.length === 0) return record(null, false, []);

  const forward = new Set<string>();
  let undecided = false;
  for (const name of names.slice(0, MAX_PTR_NAMES)) {
    const normalized = await forwardAddresses(dns, parsed.family, name);
    if (normalized === null) {
      undecided = true;
      continue;
    }
    for (const a of normalized) forward.add(a);
    if (normalized.includes(parsed.address)) return record(name, true, [...forward].sort());
  }
  if (undecided) return null;
  return record(names[0] ?? null, false, [...forward].sort());
}
