/**
 * Which driver errors mean "the store is out of reach" (an outage the caller may retry) rather
 * than a bug. The one place that knows the pg and better-sqlite3 error shapes: the HTTP error
 * handler answers 503 STORE_UNAVAILABLE for these and 500 INTERNAL for anything else.
 */

/** Node socket and DNS errors on the way to the database server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
]);

/**
 * PostgreSQL SQLSTATEs of an unreachable, shutting-down, overloaded or read-only server:
 * class 08 (connection exception), 53 (insufficient resources), 57P01-57P05 (shutdown,
 * cannot connect now, idle session timeout), 57014 (statement_timeout), 25006 (a standby).
 */
function pgStateUnavailable(code: string): boolean {
  if (!/^[0-9A-Z]{5}$/.test(code)) return false;
  return (
    code.startsWith('08') ||
    code.startsWith('53') ||
    /^57P0[1-5]$/.test(code) ||
    code === '57014' ||
    code === '25006'
  );
}

/** better-sqlite3 codes (extended codes start with the primary's name, SQLITE_IOERR_READ…). */
const SQLITE_PRIMARIES = [
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_PROTOCOL',
  'SQLITE_PERM',
  'SQLITE_NOLFS',
];

/** pg's and better-sqlite3's own sentences for a connection that is gone or never came. */
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Cannot use a pool after calling end on the pool/,
  /^Query read timeout/,
  /^The database connection is not open/,
];

function unavailableHere(err: object): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || pgStateUnavailable(code)) return true;
    if (SQLITE_PRIMARIES.some((p) => code === p || code.startsWith(`${p}_`))) return true;
  }
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && MESSAGES.some((m) => m.test(message));
}

/**
 * True when `err` (or an error it wraps: `cause`, an AggregateError's `errors`) says the store
 * cannot be reached or used right now. Constraint violations, syntax errors and other bugs are false.
 */
export function isStoreUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e) || seen.size > 16) continue;
    seen.add(e);
    if (unavailableHere(e)) return true;
    queue.push((e as { cause?: unknown }).cause);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) queue.push(...inner);
  }
  return false;
}
