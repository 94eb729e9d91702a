/**
 * Dates as mail servers write them: RFC 5322 §3.3 including the obsolete forms (§4.3: two-digit
 * years, named zones), optional weekday and seconds, comments such as "(UTC)", and the asctime
 * layout some old MTAs use ("Mon Aug 22 09:22:13 2016"). A hand-written token walk, no regex
 * backtracking: the input is split once and read left to right.
 */
const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};
const WEEKDAYS = new Set(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
/** Zone offsets in minutes. RFC 5322 §4.3 names, plus a few that real servers write. */
const ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  cet: 60,
  cest: 120,
  bst: 60,
  msk: 180,
  jst: 540,
};
const MAX_DATE_TEXT = 200;

/** Removes (comments), nesting-aware, in one pass. */
export function stripComments(text: string): string {
  let depth = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')' && depth > 0) depth--;
    else if (depth === 0) out += ch;
  }
  return out;
}

interface TimeOfDay {
  h: number;
  m: number;
  s: number;
}

function readTime(token: string): TimeOfDay | null {
  const parts = token.split(':');
  if (parts.length < 2 || parts.length > 3) return null;
  const nums = parts.map((p) => (/^\d{1,2}$/.test(p) ? Number(p) : Number.NaN));
  const [h, m, s = 0] = nums as [number, number, number?];
  if (!(h <= 23 && m <= 59 && s <= 60)) return null;
  return { h, m, s };
}

function readYear(token: string): number | null {
  if (!/^\d{2,4}$/.test(token)) return null;
  const y = Number(token);
  // RFC 5322 §4.3: two-digit years below 50 are 20xx, others 19xx; three digits add 1900.
  if (token.length === 2) return y < 50 ? 2000 + y : 1900 + y;
  if (token.length === 3) return 1900 + y;
  return y;
}

function readZone(token: string | undefined): number {
  if (token === undefined) return 0;
  const numeric = /^([+-])(\d\d)(\d\d)$/.exec(token);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    return numeric[1] === '-' ? -minutes : minutes;
  }
  // Unknown names count as -0000, as RFC 5322 §4.3 says for military zones.
  return ZONES[token.toLowerCase()] ?? 0;
}

function build(year: number, month: number, day: number, t: TimeOfDay, zone: number): number | null {
  if (year < 1970 || year > 9999 || day < 1 || day > 31) return null;
  const ms = Date.UTC(year, month, day, t.h, t.m, Math.min(t.s, 59));
  // Reject 31 Feb and the like instead of rolling over.
  if (new Date(ms).getUTCDate() !== day) return null;
  return ms - zone * 60_000;
}

/** RFC 5322 §3.3: day month year time [zone], the tokens after an optional weekday. */
function rfc5322Date(t: string[]): number | null {
  const month = MONTHS[(t[1] ?? '').slice(0, 3).toLowerCase()];
  if (!/^\d{1,2}$/.test(t[0] ?? '') || month === undefined) return null;
  const year = readYear(t[2] ?? '');
  const time = readTime(t[3] ?? '');
  if (year === null || time === null) return null;
  return build(year, month, Number(t[0]), time, readZone(t[4]));
}

/** asctime: month day time [zone] year. */
function asctimeDate(t: string[]): number | null {
  const month = MONTHS[(t[0] ?? '').slice(0, 3).toLowerCase()];
  if (month === undefined || !/^\d{1,2}$/.test(t[1] ?? '')) return null;
  const time = readTime(t[2] ?? '');
  const zoned = readYear(t[3] ?? '') === null;
  const year = readYear((zoned ? t[4] : t[3]) ?? '');
  if (year === null || time === null) return null;
  return build(year, month, Number(t[1]), time, readZone(zoned ? t[3] : undefined));
}

/** Epoch ms of a mail date, or null when the text is not one. */
export function parseMailDate(text: string): number | null {
  const tokens = stripComments(text.slice(0, MAX_DATE_TEXT))
    .split(/[\s,]+/)
    .filter((t) => t.length > 0);
  const weekday = tokens[0] !== undefined && WEEKDAYS.has(tokens[0].slice(0, 3).toLowerCase());
  const rest = weekday ? tokens.slice(1) : tokens;
  if (rest[0] === undefined) return null;
  const rfcMonth = MONTHS[(rest[1] ?? '').slice(0, 3).toLowerCase()];
  // A day and a month name first is RFC 5322's order, whether or not the rest reads.
  if (/^\d{1,2}$/.test(rest[0]) && rfcMonth !== undefined) return rfc5322Date(rest);
  return asctimeDate(rest);
}

/** RFC 3339 UTC with whole seconds: 2016-05-24T12:30:11Z. */
export function toRfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** "0s", "2s", "1m 5s", "2h 3s", "3d 4h", and "-1m 5s" for a negative delay. */
export function formatDelay(seconds: number): string {
  const sign = seconds < 0 ? '-' : '';
  let rest = Math.abs(Math.trunc(seconds));
  if (rest === 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return sign + parts.join(' ');
}
