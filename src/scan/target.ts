/**
 * Which addresses may be scanned and on which ports: never a weapon (issue #34 item 2). Only
 * public unicast, judged as webhook targets are (webhooks' refusedReach: loopback, private,
 * link-local, CGNAT, multicast, reserved and IPv6 forms that reach such IPv4 are refused), unless
 * the test-only loopback setting allows 127.0.0.0/8 and ::1; never an address inside an
 * operator's NETREP_SCAN_EXCLUDE range. Decided before any packet is sent.
 */
import { type ParsedCidr, type ParsedIp, parseCidr, parseIp } from '../core/ip.ts';
import { isLoopback, refusedReachOf } from '../webhooks/index.ts';
import type { ScanPort } from './types.ts';

export interface TargetRules {
  /** NETREP_SCAN_ALLOW_LOOPBACK: tests scan their own servers on 127.0.0.1. */
  allowLoopback: boolean;
  exclude: readonly ParsedCidr[];
}

function inside(ip: ParsedIp, net: ParsedCidr): boolean {
  if (ip.family !== net.family) return false;
  for (let bit = 0; bit < net.prefixLength; bit++) {
    const mask = 0x80 >> (bit & 7);
    if (((ip.bytes[bit >> 3] as number) & mask) !== ((net.bytes[bit >> 3] as number) & mask)) return false;
  }
  return true;
}

/** Why `address` is never scanned, or null when it may be. */
export function scanRefusal(address: string, rules: TargetRules): string | null {
  const ip = parseIp(address);
  return ip ? scanRefusalOf(ip, rules) : `${address} is not an IP address`;
}

/** scanRefusal of an address already parsed (a lookup's). */
export function scanRefusalOf(ip: ParsedIp, rules: TargetRules): string | null {
  for (const net of rules.exclude)
    if (inside(ip, net)) return `${ip.address} is inside ${net.cidr} (NETREP_SCAN_EXCLUDE)`;
  if (rules.allowLoopback && isLoopback(ip)) return null;
  return refusedReachOf(ip);
}

/** NETREP_SCAN_EXCLUDE: CIDRs (or single addresses); throws on an entry that is neither. */
export function parseExcludeList(entries: readonly string[]): ParsedCidr[] {
  return entries.map((entry) => {
    const net = parseCidr(entry);
    if (!net) throw new Error(`NETREP_SCAN_EXCLUDE: ${JSON.stringify(entry)} is not a CIDR`);
    return net;
  });
}

/**
 * NETREP_SCAN_PORTS: `443/tls,80/http`; a bare port is TLS when it is 443, else plain HTTP.
 * Throws on a port outside 1-65535, an unknown protocol or a repeat.
 */
export function parsePorts(entries: readonly string[]): ScanPort[] {
  const ports = entries.map((entry): ScanPort => {
    const m = /^(\d{1,5})(?:\/(tls|http))?$/i.exec(entry.trim());
    const port = Number(m?.[1]);
    if (!m || port < 1 || port > 65535)
      throw new Error(`NETREP_SCAN_PORTS: ${JSON.stringify(entry)} is not PORT or PORT/tls or PORT/http`);
    const protocol = (m[2]?.toLowerCase() ?? (port === 443 ? 'tls' : 'http')) as ScanPort['protocol'];
    return { port, protocol };
  });
  if (new Set(ports.map((p) => p.port)).size !== ports.length)
    throw new Error('NETREP_SCAN_PORTS: a port is listed twice (one request per port)');
  return ports;
}
