/**
 * One port of one address, probed once: a TCP (or TLS) connection straight to the address, one
 * `GET / HTTP/1.0` (no chunked answer, no keep-alive), at most `maxBytes` read, then the socket
 * is destroyed. node:net and node:tls rather than an HTTP client: the byte cap and the deadline
 * are exact, and nothing is ever followed. TLS accepts any certificate (rejectUnauthorized false)
 * so that a self-signed or expired one is still read; whether it verified is recorded.
 */
import net from 'node:net';
import tls from 'node:tls';
import { readResponse } from './response.ts';
import type { PortOutcome, PortResult, ScanPort, TlsFacts } from './types.ts';

export interface ProbeOptions {
  address: string;
  target: ScanPort;
  connectTimeoutMs: number;
  /** The whole probe: connect, handshake, request and read. */
  deadlineMs: number;
  maxBytes: number;
  userAgent: string;
  /** Epoch ms, for the certificate's dates. */
  now: number;
  /** Extra trusted roots (tests' own CA); the system's otherwise. */
  ca?: string[];
}

const TLS_REASONS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'not yet valid',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT: 'unknown issuer',
};

const first = (v: string | string[] | undefined): string | null =>
  (Array.isArray(v) ? v[0] : v)?.trim() || null;

/** The peer certificate's subject, names and validity. */
export function tlsFactsOf(socket: tls.TLSSocket, now: number): TlsFacts {
  const cert = socket.getPeerCertificate();
  const subject = (cert?.subject ?? {}) as Record<string, string | string[] | undefined>;
  const alt = (cert?.subjectaltname ?? '')
    .split(', ')
    .filter((n) => n.startsWith('DNS:'))
    .map((n) => n.slice(4));
  const cn = first(subject.CN);
  const names = [...new Set([...(cn ? [cn] : []), ...alt])].slice(0, 20);
  const notAfter = cert?.valid_to ? Date.parse(cert.valid_to) : Number.NaN;
  const notBefore = cert?.valid_from ? Date.parse(cert.valid_from) : Number.NaN;
  const error = socket.authorizationError ? String(socket.authorizationError) : null;
  // The dates first: an expired self-signed certificate is reported expired.
  let reason: string | null = null;
  if (notAfter < now) reason = 'expired';
  else if (notBefore > now) reason = 'not yet valid';
  else if (error) reason = TLS_REASONS[error] ?? error.toLowerCase();
  return {
    organization: first(subject.O),
    names,
    valid: reason === null && socket.authorized,
    reason,
    not_after: Number.isNaN(notAfter) ? null : new Date(notAfter).toISOString(),
  };
}

function requestText(o: ProbeOptions): string {
  const host = o.address.includes(':') ? `[${o.address}]` : o.address;
  const standard = (o.target.protocol === 'tls' ? 443 : 80) === o.target.port;
  return [
    'GET / HTTP/1.0',
    `Host: ${standard ? host : `${host}:${o.target.port}`}`,
    `User-Agent: ${o.userAgent}`,
    'Accept: text/html,*/*;q=0.8',
    'Connection: close',
    '',
    '',
  ].join('\r\n');
}

function errorOutcome(err: NodeJS.ErrnoException, connected: boolean, secure: boolean): PortOutcome {
  if (err.code === 'ECONNREFUSED') return 'connect_refused';
  if (connected && secure) return 'tls_failed';
  return 'error';
}

/** What a probe's bytes and end say; `outcome` null: read from the bytes. */
function resultOf(
  o: ProbeOptions,
  end: { outcome: PortOutcome | null; detail: string | null },
  bytes: Buffer,
  tlsFacts: TlsFacts | null,
  started: number,
): PortResult {
  const r = readResponse(bytes);
  const outcome = end.outcome ?? (r.http ? 'answered' : bytes.length > 0 ? 'not_http' : 'error');
  const fallback = outcome === 'not_http' ? `not HTTP (${bytes.length} bytes)` : 'closed without an answer';
  return {
    port: o.target.port,
    protocol: o.target.protocol,
    outcome,
    status: r.status,
    server: r.server,
    title: r.title,
    redirect_host: r.redirect_host,
    truncated: bytes.length >= o.maxBytes,
    tls: tlsFacts,
    detail: end.detail ?? (outcome === 'answered' ? null : fallback),
    elapsed_ms: Math.round(performance.now() - started),
  };
}

function connectTo(o: ProbeOptions): net.Socket {
  if (o.target.protocol === 'http') return net.connect({ host: o.address, port: o.target.port });
  return tls.connect({
    host: o.address,
    port: o.target.port,
    rejectUnauthorized: false,
    // Scanned by address: the certificate names hosts, never this IP, so `valid` means the chain
    // and the dates only.
    checkServerIdentity: () => undefined,
    ALPNProtocols: ['http/1.1'],
    ...(o.ca ? { ca: [...tls.rootCertificates, ...o.ca] } : {}),
  });
}

const STATUS_START = Buffer.from('HTTP/');

function notHttp(chunks: readonly Buffer[]): boolean {
  const start = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks.slice(0, 5));
  const n = Math.min(start.length, STATUS_START.length);
  return start.subarray(0, n).compare(STATUS_START, 0, n) !== 0;
}

export function probePort(o: ProbeOptions): Promise<PortResult> {
  const secure = o.target.protocol === 'tls';
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let read = 0;
    let connected = false;
    let handshaken = false;
    let facts: TlsFacts | null = null;
    let settled = false;
    const socket = connectTo(o);
    const finish = (outcome: PortOutcome | null, detail: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(deadline);
      socket.destroy();
      resolve(resultOf(o, { outcome, detail }, Buffer.concat(chunks), facts, started));
    };
    const connectTimer = setTimeout(
      () => finish('connect_timeout', `no connection within ${o.connectTimeoutMs} ms`),
      o.connectTimeoutMs,
    );
    const deadline = setTimeout(() => {
      if (!connected) finish('connect_timeout', `no connection within ${o.deadlineMs} ms`);
      else if (secure && !handshaken) finish('tls_failed', `no TLS handshake within ${o.deadlineMs} ms`);
      else finish('deadline', `deadline of ${o.deadlineMs} ms (${read} bytes read)`);
    }, o.deadlineMs);
    socket.once('connect', () => {
      connected = true;
      clearTimeout(connectTimer);
    });
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      handshaken = true;
      if (secure) facts = tlsFactsOf(socket as tls.TLSSocket, o.now);
      socket.write(requestText(o));
    });
    socket.on('data', (chunk: Buffer) => {
      const take = chunk.subarray(0, o.maxBytes - read);
      chunks.push(take);
      read += take.length;
      // 64 KiB is all a title and a Server header need; the rest is not read. An answer that
      // does not begin like a status line is not HTTP: no need to wait for more of it.
      if (read >= o.maxBytes || notHttp(chunks)) finish(null, null);
    });
    socket.on('end', () => finish(null, null));
    socket.on('close', () => finish(null, null));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // An answer that arrived before a reset still counts.
      if (read > 0) finish(null, null);
      else finish(errorOutcome(err, connected, secure), `${err.code ?? 'error'}: ${err.message}`);
    });
  });
}
