import libmime from 'libmime';
import { getDomain } from 'tldts';

const MAX_TEXT = 1024;

/** RFC 2047 encoded words decoded; a broken word is left as written. */
export function decodeWords(value: string): string {
  const text = value.slice(0, MAX_TEXT);
  try {
    return libmime.decodeWords(text);
  } catch {
    return text;
  }
}

/**
 * Domain of the mailbox in a From/Return-Path/Sender value, lower case, or null.
 * The angle-bracket address wins over a display name that looks like an address
 * ("a@evil.example <b@real.example>" → real.example).
 */
export function addressDomain(value: string): string | null {
  const text = decodeWords(value);
  let address: string | undefined;
  const open = text.lastIndexOf('<');
  if (open !== -1) {
    const close = text.indexOf('>', open);
    address = text.slice(open + 1, close === -1 ? undefined : close);
  } else {
    address = text.split(/[\s,]+/).find((w) => w.includes('@'));
  }
  if (address === undefined) return null;
  const at = address.lastIndexOf('@');
  if (at === -1) return null;
  return cleanDomain(address.slice(at + 1));
}

/** A DNS domain as written in a header (d=, authserv-id, address), lower case, or null. */
export function cleanDomain(text: string): string | null {
  const t = text.slice(0, 300).trim().toLowerCase();
  let start = 0;
  let end = t.length;
  while (start < end && `"'[<`.includes(t[start] as string)) start++;
  while (end > start && `"']>.`.includes(t[end - 1] as string)) end--;
  const d = t.slice(start, end);
  if (d.length === 0 || d.length > 253) return null;
  // Letters of any script for IDNs, digits, dots, hyphens, underscores; nothing else.
  if (!/^[\p{L}\p{N}._-]+$/u.test(d) || !d.includes('.')) return null;
  return d;
}

/** Organizational domain (Public Suffix List, via tldts), or the name itself when it has none. */
export function orgDomain(domain: string): string {
  return getDomain(domain, { allowPrivateDomains: false }) ?? domain;
}

/** DMARC relaxed alignment (RFC 7489 §3.1): same organizational domain. */
export function aligned(a: string, b: string): boolean {
  return orgDomain(a) === orgDomain(b);
}
