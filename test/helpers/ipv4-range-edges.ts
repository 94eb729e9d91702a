/**
 * Every IPv4 special-purpose range of ipaddr.js's own table (IPv4.prototype.SpecialRanges), its
 * first and last address and the addresses just outside them: the points where a copy of the
 * table read another way would first disagree with ipaddr.js's range().
 */
import ipaddr from 'ipaddr.js';
import { intToIpv4 } from '../../src/core/ip.ts';

type Entry = [ipaddr.IPv4, number] | [ipaddr.IPv4, number][];

export function ipv4RangeEdges(): string[] {
  const table = (ipaddr.IPv4.prototype as unknown as { SpecialRanges: Record<string, Entry> }).SpecialRanges;
  const out: number[] = [];
  for (const entry of Object.values(table)) {
    const list = Array.isArray(entry[0])
      ? (entry as [ipaddr.IPv4, number][])
      : [entry as [ipaddr.IPv4, number]];
    for (const [net, bits] of list) {
      const size = 2 ** (32 - bits);
      const v = net.octets.reduce((a, b) => a * 256 + b, 0);
      const first = v - (v % size);
      out.push(first, first + size - 1, first - 1, first + size);
    }
  }
  return out.filter((v) => v >= 0 && v <= 0xffffffff).map(intToIpv4);
}
