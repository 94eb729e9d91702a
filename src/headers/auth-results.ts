/**
 * The result syntax of Authentication-Results (RFC 8601 §2.2) and ARC-Authentication-Results
 * (RFC 8617 §4.1.1), and the tag=value lists of DKIM-Signature and ARC-Seal (RFC 6376 §3.2).
 * Tolerant and bounded: a value is read up to 8192 characters, 32 results, 15 properties each.
 */
import type { ResultEntry } from './types.ts';

export interface ResultInfo {
  method: string;
  result: string;
  props: Record<string, string>;
}

export interface AuthResults {
  authservId: string | null;
  results: ResultInfo[];
}

const MAX_VALUE = 8192;
const MAX_PROP = 512;

interface SegmentScan {
  segments: string[];
  current: string;
  depth: number;
  quoted: boolean;
}

/** One character outside a quoted string: comments nest and vanish, `;` ends a segment. */
function segmentChar(scan: SegmentScan, ch: string): void {
  if (ch === '(') scan.depth++;
  else if (ch === ')' && scan.depth > 0) scan.depth--;
  else if (scan.depth > 0) return;
  else if (ch === ';') {
    scan.segments.push(scan.current.trim());
    scan.current = '';
  } else {
    scan.quoted = ch === '"';
    scan.current += ch;
  }
}

/**
 * Drops (comments) outside "quoted strings" and splits on `;` outside quotes. Quoted strings
 * keep their quotes, so a result's `reason="..."` stays one token (readResinfo removes them).
 */
function splitSegments(value: string): string[] {
  const scan: SegmentScan = { segments: [], current: '', depth: 0, quoted: false };
  for (const ch of value.slice(0, MAX_VALUE)) {
    if (!scan.quoted) segmentChar(scan, ch);
    else {
      scan.current += ch;
      if (ch === '"') scan.quoted = false;
    }
  }
  scan.segments.push(scan.current.trim());
  return scan.segments;
}

interface TokenScan {
  tokens: string[];
  current: string;
  quoted: boolean;
  pendingSpace: boolean;
}

/** A space seen before `ch` ends the current token, unless an `=` joins the two (`a = b` is `a=b`). */
function endTokenBefore(scan: TokenScan, ch: string): void {
  if (scan.pendingSpace && ch !== '=' && !scan.current.endsWith('=')) {
    scan.tokens.push(scan.current);
    scan.current = '';
  }
  scan.pendingSpace = false;
}

/** Space-separated tokens outside quotes, quotes removed; `a = b` is read as `a=b`. */
function tokenize(segment: string): string[] {
  const scan: TokenScan = { tokens: [], current: '', quoted: false, pendingSpace: false };
  for (const ch of segment) {
    if (scan.quoted) {
      if (ch === '"') scan.quoted = false;
      else scan.current += ch;
    } else if (ch === ' ') scan.pendingSpace = scan.current.length > 0;
    else {
      endTokenBefore(scan, ch);
      if (ch === '"') scan.quoted = true;
      else scan.current += ch;
    }
  }
  if (scan.current.length > 0) scan.tokens.push(scan.current);
  return scan.tokens;
}

function readResinfo(segment: string): ResultInfo | null {
  const tokens = tokenize(segment);
  const first = tokens[0] ?? '';
  const eq = first.indexOf('=');
  if (eq <= 0) return null;
  const method = (first.slice(0, eq).split('/')[0] as string).toLowerCase();
  const result = first.slice(eq + 1, eq + 33).toLowerCase();
  if (result.length === 0) return null;
  const props: Record<string, string> = {};
  for (const t of tokens.slice(1, 16)) {
    const e = t.indexOf('=');
    const key = t.slice(0, e).toLowerCase();
    // Own-property names only: a property named __proto__ is kept out of the record.
    if (e > 0 && key !== '__proto__') props[key] = t.slice(e + 1, e + 1 + MAX_PROP);
  }
  return { method, result, props };
}

export function parseAuthResults(value: string): AuthResults {
  const segments = splitSegments(value);
  const head = segments[0] ?? '';
  let authservId: string | null = null;
  let rest = segments.slice(1);
  // Microsoft 365 writes no authserv-id first: the first segment is already a result, and a
  // forwarded copy may carry the id as a bare segment further on ("spf=...; tenant.example; dkim=...").
  if (head.split(' ')[0]?.includes('=')) {
    rest = segments;
    const bare = segments.slice(1, 33).find((s) => s.length > 0 && !s.includes('=') && !s.includes(' '));
    authservId = bare?.toLowerCase() ?? null;
  } else authservId = head.split(' ')[0]?.toLowerCase() || null;
  const results: ResultInfo[] = [];
  for (const s of rest.slice(0, 32)) {
    const r = readResinfo(s);
    if (r) results.push(r);
  }
  return { authservId, results };
}

/** `k=v; k=v` tag lists (DKIM-Signature, ARC-Seal); whitespace inside values is dropped. */
export function parseTags(value: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const part of value.slice(0, MAX_VALUE).split(';').slice(0, 32)) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    if (!(key in tags)) tags[key] = part.slice(eq + 1).replaceAll(' ', '');
  }
  return tags;
}

/** A result as the API shows it: reason= apart, the other properties as written. */
export function resultEntry(r: ResultInfo): ResultEntry {
  const { reason, ...properties } = r.props;
  return { method: r.method, result: r.result, reason: reason ?? null, properties };
}
