/**
 * The composition root: the only file that sees every module. createApp(config) builds the app in
 * stages, each from what the stages before it made (src/app/), so no part can call one that does
 * not exist yet: 0 settings that must parse, 1 the logger, 2 the store (migrated) and Redis,
 * 3 the services (domains, the serving dataset and its updater, the services object), 4 the HTTP
 * app, 5 the background workers, 6 the listeners (the DNSBL server now, HTTP on listen()).
 */

import { startDatasetStage } from './app/dataset.ts';
import { buildDomains } from './app/domains.ts';
import { buildHttpStage } from './app/http.ts';
import { startListenersStage } from './app/listeners.ts';
import { createLoggerStage, type LoggerSetting } from './app/logger.ts';
import { composeReportAlerts, composeServices } from './app/services.ts';
import { readStartSettings } from './app/settings.ts';
import { openStoreStage } from './app/store.ts';
import { startWorkersStage } from './app/workers.ts';
import type { Config } from './config.ts';
import { type Clock, systemClock } from './core/clock.ts';
import type { BlocklistMirror, DnsblServer } from './dnsbl/index.ts';
import type { HttpApp, HttpServices, RouteModule } from './http/context.ts';
import type { IntelFacts } from './reputation/index.ts';
import type { Store } from './store/index.ts';
import type { AuditWorker } from './worker/audit.ts';
import type { ExpiryWorker } from './worker/blocklist-expiry.ts';
import type { DatasetUpdater, DatasetUpdaterOptions } from './worker/dataset-update.ts';
import type { FcrdnsWorker } from './worker/fcrdns.ts';
import type { FeedsWorker } from './worker/feeds.ts';
import type { ReportsImapWorker } from './worker/reports-imap.ts';
import type { ScanWorker } from './worker/scan.ts';
import type { WebhookWorker } from './worker/webhooks.ts';

export { connectRedis } from './app/store.ts';

export interface AppOptions {
  clock?: Clock;
  /** Off when absent (tests); `netrep serve` passes NETREP_LOG_LEVEL and its stream (app/logger.ts). */
  logger?: LoggerSetting;
  /** PostgreSQL schema (tests). */
  pgSchema?: string;
  /** Redis/limit key prefix (tests isolate instances with it). */
  limitPrefix?: string;
  /** Route modules beyond the API's own (tests' probe routes). */
  routes?: readonly RouteModule[];
  /** Run the background workers' timers (default NETREP_WORKERS). */
  workers?: boolean;
  /** Header hop enrichment (tests pass a counting one; the intel module supplies the real one). */
  enrichIp?: HttpServices['enrichIp'];
  /** Dataset facts for reputation (datacenter, geo changes); default: the serving dataset's. */
  intelFacts?: IntelFacts;
  /** How long an authenticated key is kept (default: 1 s on PostgreSQL, 60 s on SQLite). */
  authCacheMs?: number;
  /** false: the socket front reads 'data' events instead of its shared buffer (tests). */
  frontReadIntoBuffer?: boolean;
  /**
   * IP/ASN dataset: 'load' (default) serves the newest snapshot in NETREP_DATA_DIR when one exists,
   * loaded before createApp returns (the IP and ASN routes answer 503 NOT_READY until a built one
   * is reloaded); 'build' (netrep serve) reads it, or builds the first one from the npm packages in
   * a child process when none exists, once listen() has bound HTTP (/readyz is NOT_READY with what
   * it does and the ETA until it is loaded).
   */
  dataset?: 'load' | 'build';
  /** Scheduled dataset update knobs for tests (check period, fixture npm packages, build runner). */
  datasetUpdate?: Pick<DatasetUpdaterOptions, 'checkIntervalMs' | 'retryMs' | 'npmDir' | 'build'>;
}

