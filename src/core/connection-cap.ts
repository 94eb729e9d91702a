/**
 * Open connections per client: an IPv4 address, or an IPv6 client's /64 (one host holds a whole
 * /64 and could rotate through it). `admit` counts a new connection and returns its release, or
 * null when the client already holds `max`. Addresses inside an exempt CIDR (trusted proxies,
 * which carry many clients) are never capped. `max` 0: no cap.
 */
import { parseCidr, parseIp } from './ip.ts';

export interface ConnectionCap {
  /** Counts a connection from `address`; call the release once when it closes. Null: refused. */
  admit(address: string | undefined): (() => void) | null;
  /** Open connections counted for the client of `address` (tests, metrics). */
  openFrom(address: string): number;
}

const NO_RELEASE = (): void => undefined;

/** The counting key of an address: IPv4 itself (also when IPv4-mapped), IPv6 its /64. */
export function clientKeyOf(address: string): string {
  const ip = parseIp(address);
  if (!ip) return address;
  if (ip.family === 4) return ip.address;
  const b = ip.bytes;
  let key = '';
  for (let i = 0; i < 8; i += 2) key += `${((b[i] ?? 0) * 256 + (b[i + 1] ?? 0)).toString(16)}:`;
  return `${key}:/64`;
}

function matcherOf(cidrs: readonly string[]): (address: string) => boolean {
  const nets = cidrs.map((c) => parseCidr(c)).filter((c) => c !== null);
  if (nets.length === 0) return () => false;
  return (address) => {
    const ip = parseIp(address);
    if (!ip) return false;
    return nets.some((net) => {
      if (net.family !== ip.family) return false;
      for (let bit = 0; bit < net.prefixLength; bit += 8) {
        const left = Math.min(8, net.prefixLength - bit);
        const mask = (0xff << (8 - left)) & 0xff;
        const i = bit / 8;
        if (((ip.bytes[i] ?? 0) & mask) !== ((net.bytes[i] ?? 0) & mask)) return false;
      }
      return true;
    });
  };
}

export function createConnectionCap(options: { max: number; exempt?: readonly string[] }): ConnectionCap {
  const open = new Map<string, number>();
  const exempt = matcherOf(options.exempt ?? []);
  return {
    admit(address) {
      if (options.max <= 0 || address === undefined || exempt(address)) return NO_RELEASE;
      const key = clientKeyOf(address);
      const count = open.get(key) ?? 0;
      if (count >= options.max) return null;
      open.set(key, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(key) ?? 1) - 1;
        if (left <= 0) open.delete(key);
        else open.set(key, left);
      };
    },
    openFrom(address) {
      return open.get(clientKeyOf(address)) ?? 0;
    },
  };
}
