/**
 * Background work that needs an operator on /metrics: webhook deliveries given up (dead letters)
 * and audit jobs taken over from a worker whose lease expired. Counted by this process since
 * start, read at scrape time.
 */
import { Counter, type Registry } from 'prom-client';

export function registerJobsMetrics(
  registry: Registry,
  counts: { webhookDeadLetters(): number; auditLeaseTakeovers(): number },
): void {
  new Counter({
    name: 'netrep_webhook_dead_letters_total',
    help: 'Webhook deliveries marked dead by this process: the last attempt failed (NETREP_WEBHOOK_MAX_ATTEMPTS), no retry follows',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts.webhookDeadLetters());
    },
  });
  new Counter({
    name: 'netrep_audit_lease_takeovers_total',
    help: 'Running audit jobs this process took over because their lease expired (the worker that held it stopped renewing it)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts.auditLeaseTakeovers());
    },
  });
}
