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

/** Splits into top-level words and (comments), nesting-aware; an unclosed comment runs to the end. */
function scan(text: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ' ') {
      i++;
    } else if (ch === '(') {
      let depth = 0;
      const start = i;
      for (; i < text.length; i++) {
        const c = text[i];
        if (c === '(') depth++;
        else if (c === ')' && --depth === 0) break;
      }
      items.push({ comment: true, text: text.slice(start + 1, i) });
      i++;
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

export function parseReceived(value: string): ReceivedHop {
  const text = value.slice(0, MAX_VALUE);
  const semi = lastTopLevelSemicolon(text);
  const head = semi === -1 ? text : text.slice(0, semi);
  let time = semi === -1 ? null : parseMailDate(text.slice(semi + 1));
  const items = scan(head);
  if (time === null && semi === -1) {
    // No ";": some servers put the date last anyway. Try the last few words.
    const words = items.filter((i) => !i.comment).map((i) => i.text);
    for (let k = Math.max(0, words.length - 6); k < words.length && time === null; k++) {
      time = parseMailDate(words.slice(k).join(' '));
    }
  }

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

  const from = clauses.get('from') ?? [];
  const fromComments = from.filter((i) => i.comment).map((i) => i.text);
  const fromFirst = from[0] && !from[0].comment ? from[0].text : null;
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

  const by = clauses.get('by') ?? [];
  const byFirst = by[0] && !by[0].comment ? by[0].text : null;
  const byIp =
    ipFromComments(by.filter((i) => i.comment).map((i) => i.text)) ??
    (byFirst === null ? null : ipLiteral(byFirst));
  let byHost = byFirst === null ? null : cleanHost(byFirst);
  if (byHost === null && byFirst !== null && byIp !== null) byHost = byIp.address;

  const withItems = clauses.get('with') ?? [];
  const dateComments = semi === -1 ? [] : scan(text.slice(semi + 1));
  const tlsText = items
    .concat(dateComments)
    .filter((i) => i.comment)
    .map((i) => i.text)
    .concat(withItems.map((i) => i.text))
    .join(' ')
    .toLowerCase();
  const [protocol, protocolRaw] = readProtocol(withItems, tlsText);

  const recognized = clauses.has('from') || clauses.has('by') || prelude[0]?.comment === true;
  return { fromHost, fromIp, helo, heloIp, byHost, byIp, protocol, protocolRaw, time, recognized };
}
