/**
 * SPF macros (RFC 7208 §7). Validation is synchronous (it is part of record syntax);
 * expansion is async because %{p} needs DNS.
 */
import type { ParsedIp } from '../core/ip.ts';

export interface MacroContext {
  /** <sender>: local-part@domain (the local-part is "postmaster" when the sender has none). */
  sender: string;
  localPart: string;
  senderDomain: string;
  /** <domain>: the domain being checked now (changes on include and redirect). */
  domain: string;
  ip: ParsedIp;
  helo: string;
  /** The receiving host's name for %{r}; "unknown" when not given. */
  receiver: string;
  /** Epoch seconds for %{t}. */
  nowSeconds: number;
  /** The validated domain of the client IP for %{p} ("unknown" when none). */
  validatedDomain: () => Promise<string>;
}

const MACRO = /%\{([a-z])(\d*)(r?)([.\-+,/_=]*)\}/iy;
const RECORD_LETTERS = 'slodiphv';
const EXP_LETTERS = 'slodiphvcrt';

/** null when `text` is a valid macro-string; `exp` allows the explanation-only letters c, r, t. */
export function validateMacroString(text: string, exp: boolean): string | null {
  const letters = exp ? EXP_LETTERS : RECORD_LETTERS;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    const code = text.charCodeAt(i);
    if (ch !== '%') {
      if (code < 0x21 || code > 0x7e) {
        if (!(exp && ch === ' ')) return `invalid character in macro-string "${text}"`;
      }
      continue;
    }
    const next = text[i + 1];
    if (next === '%' || next === '_' || next === '-') {
      i += 1;
      continue;
    }
    MACRO.lastIndex = i;
    const m = MACRO.exec(text);
    if (!m) return `invalid macro in "${text}"`;
    if (!letters.includes((m[1] ?? '').toLowerCase())) return `macro letter "${m[1]}" not allowed here`;
    if (m[2] !== '' && Number(m[2]) === 0) return `macro "${m[0]}" keeps zero labels`;
    i += m[0].length - 1;
  }
  return null;
}

/** RFC 3986 unreserved characters stay, everything else is percent-encoded (RFC 7208 §7.3). */
function urlEscape(value: string): string {
  return Array.from(Buffer.from(value, 'utf8'))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

function ipMacro(ip: ParsedIp): string {
  if (ip.family === 4) return ip.bytes.join('.');
  // Upper-case nibbles, as the RFC 7208 test suite's reference implementation writes them.
  return ip.bytes
    .flatMap((b) => [(b >> 4).toString(16), (b & 15).toString(16)])
    .join('.')
    .toUpperCase();
}

async function letterValue(letter: string, ctx: MacroContext): Promise<string> {
  switch (letter) {
    case 's':
      return ctx.sender;
    case 'l':
      return ctx.localPart;
    case 'o':
      return ctx.senderDomain;
    case 'd':
      return ctx.domain;
    case 'i':
      return ipMacro(ctx.ip);
    case 'p':
      return ctx.validatedDomain();
    case 'v':
      return ctx.ip.family === 4 ? 'in-addr' : 'ip6';
    case 'h':
      return ctx.helo;
    case 'c':
      return ctx.ip.address;
    case 'r':
      return ctx.receiver;
    default:
      return String(ctx.nowSeconds);
  }
}

/** Expands a macro-string already validated with validateMacroString. */
export async function expandMacros(text: string, ctx: MacroContext): Promise<string> {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch !== '%') {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === '%' || next === '_' || next === '-') {
      out += next === '%' ? '%' : next === '_' ? ' ' : '%20';
      i += 1;
      continue;
    }
    MACRO.lastIndex = i;
    const m = MACRO.exec(text);
    if (!m) throw new Error(`invalid macro in ${text}`);
    const letter = m[1] ?? 's';
    const delimiters = m[4] ? new RegExp(`[${m[4].replace(/[-\\\]^/]/g, '\\$&')}]`) : /\./;
    let parts = (await letterValue(letter.toLowerCase(), ctx)).split(delimiters);
    if (m[3]) parts = parts.reverse();
    if (m[2]) parts = parts.slice(-Number(m[2]));
    const value = parts.join('.');
    out += letter === letter.toUpperCase() ? urlEscape(value) : value;
    i += m[0].length - 1;
  }
  return out;
}

/** RFC 7208 §7.3: an expanded domain over 253 characters loses left-hand labels until it fits. */
export function truncateDomain(domain: string): string {
  let name = domain;
  while (name.length > 253 && name.includes('.')) name = name.slice(name.indexOf('.') + 1);
  return name;
}
