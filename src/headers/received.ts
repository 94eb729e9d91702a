import { type ParsedIp, parseIp } from '../core/ip.ts';
import { parseMailDate } from './mail-date.ts';
import type { Protocol } from './types.ts';

/**
 * One Received header read into facts (RFC 5321 §4.4 "from/by/via/with/id/for ; date"), for the
 * styles real servers write: Postfix, Exim, Sendmail, qmail, Exchange, Gmail, IronPort, IBM.
 * The value is scanned once into words and (comments); no regex runs over the whole value.
 */
export interface ReceivedHop {
  fromHost: string | null;
  fromIp: ParsedIp | null;
  /** Name the client gave in HELO/EHLO, when the header records it. */
  helo: string | null;
  /** HELO given as an IP literal (`HELO 192.168.15.15`, `helo=[10.0.0.1]`). */
  heloIp: ParsedIp | null;
  byHost: string | null;
  /** IP the receiving server recorded for itself (Exchange, IBM: `by host (10.1.2.3)`). */
  byIp: ParsedIp | null;
  protocol: Protocol | null;
  protocolRaw: string | null;
  /** Epoch ms, or null when no date could be read. */
  time: number | null;
  /** false when neither from, by nor a leading (comment) could be found: junk. */
  recognized: boolean;
}

interface Item {
  comment: boolean;
  text: string;
}

const KEYWORDS = new Set(['from', 'by', 'via', 'with', 'id', 'for']);
const MAX_VALUE = 4096;
const MAX_HOST = 255;

/** RFC 3848 and vendor "with" words → the three protocol names of spec §2.8. */
const PROTOCOLS: Record<string, Protocol> = {
  smtp: 'SMTP',
  esmtp: 'ESMTP',
  esmtpa: 'ESMTP',
  esmtps: 'ESMTPS',
  esmtpsa: 'ESMTPS',
  smtps: 'ESMTPS',
  smtpsa: 'ESMTPS',
  smtpsvc: 'ESMTP',
  lmtp: 'ESMTP',
  lmtpa: 'ESMTP',
  lmtps: 'ESMTPS',
  lmtpsa: 'ESMTPS',
  utf8smtp: 'ESMTP',
  utf8smtpa: 'ESMTP',
  utf8smtps: 'ESMTPS',
  utf8smtpsa: 'ESMTPS',
  utf8lmtp: 'ESMTP',
  utf8lmtpa: 'ESMTP',
  utf8lmtps: 'ESMTPS',
  utf8lmtpsa: 'ESMTPS',
};
// Signs that the hop used TLS, as Sendmail, Gmail, Exchange, Postfix, Exim and IronPort note it.
const TLS_MARKERS = ['version=tls', 'using tls', 'tlsv1', '/tls', 'tls1_', 'tls1.', '(tls'];

/** The index of the ")" closing the comment that opens at `start`, or the text's length when unclosed. */
function commentEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** Splits into top-level words and (comments), nesting-aware; an unclosed comment runs to the end. */
function scan(text: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ' ') {
      i++;
    } else if (ch === '(') {
      const end = commentEnd(text, i);
      items.push({ comment: true, text: text.slice(i + 1, end) });
      i = end + 1;
    } else {
      const start = i;
      while (i < text.length && text[i] !== ' ' && text[i] !== '(') i++;
      items.push({ comment: false, text: text.slice(start, i) });
    }
  }
  return items;
}

/** Index of the last `;` outside comments, or -1. */
function lastTopLevelSemicolon(text: string): number {
  let depth = 0;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if (c === ';' && depth === 0) last = i;
  }
  return last;
}

/** An IP address literal: `1.2.3.4`, `[1.2.3.4]`, `[IPv6:2001:db8::1]`, `1.2.3.4:25`. */
function ipLiteral(token: string): ParsedIp | null {
  let t = token.trim();
  if (t.startsWith('[')) {
    const end = t.indexOf(']');
    if (end === -1) return null;
    t = t.slice(1, end);
  }
  if (t.toLowerCase().startsWith('ipv6:')) t = t.slice(5);
  const direct = parseIp(t);
  if (direct) return direct;
  // IPv4 with a port (Exim writes [1.2.3.4]:port; some write 1.2.3.4:port).
  const colon = t.indexOf(':');
  if (colon > 6 && t.indexOf(':', colon + 1) === -1) return parseIp(t.slice(0, colon));
  return null;
}

/** The first [bracketed] IP literal inside a comment (Postfix `(rdns [ip])`, Exim `([ip]:port)`). */
function bracketedIp(comment: string): ParsedIp | null {
  let from = 0;
  for (let n = 0; n < 8; n++) {
    const open = comment.indexOf('[', from);
    if (open === -1) return null;
    const close = comment.indexOf(']', open);
    if (close === -1) return null;
    const ip = ipLiteral(comment.slice(open, close + 1));
    if (ip) return ip;
    from = close + 1;
  }
  return null;
}

/** A comment that is just an IP (qmail `(1.2.3.4)`, Exchange `(2603:10b6::31)`). */
function bareIp(comment: string): ParsedIp | null {
  const first = comment.trim().split(' ')[0] ?? '';
  return ipLiteral(first);
}

function ipFromComments(comments: readonly string[]): ParsedIp | null {
  for (const c of comments) {
    const ip = bracketedIp(c);
    if (ip) return ip;
  }
  for (const c of comments) {
    const ip = bareIp(c);
    if (ip) return ip;
  }
  return null;
}

function heloFromComments(comments: readonly string[]): string | undefined {
  for (const c of comments) {
    const words = c.split(' ');
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      const lower = w.toLowerCase();
      if (lower.startsWith('helo=') || lower.startsWith('ehlo=')) return w.slice(5);
      if ((lower === 'helo' || lower === 'ehlo') && words[i + 1]) return words[i + 1] as string;
    }
  }
  return undefined;
}

