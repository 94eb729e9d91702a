/**
 * Stage 3c of createApp: the complete services object the HTTP app is given (http/context.ts),
 * made from the domains, the dataset stage and the store stage; /readyz's checks among them.
 */

import type { Logger } from 'pino';
import { createAuditJobs, createAuditStore, createDatasetVersions } from '../audit/index.ts';
import { checkAnswer } from '../blocklist/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { parseIp } from '../core/ip.ts';
import { createDatasetStatusReader } from '../dataset/index.ts';
import type { HttpServices, ReadinessCheck } from '../http/context.ts';
import { ipEnrichmentOf } from '../intel/index.ts';
import { createListCheck, parseCheckZones } from '../listcheck/index.ts';
import { alertPassRate, createReportAlerts, createReports, type ReportAlerts } from '../reports/index.ts';
import { ping, type Store } from '../store/index.ts';
import type { DatasetStage } from './dataset.ts';
import type { Domains } from './domains.ts';
import { describeStart } from './start-eta.ts';

export function composeServices(inputs: {
  config: Config;
  clock: Clock;
  store: Store;
  domains: Domains;
  dataset: DatasetStage;
  log?: Logger;
  /** Header hop enrichment (tests pass a counting one; default: the serving dataset's). */
  enrichIp?: HttpServices['enrichIp'];
  /** The report alerts uploads check (one instance with the mailbox poller's: app.ts). */
  reportAlerts: ReportAlerts;
}): HttpServices {
  const { config, clock, store, domains, dataset } = inputs;
  const { intelRuntime, limits } = domains;
  const describeDataset = createDatasetStatusReader();
  const readiness = async (): Promise<ReadinessCheck[]> => {
    const checks: ReadinessCheck[] = [];
    try {
      await ping(store.db);
      // Migrated by the store stage before anything else was built.
      checks.push({ name: 'store', ok: true });
    } catch (err) {
      checks.push({ name: 'store', ok: false, detail: (err as Error).message });
    }
    // Redis away: still ready (limits are counted here meanwhile), the line says degraded.
    const limitsCheck = limits.readiness();
    if (limitsCheck) checks.push(limitsCheck);
    if (dataset.expected) checks.push(datasetCheck(intelRuntime, dataset));
    return checks;
  };
  return {
    config,
    clock,
    store,
    accounts: domains.accounts,
    limits,
    readiness,
    datasetVersion: () => intelRuntime.current()?.datasetVersion ?? null,
    // The serving snapshot's families and the update outcomes, with this instance's next attempt.
    datasetStatus: () => {
      const next = dataset.updater.nextDueAt();
      return describeDataset({
        dataDir: config.dataDir,
        version: intelRuntime.current()?.datasetVersion ?? null,
        now: clock(),
        schedule: config.datasetUpdate,
        ...(next === null ? {} : { nextAttemptAt: next }),
      });
    },
    blocklist: domains.blocklist,
    listingFor: domains.blocklistMirror.listingFor,
    dns: domains.dns,
    enrichIp: inputs.enrichIp ?? ipEnrichmentOf(() => intelRuntime.current()),
    intel: intelRuntime,
    telemetry: domains.telemetry,
    reputation: domains.reputation,
    warmup: domains.warmup,
    audit: createAuditJobs({
      store: createAuditStore(store),
      clock,
      datasets: createDatasetVersions(config.dataDir),
      // One probe per zone (the own zone plus NETREP_AUDIT_ZONES) and one FCrDNS check.
      probesPerAddress: () =>
        new Set([config.dnsblZone, ...config.auditZones].map((z) => z.toLowerCase())).size + 1,
    }),
    webhooks: domains.webhooks,
    scan: domains.scan,
    // Public DNSBLs through the same resolvers (NETREP_DNS_SERVERS), with their own timeout.
    listCheck: createListCheck({
      dns: createDnsClient({ servers: config.dnsServers, timeoutMs: config.dnsblCheckTimeoutMs }),
      clock,
      zones: parseCheckZones(config.dnsblCheckZones),
      cacheSeconds: config.dnsblCheckCacheSeconds,
      ownZone: config.dnsblZone,
      own: async (ip) => checkAnswer(ip, await domains.blocklist.check(ip)),
    }),
    reports: createReports({
      store,
      clock,
      maxDecodedBytes: config.reportsMaxDecodedBytes,
      alerts: inputs.reportAlerts,
    }),
  };
}

/**
 * Pass-rate and new-source events of aggregate reports to the owner's webhooks: one instance
 * (app.ts) for the uploads (here) and the mailbox poller (workers.ts), counted on /metrics.
 */
export function composeReportAlerts(inputs: {
  config: Config;
  clock: Clock;
  store: Store;
  domains: Pick<Domains, 'webhooks' | 'intelRuntime'>;
  log?: Logger;
}): ReportAlerts {
  const { config, domains } = inputs;
  return createReportAlerts({
    store: inputs.store,
    clock: inputs.clock,
    settings: {
      passRate: alertPassRate(config.reportsAlertPassRate),
      windowDays: config.reportsAlertWindowDays,
      maxSources: config.reportsAlertMaxSources,
    },
    emit: (events) => domains.webhooks.emit(events),
    networkOf: (raw) => {
      const ip = parseIp(raw);
      const a = ip && domains.intelRuntime.current()?.lookup(ip);
      return a ? { asn: a.asn, asn_name: a.asn_name, country: a.country } : null;
    },
    ...(inputs.log ? { logger: inputs.log } : {}),
  });
}

/** The dataset line of /readyz: the serving version, or what the start does and its ETA. */
function datasetCheck(runtime: Domains['intelRuntime'], dataset: DatasetStage): ReadinessCheck {
  const state = runtime.state();
  if (state === 'ready')
    return { name: 'dataset', ok: true, detail: `v${runtime.current()?.datasetVersion}` };
  const start = dataset.progress();
  return start
    ? { name: 'dataset', ok: false, detail: describeStart(start), start }
    : { name: 'dataset', ok: false, detail: state };
}
