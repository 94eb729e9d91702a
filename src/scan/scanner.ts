/**
 * One scan of one address: each configured port probed once, one at a time (so a host sees at
 * most one connection from netrep at a time), and the fields taken from what answered:
 * `tls_organization` from the first TLS port's certificate, `service_server` and `service_title`
 * from the first port whose answer carried them.
 */
import { probePort } from './probe.ts';
import type { PortResult, ScanPort, ScanReport } from './types.ts';

export const MAX_READ_BYTES = 64 * 1024;

export interface ScannerSettings {
  ports: readonly ScanPort[];
  connectTimeoutMs: number;
  deadlineMs: number;
  userAgent: string;
  /** Extra trusted roots (tests' own CA). */
  ca?: string[];
}

const firstOf = (ports: PortResult[], pick: (p: PortResult) => string | null | undefined) => {
  for (const p of ports) {
    const v = pick(p);
    if (v) return v;
  }
  return null;
};

/** The report of the probes: pure, so the rules are tested without sockets. */
export function reportOf(ip: string, ports: PortResult[]): ScanReport {
  const answered = ports.some((p) => p.status !== null || p.tls !== null);
  return {
    ip,
    ports,
    service_title: firstOf(ports, (p) => p.title),
    service_server: firstOf(ports, (p) => p.server),
    tls_organization: firstOf(ports, (p) => p.tls?.organization),
    status: answered ? 'done' : 'failed',
    reason: answered
      ? null
      : ports.map((p) => `${p.port}/${p.protocol}: ${p.detail ?? p.outcome}`).join('; '),
  };
}

/**
 * Less time than this left for a port: it is not tried. A host on the network rarely answers a
 * connection, a request and the head of its answer in less, and the loop's timers fire up to a
 * millisecond early, so a port after one that used the whole deadline was otherwise tried with
 * 1 ms left.
 */
const MIN_PROBE_MS = 20;

/** A port the scan's deadline left no time for. */
function notTried(target: ScanPort, deadlineMs: number): PortResult {
  return {
    ...target,
    outcome: 'deadline',
    status: null,
    server: null,
    title: null,
    redirect_host: null,
    truncated: false,
    tls: null,
    detail: `not tried: the scan's deadline of ${deadlineMs} ms had passed or left under ${MIN_PROBE_MS} ms`,
    elapsed_ms: 0,
  };
}

/** `deadlineMs` bounds the whole scan: each probe gets what the ones before it left. */
export async function scanAddress(
  ip: string,
  settings: ScannerSettings,
  now: () => number,
): Promise<ScanReport> {
  const results: PortResult[] = [];
  const started = performance.now();
  for (const target of settings.ports) {
    const left = Math.floor(settings.deadlineMs - (performance.now() - started));
    if (left < MIN_PROBE_MS) {
      results.push(notTried(target, settings.deadlineMs));
      continue;
    }
    results.push(
      await probePort({
        address: ip,
        target,
        connectTimeoutMs: Math.min(settings.connectTimeoutMs, left),
        deadlineMs: left,
        maxBytes: MAX_READ_BYTES,
        userAgent: settings.userAgent,
        now: now(),
        ...(settings.ca ? { ca: settings.ca } : {}),
      }),
    );
  }
  return reportOf(ip, results);
}