/** A host token as written, without brackets, trailing dot or angle brackets; IP literals → null. */
function cleanHost(token: string): string | null {
  let start = 0;
  let end = token.length;
  while (start < end && '<['.includes(token[start] as string)) start++;
  while (end > start && '>],;.'.includes(token[end - 1] as string)) end--;
  const t = token.slice(start, end);
  if (t.length === 0 || t.length > MAX_HOST) return null;
  if (ipLiteral(t) || ipLiteral(token)) return null;
  return t;
}

function readProtocol(withItems: readonly Item[], tlsText: string): [Protocol | null, string | null] {
  const words = withItems.filter((i) => !i.comment).map((i) => i.text);
  if (words.length === 0) return [null, null];
  const raw = words.slice(0, 3).join(' ').slice(0, 64);
  let base: Protocol | null = null;
  if ((words[0] as string).toLowerCase() === 'microsoft') {
    base = 'ESMTP'; // "Microsoft SMTP Server", "Microsoft SMTPSVC": Exchange/IIS speak ESMTP.
  } else {
    for (const w of words.slice(0, 4)) {
      const parts = w.toLowerCase().split('/');
      const found = PROTOCOLS[parts[0] as string];
      if (found) {
        base = found;
        break;
      }
    }
  }
  if (base !== null && base !== 'ESMTPS' && TLS_MARKERS.some((m) => tlsText.includes(m))) base = 'ESMTPS';
  return [base, raw];
}

/** The hop's time: after the last top-level ";", or (no ";") in the last few words, where some servers put it. */
function hopTime(text: string, semi: number, items: Item[]): number | null {
  if (semi !== -1) return parseMailDate(text.slice(semi + 1));
  const words = items.filter((i) => !i.comment).map((i) => i.text);
  for (let k = Math.max(0, words.length - 6); k < words.length; k++) {
    const time = parseMailDate(words.slice(k).join(' '));
    if (time !== null) return time;
  }
  return null;
}

/** The items after each clause keyword (RFC 5321 §4.4), and those before the first. */
function splitClauses(items: Item[]): { clauses: Map<string, Item[]>; prelude: Item[] } {
  const clauses = new Map<string, Item[]>();
  const prelude: Item[] = [];
  let current: Item[] = prelude;
  for (const item of items) {
    const kw = item.comment ? '' : item.text.toLowerCase();
    // First occurrence only; "from" only before "by" (IBM writes "for <a> from <b>" at the end).
    if (KEYWORDS.has(kw) && !clauses.has(kw) && !(kw === 'from' && clauses.has('by'))) {
      current = [];
      clauses.set(kw, current);
    } else {
      current.push(item);
    }
  }
  return { clauses, prelude };
}

const firstWord = (items: Item[]): string | null => (items[0] && !items[0].comment ? items[0].text : null);
const commentTexts = (items: Item[]): string[] => items.filter((i) => i.comment).map((i) => i.text);

/** The from clause: host, IP, and the HELO name and literal the receiver noted in comments. */
function fromClause(from: Item[]): Pick<ReceivedHop, 'fromHost' | 'fromIp' | 'helo' | 'heloIp'> {
  const fromComments = commentTexts(from);
  const fromFirst = firstWord(from);
  const heloText = heloFromComments(fromComments);
  const helo = heloText === undefined ? null : cleanHost(heloText);
  const heloIp = heloText === undefined ? null : ipLiteral(heloText);
  let fromHost = fromFirst === null ? null : cleanHost(fromFirst);
  if (fromHost !== null && fromHost.toLowerCase() === 'unknown' && helo !== null) fromHost = helo;
  // ZoneMTA and others write the literal as a second word: "from foo [127.0.0.1] by ...".
  const bracketWord = from.slice(1).find((i) => !i.comment && i.text.startsWith('['));
  const fromIp =
    ipFromComments(fromComments) ??
    (fromFirst === null ? null : ipLiteral(fromFirst)) ??
    (bracketWord ? ipLiteral(bracketWord.text) : null);
  return { fromHost, fromIp, helo, heloIp };
}

/** The by clause: the receiving host, or its IP literal when that is all it wrote. */
function byClause(by: Item[]): Pick<ReceivedHop, 'byHost' | 'byIp'> {
  const byFirst = firstWord(by);
  const byIp = ipFromComments(commentTexts(by)) ?? (byFirst === null ? null : ipLiteral(byFirst));
  let byHost = byFirst === null ? null : cleanHost(byFirst);
  if (byHost === null && byFirst !== null && byIp !== null) byHost = byIp.address;
  return { byHost, byIp };
}

export function parseReceived(value: string): ReceivedHop {
  const text = value.slice(0, MAX_VALUE);
  const semi = lastTopLevelSemicolon(text);
  const items = scan(semi === -1 ? text : text.slice(0, semi));
  const time = hopTime(text, semi, items);
  const { clauses, prelude } = splitClauses(items);
  const withItems = clauses.get('with') ?? [];
  const dateComments = semi === -1 ? [] : scan(text.slice(semi + 1));
  const tlsText = commentTexts(items.concat(dateComments))
    .concat(withItems.map((i) => i.text))
    .join(' ')
    .toLowerCase();
  const [protocol, protocolRaw] = readProtocol(withItems, tlsText);
  const recognized = clauses.has('from') || clauses.has('by') || prelude[0]?.comment === true;
  return {
    ...fromClause(clauses.get('from') ?? []),
    ...byClause(clauses.get('by') ?? []),
    protocol,
    protocolRaw,
    time,
    recognized,
  };
}
