/**
 * The limits' state on /metrics: whether they are shared through Redis or counted on this
 * instance while Redis is away (outage.ts), read at scrape time.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { OutageState } from './outage.ts';

export function registerLimitsMetrics(registry: Registry, outage: () => OutageState | null): void {
  new Gauge({
    name: 'netrep_limits_degraded',
    help: '1 while Redis is away and rate limits are counted on this instance (its share of what was left), else 0; absent without Redis',
    registers: [registry],
    collect() {
      this.reset();
      const s = outage();
      if (s) this.set(s.degraded ? 1 : 0);
    },
  });
  new Gauge({
    name: 'netrep_limits_local_pending',
    help: 'Requests allowed on this instance while Redis was away and not yet added back to Redis',
    registers: [registry],
    collect() {
      this.reset();
      const s = outage();
      if (s) this.set(s.pending);
    },
  });
  new Gauge({
    name: 'netrep_limits_instances',
    help: 'Instances counted as sharing the limits (each allows 1/N of a counter while Redis is away)',
    registers: [registry],
    collect() {
      this.reset();
      const s = outage();
      if (s) this.set(s.instances);
    },
  });
  let allowed = 0;
  let refused = 0;
  new Counter({
    name: 'netrep_limits_local_total',
    help: 'Requests counted on this instance while Redis was away, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const s = outage();
      if (!s) return;
      this.inc({ outcome: 'allowed' }, s.localAllowed - allowed);
      this.inc({ outcome: 'refused' }, s.localRefused - refused);
      allowed = s.localAllowed;
      refused = s.localRefused;
    },
  });
}
