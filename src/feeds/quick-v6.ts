/**
 * The IPv6 network of a feed row, normalized in one pass over the address's words (issue #35
 * item 2): what row.ts canonicalizeRow gives through parseCidr (host bits cleared, RFC 5952 text,
 * a /128 as the bare address), and the masked words its record's key is made of (row-record.ts),
 * without the parse's byte arrays, the ipaddr.js formatting, the key's text or the second schema check.
 */
import { formatV6, ipWords, readIp } from '../core/ip.ts';

const scratch = ipWords();
const groups = [0, 0, 0, 0, 0, 0, 0, 0];
const masked = new Uint32Array(4);
const PREFIX = /^\d{1,3}$/;

/** The masked address words and prefix length of the network quickV6 read last (row-record.ts). */
export const quickV6Last = { words: masked, prefixLength: 0 };

/** The prefix length after `/` in text (the address's length, 128, without one); -1 when not 0-128. */
function prefixOf(text: string, slash: number): number {
  if (slash === -1) return 128;
  const lenText = text.slice(slash + 1);
  if (!PREFIX.test(lenText)) return -1;
  const n = Number(lenText);
  return n <= 128 ? n : -1;
}

/**
 * The network of an IPv6 address or CIDR as canonicalizeRow writes it (its masked words and prefix
 * length in quickV6Last), or null for anything else (IPv4, an IPv4-mapped address, text parseCidr
 * refuses), which then takes canonicalizeRow's path.
 */
export function quickV6(text: string): string | null {
  const slash = text.indexOf('/');
  if (!readIp(slash === -1 ? text : text.slice(0, slash), scratch) || scratch.family !== 6) return null;
  const prefixLength = prefixOf(text, slash);
  if (prefixLength < 0) return null;
  for (let k = 0; k < 4; k++) {
    const bits = Math.min(32, Math.max(0, prefixLength - 32 * k));
    const mask = bits === 0 ? 0 : bits === 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
    const w = ((scratch.words[k] as number) & mask) >>> 0;
    masked[k] = w;
    groups[2 * k] = w >>> 16;
    groups[2 * k + 1] = w & 0xffff;
  }
  quickV6Last.prefixLength = prefixLength;
  const address = formatV6(groups);
  return prefixLength === 128 ? address : `${address}/${prefixLength}`;
}
