/**
 * The closed table of error codes: spec §7 plus CONTRACT §2. Every error body the service
 * sends is built from one of these rows by the single error handler in http/.
 */
export const ERRORS = {
  INVALID_IP: { status: 400, message: 'invalid IP address' },
  TOO_MANY_IPS: { status: 400, message: 'too many IPs in one request' },
  INVALID_ASN: { status: 400, message: 'invalid ASN' },
  MISSING_DOMAIN: { status: 400, message: 'missing domain parameter' },
  MISSING_HEADERS: { status: 400, message: 'headers field is required' },
  INVALID_BODY: { status: 400, message: 'request body is missing or malformed' },
  INVALID_PARAMETER: { status: 400, message: 'a parameter is out of range' },
  INVALID_DOMAIN: { status: 400, message: 'domain is not a valid public DNS hostname' },
  TOO_MANY_OBSERVATIONS: { status: 400, message: 'maximum 100 observations per request' },
  INVALID_REPORT: { status: 400, message: 'the upload is not a readable DMARC or TLS report' },
  HEADERS_TOO_LARGE: { status: 400, message: 'headers value exceeds 49152 bytes' },
  POPULATION_TOO_LARGE: { status: 400, message: 'targets expand to more addresses than max_population' },
  DATASET_VERSION_UNAVAILABLE: {
    status: 400,
    message: 'this instance does not hold the pinned dataset version',
  },
  UNAUTHORIZED: { status: 401, message: 'unauthorized' },
  AUTH_REQUIRED: { status: 401, message: 'authentication required' },
  FORBIDDEN: { status: 403, message: 'forbidden' },
  NOT_FOUND: { status: 404, message: 'not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed' },
  DATASET_BROKEN: {
    status: 409,
    message: 'the newest dataset snapshot is broken; the serving version is kept',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'content type must be application/json' },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'rate limit exceeded' },
  MALFORMED_REQUEST: { status: 400, message: 'the request is not valid HTTP/1.1' },
  REQUEST_TIMEOUT: { status: 408, message: 'the request did not arrive in time' },
  EXPECTATION_FAILED: { status: 417, message: 'only Expect: 100-continue is supported' },
  TOO_MANY_CONNECTIONS: { status: 429, message: 'too many open connections from this address' },
  REQUEST_HEADER_TOO_LARGE: {
    status: 431,
    message: 'the request line and header fields exceed 16384 bytes',
  },
  INTERNAL: { status: 500, message: 'internal error' },
  EVIDENCE_UNAVAILABLE: {
    status: 503,
    message: 'reputation evidence is unavailable; no score is synthesized',
  },
  NOT_READY: { status: 503, message: 'service is not ready' },
  DNS_UNAVAILABLE: {
    status: 503,
    message: 'the DNS resolver could not be read; no grade is given for records that could not be checked',
  },
  STORE_UNAVAILABLE: { status: 503, message: 'the database is unavailable; retry shortly' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** An expected failure with a code from ERRORS; the message is safe to show to the caller. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra fields merged into the error response's meta (e.g. cache_status on a lookup 404). */
  readonly meta: Record<string, unknown> | undefined;
  /** Extra response headers (e.g. Retry-After on 429). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options?: { meta?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown },
  ) {
    super(
      message ?? ERRORS[code].message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.meta = options?.meta;
    this.headers = options?.headers;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
