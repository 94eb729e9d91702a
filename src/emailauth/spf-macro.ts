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

/** A macro-string read piece by piece (RFC 7208 §7.1): a literal character, an escape, a macro, or junk. */
type MacroToken =
  | { kind: 'char'; ch: string }
  | { kind: 'escape'; ch: '%' | '_' | '-' }
  | { kind: 'macro'; match: RegExpExecArray }
  | { kind: 'invalid' };

function* macroTokens(text: string): Generator<MacroToken> {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch !== '%') {
      yield { kind: 'char', ch };
      continue;
    }
    const next = text[i + 1];
    if (next === '%' || next === '_' || next === '-') {
      yield { kind: 'escape', ch: next };
      i += 1;
      continue;
    }
    MACRO.lastIndex = i;
    const match = MACRO.exec(text);
    if (!match) {
      yield { kind: 'invalid' };
      return;
    }
    yield { kind: 'macro', match };
    i += match[0].length - 1;
  }
}

/** A literal's characters are visible US-ASCII; an explanation may also hold spaces. */
function isLiteral(ch: string, exp: boolean): boolean {
  const code = ch.charCodeAt(0);
  return (code >= 0x21 && code <= 0x7e) || (exp && ch === ' ');
}

function macroError(m: RegExpExecArray, letters: string): string | null {
  if (!letters.includes((m[1] ?? '').toLowerCase())) return `macro letter "${m[1]}" not allowed here`;
  if (m[2] !== '' && Number(m[2]) === 0) return `macro "${m[0]}" keeps zero labels`;
  return null;
}

/** null when `text` is a valid macro-string; `exp` allows the explanation-only letters c, r, t. */
export function validateMacroString(text: string, exp: boolean): string | null {
  const letters = exp ? EXP_LETTERS : RECORD_LETTERS;
  for (const token of macroTokens(text)) {
    if (token.kind === 'invalid') return `invalid macro in "${text}"`;
    if (token.kind === 'char' && !isLiteral(token.ch, exp))
      return `invalid character in macro-string "${text}"`;
    const error = token.kind === 'macro' ? macroError(token.match, letters) : null;
    if (error) return error;
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

const ESCAPED: Readonly<Record<'%' | '_' | '-', string>> = { '%': '%', _: ' ', '-': '%20' };

/** One macro's value: split on its delimiters, maybe reversed, right-hand labels kept, URL-escaped when upper case. */
async function expandMacro(m: RegExpExecArray, ctx: MacroContext): Promise<string> {
  const letter = m[1] ?? 's';
  const delimiters = m[4] ? new RegExp(`[${m[4].replace(/[-\\\]^/]/g, '\\$&')}]`) : /\./;
  let parts = (await letterValue(letter.toLowerCase(), ctx)).split(delimiters);
  if (m[3]) parts = parts.reverse();
  if (m[2]) parts = parts.slice(-Number(m[2]));
  const value = parts.join('.');
  return letter === letter.toUpperCase() ? urlEscape(value) : value;
}

/** Expands a macro-string already validated with validateMacroString. */
export async function expandMacros(text: string, ctx: MacroContext): Promise<string> {
  let out = '';
  for (const token of macroTokens(text)) {
    if (token.kind === 'invalid') throw new Error(`invalid macro in ${text}`);
    if (token.kind === 'char') out += token.ch;
    else if (token.kind === 'escape') out += ESCAPED[token.ch];
    else out += await expandMacro(token.match, ctx);
  }
  return out;
}

/** RFC 7208 §7.3: an expanded domain over 253 characters loses left-hand labels until it fits. */
export function truncateDomain(domain: string): string {
  let name = domain;
  while (name.length > 253 && name.includes('.')) name = name.slice(name.indexOf('.') + 1);
  return name;
}
