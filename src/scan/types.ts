/** The service scan's shapes (issue #34): what a port answered, a whole scan, a lookup's part. */

/** How a lookup's scan stands: a stored result (`done`, `failed`), one queued or running
 * (`pending`), scanning off (`disabled`) or this address never scanned (`refused`). */
export type ScanStatus = 'pending' | 'done' | 'failed' | 'disabled' | 'refused';

/** How one port's probe ended. */
export type PortOutcome =
  | 'answered'
  | 'not_http'
  | 'connect_refused'
  | 'connect_timeout'
  | 'deadline'
  | 'tls_failed'
  | 'error';

export interface TlsFacts {
  /** The certificate subject's O, else null. */
  organization: string | null;
  /** Subject CN and DNS subjectAltNames, in that order, without repeats. */
  names: string[];
  /** The chain verified and the dates hold at scan time. */
  valid: boolean;
  /** Why not valid: `self-signed`, `expired`, `not yet valid`, `unknown issuer` or the TLS code. */
  reason: string | null;
  not_after: string | null;
}

export interface PortResult {
  port: number;
  protocol: 'tls' | 'http';
  outcome: PortOutcome;
  /** The HTTP status line's code, null when none arrived. */
  status: number | null;
  server: string | null;
  title: string | null;
  /** A 3xx's Location host (never followed). */
  redirect_host: string | null;
  /** The read stopped at the byte cap. */
  truncated: boolean;
  tls: TlsFacts | null;
  /** What went wrong, in words (null when the port answered HTTP). */
  detail: string | null;
  elapsed_ms: number;
}

/** A finished scan of one address. */
export interface ScanReport {
  ip: string;
  ports: PortResult[];
  service_title: string | null;
  service_server: string | null;
  tls_organization: string | null;
  /** `done` when any port answered (even with no fields), else `failed`. */
  status: 'done' | 'failed';
  /** Why it failed (each port's outcome), null when done. */
  reason: string | null;
}

/** The part of a lookup's answer the scan fills (GET /v1/public/ip/{ip}). */
export interface ScanAnswer {
  scan: { status: ScanStatus; scanned_at: string | null; reason?: string };
  service_title: string | null;
  service_server: string | null;
  tls_organization: string | null;
}

/** One port the scanner tries and how it speaks there. */
export interface ScanPort {
  port: number;
  protocol: 'tls' | 'http';
}
