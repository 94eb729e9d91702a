import { domainToASCII } from 'node:url';
import { getDomain, parse } from 'tldts';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Strict public DNS hostname check for the domain tools. Returns the normalized name (lower
 * case, A-labels, no trailing dot) or null.
 * - IDN: a Unicode name is converted to its A-label form with UTS #46 (node:url
 *   domainToASCII), so "bücher.de" becomes "xn--bcher-kva.de"; an already punycoded name
 *   is kept as is. Names that do not convert are rejected.
 * - LDH labels of 1-63 characters, no leading or trailing hyphen, 253 characters in total,
 *   at least two labels; no underscores, IP literals or numeric top-level labels.
 * - The name must lie under an ICANN public suffix (Public Suffix List, via tldts) and must
 *   not itself be a public suffix: "co.uk", "localhost" or "printer.local" are not public hosts.
 */
export function validateDomainName(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  let name = input.trim();
  if (name.length === 0 || name.length > 1024) return null;
  if (name.endsWith('.')) name = name.slice(0, -1);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u0020\u007f]/.test(name)) return null;
  if (/[^\x21-\x7e]/.test(name)) {
    name = domainToASCII(name);
    if (name === '') return null;
  }
  name = name.toLowerCase();
  if (name.length > 253) return null;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^\d+$/.test(labels.at(-1) ?? '')) return null;
  const info = parse(name, { allowPrivateDomains: false });
  if (info.isIp || !info.isIcann || info.domain === null) return null;
  return name;
}

/** Organizational domain (RFC 7489 §3.2) from the Public Suffix List; the name itself when none. */
export function organizationalDomain(domain: string): string {
  return getDomain(domain, { allowPrivateDomains: false }) ?? domain;
}