export interface App {
  config: Config;
  store: Store;
  http: HttpApp;
  services: HttpServices;
  /** The DNSBL server (null when NETREP_DNSBL_LISTEN is empty); its bound ports for tests. */
  dnsbl: DnsblServer | null;
  /** Why the DNSBL server is off although NETREP_DNSBL_LISTEN is set (its port was taken). */
  readonly dnsblError: string | null;
  /** The in-memory copy of the active listings that DNS answers from. */
  blocklistMirror: BlocklistMirror;
  /** Records due expiries every second; `runOnce()` for tests that move the clock. */
  blocklistExpiry: ExpiryWorker;
  /** Claims and runs audit jobs (tests call runOnce). */
  auditWorker: AuditWorker;
  /** The daily FCrDNS check of recent senders (tests call runOnce). */
  fcrdns: FcrdnsWorker;
  /** Builds each feed's snapshot once per UTC day; `runOnce()` for tests that move the clock. */
  feedsWorker: FeedsWorker;
  /** NETREP_DATASET_UPDATE: swaps in newer snapshots; builds them where the workers run. */
  datasetUpdater: DatasetUpdater;
  /** Collects webhook events and sends due deliveries; `runOnce()` for tests. */
  webhookWorker: WebhookWorker;
  /** Runs queued service scans (NETREP_SCAN=on); `runOnce()` for tests. */
  scanWorker: ScanWorker;
  /** Polls NETREP_REPORTS_IMAP_URL; `runOnce()` for tests (null when it is unset). */
  reportsImap: ReportsImapWorker;
  /**
   * Starts listening on NETREP_LISTEN (and NETREP_METRICS_LISTEN when separate); returns the bound
   * address. In 'build' mode the first dataset is read or built from then on.
   */
  listen(): Promise<string>;
  /** Settles when the dataset a 'build' start reads or builds serves, or failed (at once in 'load' mode). */
  datasetStarted: Promise<void>;
  /** Starts only the separate metrics listener (NETREP_METRICS_LISTEN=host:port; `netrep worker`); its URL or null. */
  listenMetrics(): Promise<string | null>;
  /** `http://host:port` of the separate metrics listener once listening, else null. */
  readonly metricsUrl: string | null;
  /** Stops listening, the workers and the store, in order; `onStep` hears each part's name as it begins. */
  close(onStep?: (part: string) => void): Promise<void>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  const settings = readStartSettings(config);
  const logger = createLoggerStage(options.logger);
  const { log } = logger;
  const { store, redis } = await openStoreStage(config, options.pgSchema);
  const domains = await buildDomains({
    config,
    clock,
    log,
    store,
    redis,
    ...(options.limitPrefix !== undefined ? { limitPrefix: options.limitPrefix } : {}),
    ...(options.authCacheMs !== undefined ? { authCacheMs: options.authCacheMs } : {}),
    ...(options.intelFacts ? { intelFacts: options.intelFacts } : {}),
  });
  // NETREP_WORKERS=false: an API-only instance; a `netrep worker` process runs the loops.
  const scheduled = options.workers ?? config.workers;
  const dataset = startDatasetStage({
    config,
    settings,
    clock,
    log,
    runtime: domains.intelRuntime,
    mode: options.dataset ?? 'load',
    builder: scheduled,
    ...(options.datasetUpdate ? { update: options.datasetUpdate } : {}),
  });
  const reportAlerts = composeReportAlerts({ config, clock, store, domains, log });
  const services = composeServices({
    config,
    clock,
    store,
    domains,
    dataset,
    log,
    reportAlerts,
    ...(options.enrichIp ? { enrichIp: options.enrichIp } : {}),
  });
  const { http, metricsRegistry } = await buildHttpStage({
    services,
    logger,
    settings,
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.frontReadIntoBuffer === false ? { frontReadIntoBuffer: false } : {}),
  });
  const workers = startWorkersStage({
    config,
    clock,
    log,
    store,
    domains,
    dataset,
    metricsRegistry,
    reportAlerts,
    scheduled,
  });
  const listeners = await startListenersStage({
    config,
    settings,
    clock,
    log,
    http,
    metricsRegistry,
    blocklistMirror: domains.blocklistMirror,
  });
  const { dnsbl } = listeners;
  const { reputation, trapSet, blocklistMirror, accounts } = domains;
  return {
    config,
    store,
    http,
    services,
    dnsbl,
    get metricsUrl() {
      return listeners.metricsUrl();
    },
    dnsblError: listeners.dnsblError,
    blocklistMirror,
    ...workers,
    datasetUpdater: dataset.updater,
    async listen() {
      // Listening first: /readyz answers (503 with the ETA) while the dataset is read or built.
      const address = await listeners.listen();
      dataset.listening();
      return address;
    },
    datasetStarted: dataset.started,
    listenMetrics: () => listeners.listenMetrics(),
    async close(onStep) {
      // The reverse of the stages: listeners, HTTP, workers, services, store.
      const steps: [string, () => unknown][] = [
        ['dnsbl server', () => dnsbl?.close()],
        ['metrics listener', () => listeners.closeMetrics()],
        ['http server', () => http.close()],
        ['blocklist expiry worker', () => workers.blocklistExpiry.stop()],
        ['audit worker', () => workers.auditWorker.stop()],
        ['fcrdns worker', () => workers.fcrdns.stop()],
        ['feeds worker', () => workers.feedsWorker.stop()],
        ['dataset updater', () => dataset.stop()],
        ['webhook worker', () => workers.webhookWorker.stop()],
        ['scan worker', () => workers.scanWorker.stop()],
        ['scan queue writes', () => domains.scan.settled()],
        ['reports mailbox poller', () => workers.reportsImap.stop()],
        // The computations queued behind the last answers (after every source of them stopped).
        ['reputation', () => reputation.close()],
        ['trap set', () => trapSet.close()],
        ['blocklist mirror', () => blocklistMirror.close()],
        ['accounts', () => accounts.close()],
        ['redis', () => redis?.disconnect()],
        ['store', () => store.close()],
      ];
      for (const [part, stop] of steps) {
        onStep?.(part);
        await stop();
      }
    },
  };
}
