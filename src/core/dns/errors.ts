/**
 * DNS failures mapped once, to exact classes. Every caller of the DNS client sees a DnsError
 * and branches on `code`, never on c-ares error strings.
 * - NXDOMAIN: the name does not exist (RCODE 3).
 * - NODATA: the name exists but holds no record of the asked type (RCODE 0, empty answer).
 * - TIMEOUT: no answer within the per-query timeout after all tries.
 * - SERVFAIL, REFUSED, FORMERR: the server answered with that RCODE.
 * - DEADLINE: the request's total deadline passed before the answer.
 * - BUDGET: the request's lookup budget is spent; the query was not sent.
 * - BADNAME: the resolver library refuses the name before sending (characters outside
 *   hostname syntax, e.g. "[1.2.3.4]"); no such name can be answered by it.
 * - OTHER: anything else (bad response, connection refused).
 */
export type DnsErrorCode =
  | 'NXDOMAIN'
  | 'NODATA'
  | 'TIMEOUT'
  | 'SERVFAIL'
  | 'REFUSED'
  | 'FORMERR'
  | 'BADNAME'
  | 'DEADLINE'
  | 'BUDGET'
  | 'OTHER';

export class DnsError extends Error {
  readonly code: DnsErrorCode;
  override readonly name = 'DnsError';
  /** The queried name and type, e.g. `example.com TXT`. */
  readonly query: string;

  constructor(code: DnsErrorCode, query: string, options?: { cause?: unknown }) {
    super(`${code} for ${query}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.query = query;
  }
}

export function isDnsError(err: unknown): err is DnsError {
  return err instanceof DnsError;
}

/**
 * True for answers that say "no such record" (RFC 7208 §4.6.4 calls these void lookups);
 * a name the resolver cannot even ask for (BADNAME) has no record for us either.
 */
export function isAbsent(err: unknown): boolean {
  return isDnsError(err) && (err.code === 'NXDOMAIN' || err.code === 'NODATA' || err.code === 'BADNAME');
}

/** True for failures that mean "try again later" rather than "no record". */
export function isTransient(err: unknown): boolean {
  return isDnsError(err) && !isAbsent(err);
}

// node:dns error codes (c-ares) → our classes.
const NODE_CODES: Record<string, DnsErrorCode> = {
  ENOTFOUND: 'NXDOMAIN',
  ENODATA: 'NODATA',
  ETIMEOUT: 'TIMEOUT',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  EFORMERR: 'FORMERR',
  EBADNAME: 'BADNAME',
};

/**
 * Maps an error thrown by node:dns to a DnsError; DnsErrors pass through unchanged. An error
 * without a node:dns code is a bug (or the test guard), not a DNS answer: it is rethrown as is.
 */
export function mapDnsError(err: unknown, query: string): DnsError {
  if (isDnsError(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') throw err;
  return new DnsError(NODE_CODES[code] ?? 'OTHER', query, { cause: err });
}
