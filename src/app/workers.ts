/**
 * Stage 5 of createApp: the background loops (blocklist expiry, FCrDNS, audit jobs, feeds,
 * webhook deliveries, the service scan queue, the reports mailbox), each over the domains it calls and the logger of stage 1, and the metrics
 * of the loops, the dataset and the limits on the registry of the HTTP stage. With
 * NETREP_WORKERS=false (an API-only instance) they are built without timers; a `netrep worker`
 * process runs them.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createAuditRunner, createAuditStore } from '../audit/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { registerLimitsMetrics } from '../limits/index.ts';
import type { ReportAlerts } from '../reports/index.ts';
import type { Store } from '../store/index.ts';
import { type AuditWorker, startAuditWorker } from '../worker/audit.ts';
import { type ExpiryWorker, startExpiryWorker } from '../worker/blocklist-expiry.ts';
import { registerDatasetMetrics } from '../worker/dataset-metrics.ts';
import { type FcrdnsWorker, startFcrdnsWorker } from '../worker/fcrdns.ts';
import { createFeedSources, type FeedsWorker, startFeedsWorker } from '../worker/feeds.ts';
import { createChildFeedsRunner } from '../worker/feeds-build-process.ts';
import { registerFeedsMetrics } from '../worker/feeds-metrics.ts';
import { registerJobsMetrics } from '../worker/jobs-metrics.ts';
import {
  createReportsPoller,
  type ReportsImapWorker,
  registerReportsImapMetrics,
  startReportsImapWorker,
} from '../worker/reports-imap.ts';
import { type ScanWorker, startScanWorker } from '../worker/scan.ts';
import { registerScanMetrics } from '../worker/scan-metrics.ts';
import { startWebhookWorker, type WebhookWorker } from '../worker/webhooks.ts';
import type { DatasetStage } from './dataset.ts';
import type { Domains } from './domains.ts';

export interface WorkersStage {
  blocklistExpiry: ExpiryWorker;
  fcrdns: FcrdnsWorker;
  auditWorker: AuditWorker;
  feedsWorker: FeedsWorker;
  webhookWorker: WebhookWorker;
  scanWorker: ScanWorker;
  reportsImap: ReportsImapWorker;
}

export function startWorkersStage(inputs: {
  config: Config;
  clock: Clock;
  log: Logger;
  store: Store;
  domains: Domains;
  dataset: DatasetStage;
  metricsRegistry: Registry;
  /** Run the loops' timers here. */
  scheduled: boolean;
  /** The report alerts the mailbox poller's reports are checked by (the uploads' too). */
  reportAlerts: ReportAlerts;
}): WorkersStage {
  const { config, clock, log, store, domains, scheduled } = inputs;
  const blocklistExpiry = startExpiryWorker({ blocklist: domains.blocklist, logger: log, scheduled });
  const fcrdns = startFcrdnsWorker({
    scheduled,
    telemetry: domains.telemetry,
    reputation: domains.reputation,
    dns: domains.dns,
    clock,
    logger: log,
  });
  let auditLeaseTakeovers = 0;
  const auditWorker = startAuditWorker({
    runner: (stopping) =>
      createAuditRunner({
        store: createAuditStore(store),
        dns: createDnsClient({ servers: config.dnsServers, timeoutMs: config.auditDnsTimeoutMs }),
        clock,
        ownZone: config.dnsblZone,
        extraZones: config.auditZones,
        concurrency: Math.max(1, config.auditConcurrency),
        leaseMs: Math.max(1, config.auditLeaseSeconds) * 1000,
        worker: `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`,
        recordFcrdns: (record) => domains.reputation.recordFcrdns(record),
        onTakeover: () => {
          auditLeaseTakeovers++;
        },
        stopping,
      }),
    scheduled,
    logger: log,
  });
  const feedsWorker = startFeedsWorker({
    scheduled,
    dataDir: config.dataDir,
    clock,
    sources: createFeedSources({ dataDir: config.dataDir, store }),
    logger: log,
    // The dataset feeds are built in a child process: the build's garbage is not kept here.
    datasetFeedsRunner: createChildFeedsRunner(),
  });
  const webhookWorker = startWebhookWorker({
    webhooks: domains.webhooks,
    collect: () => domains.eventSources.collect(),
    clock,
    scheduled,
    logger: log,
  });
  // Scheduled only with NETREP_SCAN on: the queue is empty otherwise.
  const scanWorker = startScanWorker({ scan: domains.scan, scheduled, logger: log });
  registerScanMetrics(inputs.metricsRegistry, () => domains.scan.counts());
  // NETREP_REPORTS_IMAP_URL: the reports mailbox (none when unset).
  const poller = createReportsPoller({
    config,
    store,
    clock,
    accounts: domains.accounts,
    logger: log,
    alerts: inputs.reportAlerts,
  });
  const reportsImap = startReportsImapWorker({
    poller,
    intervalMs: Math.max(1, config.reportsImapIntervalSeconds) * 1000,
    scheduled,
    logger: log,
  });
  registerReportsImapMetrics(
    inputs.metricsRegistry,
    () => poller?.counts() ?? null,
    () => inputs.reportAlerts.counts(),
  );
  registerDatasetMetrics(inputs.metricsRegistry, {
    dataDir: config.dataDir,
    clock,
    runtime: domains.intelRuntime,
    updater: inputs.dataset.updater,
  });
  registerFeedsMetrics(inputs.metricsRegistry, feedsWorker);
  registerLimitsMetrics(inputs.metricsRegistry, domains.limits.outage);
  registerJobsMetrics(inputs.metricsRegistry, {
    webhookDeadLetters: () => domains.webhooks.deadLetters(),
    auditLeaseTakeovers: () => auditLeaseTakeovers,
  });
  return { blocklistExpiry, fcrdns, auditWorker, feedsWorker, webhookWorker, scanWorker, reportsImap };
}
