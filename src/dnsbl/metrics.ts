/** The DNSBL server on /metrics: queries whose answering failed, read at scrape time. */
import { Counter, type Registry } from 'prom-client';
import type { DnsblServer } from './server.ts';

export function registerDnsblMetrics(registry: Registry, server: Pick<DnsblServer, 'answerErrors'>): void {
  new Counter({
    name: 'netrep_dnsbl_answer_errors_total',
    help: 'DNSBL queries answered SERVFAIL because answering them failed (each logged as "dnsbl: answering a query failed")',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(server.answerErrors());
    },
  });
}
