/**
 * The service scan on /metrics (issue #34): scans this process finished by outcome, its probes by
 * how they ended, lookups whose address was refused by why, and scans put back because the
 * minute's cap (NETREP_SCAN_RATE) was reached. Counted since start, read at scrape time.
 */
import { Counter, type Registry } from 'prom-client';
import type { ScanCounts } from '../scan/index.ts';

export function registerScanMetrics(registry: Registry, counts: () => ScanCounts): void {
  new Counter({
    name: 'netrep_scans_total',
    help: 'Service scans this process ran, by outcome: done (a port answered) or failed (none did)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, n] of Object.entries(counts().scans)) this.inc({ outcome }, n);
    },
  });
  new Counter({
    name: 'netrep_scan_ports_total',
    help: 'Service scan probes (one per port) by how they ended: answered, not_http, connect_refused, connect_timeout, deadline, tls_failed, error',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, n] of Object.entries(counts().ports)) this.inc({ outcome }, n ?? 0);
    },
  });
  new Counter({
    name: 'netrep_scan_refusals_total',
    help: 'Lookups whose address was not scanned, by reason: not_public (loopback, private, reserved, mapped forms), excluded (NETREP_SCAN_EXCLUDE), quota (the client may start no more scans)',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, n] of Object.entries(counts().refusals)) this.inc({ reason }, n);
    },
  });
  new Counter({
    name: 'netrep_scan_deferred_total',
    help: 'Claimed scans put back in the queue because NETREP_SCAN_RATE scans had started this minute across instances',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts().deferred);
    },
  });
  new Counter({
    name: 'netrep_scan_queue_failures_total',
    help: 'Scans a lookup asked for that the store did not queue (the lookup had answered pending; the next lookup of the address asks again)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts().queueFailures);
    },
  });
}
