/**
 * Addresses as numbers: IPv4 as an unsigned 32-bit integer, IPv6 as a 128-bit bigint, and back
 * to text (re-exported by ip.ts, where the rest of the IP rules live).
 */
import ipaddr from 'ipaddr.js';

/** IPv4 as an unsigned 32-bit integer. */
export function ipv4ToInt(bytes: readonly number[]): number {
  return (
    (((bytes[0] as number) << 24) |
      ((bytes[1] as number) << 16) |
      ((bytes[2] as number) << 8) |
      (bytes[3] as number)) >>>
    0
  );
}

export function intToIpv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** IPv6 as a 128-bit bigint. */
export function ipv6ToBigInt(bytes: readonly number[]): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

export function bigIntToIpv6(n: bigint): string {
  const bytes: number[] = new Array(16);
  for (let i = 15; i >= 0; i--) {
    bytes[i] = Number(n & 255n);
    n >>= 8n;
  }
  return ipaddr.fromByteArray(bytes).toString();
}
