/**
 * The composition root: the only file that sees every module. createApp(config) opens the
 * store, applies migrations, connects Redis, builds the domain services and the HTTP app.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { Redis } from 'ioredis';
import { createAccounts, parseQuotaOverrides } from './accounts/index.ts';
import {
  createAuditJobs,
  createAuditRunner,
  createAuditStore,
  createDatasetVersions,
} from './audit/index.ts';
import { createBlocklist } from './blocklist/index.ts';
import type { Config } from './config.ts';
import { type Clock, systemClock } from './core/clock.ts';
import { createDnsClient } from './core/dns/index.ts';
import { parseIp } from './core/ip.ts';
import { parseHostPort } from './core/listen.ts';
import { createDatasetStatusReader } from './dataset/index.ts';
import {
  type BlocklistMirror,
  type DnsblServer,
  startBlocklistMirror,
  startDnsblServer,
} from './dnsbl/index.ts';
import type { HttpApp, HttpServices, ReadinessCheck, RouteModule } from './http/context.ts';
import { type MetricsListener, metricsPlacement, startMetricsListener } from './http/metrics-listener.ts';
import { createMetricsRegistry } from './http/plugins/metrics.ts';
import { buildHttp } from './http/server.ts';
import {
  createIntelRuntime,
  createTrapSet,
  intelFactsOf,
  ipEnrichmentOf,
  withDeadline,
} from './intel/index.ts';
import { createLimits, registerLimitsMetrics } from './limits/index.ts';
import { createReputation, type IntelFacts, listingFactsOf } from './reputation/index.ts';
import { migrate, openStore, ping, type Store, sqliteDataVersion } from './store/index.ts';
import { createTelemetry } from './telemetry/index.ts';
import { createWarmup } from './warmup/index.ts';
import { createChangeLog, createEventSources, createWebhooks, hostResolverOf } from './webhooks/index.ts';
import { type AuditWorker, startAuditWorker } from './worker/audit.ts';
import { type ExpiryWorker, startExpiryWorker } from './worker/blocklist-expiry.ts';
import { registerDatasetMetrics } from './worker/dataset-metrics.ts';
import {
  type DatasetUpdater,
  type DatasetUpdaterOptions,
  parseRetryDelay,
  parseUpdateInterval,
  startDatasetUpdater,
} from './worker/dataset-update.ts';
import { type FcrdnsWorker, startFcrdnsWorker } from './worker/fcrdns.ts';
import { createFeedSources, type FeedsWorker, startFeedsWorker } from './worker/feeds.ts';
import { createChildFeedsRunner } from './worker/feeds-build-process.ts';
import { registerFeedsMetrics } from './worker/feeds-metrics.ts';
import { startWebhookWorker, type WebhookWorker } from './worker/webhooks.ts';

export interface AppOptions {
  clock?: Clock;
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
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
   * IP/ASN dataset: 'load' (default) serves the newest snapshot in NETREP_DATA_DIR when one exists
   * (the IP and ASN routes answer 503 NOT_READY until a built one is reloaded); 'build' (netrep
   * serve) also builds the first one from the npm packages in the background when none exists
   * (/readyz is NOT_READY until it is loaded).
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
  /** Starts listening on NETREP_LISTEN (and NETREP_METRICS_LISTEN when separate); returns the bound address. */
  listen(): Promise<string>;
  /** `http://host:port` of the separate metrics listener once listening, else null. */
  readonly metricsUrl: string | null;
  /** Stops listening, the workers and the store, in order; `onStep` hears each part's name as it begins. */
  close(onStep?: (part: string) => void): Promise<void>;
}

export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
    // A command that gets no answer (a cut that drops packets) fails, and limits count locally.
    commandTimeout: 1000,
    lazyConnect: true,
  });
  redis.on('error', () => undefined);
  await redis.connect();
  return redis;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  // Listen settings that cannot work fail before anything is opened.
  const mainAddress = parseHostPort(config.listen, {
    defaultHost: '127.0.0.1',
    defaultPort: 8080,
    what: 'NETREP_LISTEN',
  });
  const metricsAt = metricsPlacement(config.metricsListen);
  const datasetUpdateMs = parseUpdateInterval(config.datasetUpdate);
  const datasetRetryMs = parseRetryDelay(config.datasetUpdateRetry);
  const describeDataset = createDatasetStatusReader();
  const store = openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
  });
  let migrated = false;
  await migrate(store.db, store.dialect);
  migrated = true;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;

  const accounts = createAccounts({
    store,
    clock,
    // SQLite: cache until another process writes the file (data_version moves, read at most every
    // 5 ms), so a key revoked with the CLI fails within 5 ms; PostgreSQL: one second across instances.
    authCacheMs: options.authCacheMs ?? (store.dialect === 'postgres' ? 1000 : 60_000),
    ...(store.sqlite ? { changeToken: sqliteDataVersion(store.sqlite, 5) } : {}),
    quotaOverrides: parseQuotaOverrides(config.quotaOverrides),
  });
  const limits = createLimits({
    store,
    redis,
    clock,
    prefix: options.limitPrefix ?? config.redisPrefix,
    minInstances: config.limitsInstances,
  });

  const blocklist = createBlocklist({ store, clock });
  // Reputation reads listings through this narrow interface (spec §2.5 listing signals).
  const listingFacts = listingFactsOf(blocklist);
  const telemetry = createTelemetry({ store, clock });
  const blocklistMirror = await startBlocklistMirror({
    blocklist,
    clock,
    // The HTTP logger exists by the time the mirror's timer first reports.
    logger: { warn: (obj, msg) => http.log.warn(obj, msg), error: (obj, msg) => http.log.error(obj, msg) },
  });
  // Threat score signal: production pristine-trap hits of the last 30 days, held in memory. The
  // set is read from reputation evidence, and reputation reads the dataset the threat score uses:
  // the set's reads (refresh, its timer) begin after reputation is built below.
  const trapSet = createTrapSet({ read: (since) => reputation.recentPristineTrapIps(since), clock });

  const readiness = async (): Promise<ReadinessCheck[]> => {
    const checks: ReadinessCheck[] = [];
    try {
      await ping(store.db);
      checks.push({ name: 'store', ok: migrated });
    } catch (err) {
      checks.push({ name: 'store', ok: false, detail: (err as Error).message });
    }
    // Redis away: still ready (limits are counted here meanwhile), the line says degraded.
    const limitsCheck = limits.readiness();
    if (limitsCheck) checks.push(limitsCheck);
    if (datasetExpected) {
      const state = intelRuntime.state();
      checks.push({
        name: 'dataset',
        ok: state === 'ready',
        detail: state === 'ready' ? `v${intelRuntime.current()?.datasetVersion}` : state,
      });
    }
    return checks;
  };

  const dns = createDnsClient({ servers: config.dnsServers });
  // The serving IP/ASN dataset. It loads a snapshot once the HTTP app (and so its logger) exists,
  // below; until one is loaded the IP and ASN routes answer 503 NOT_READY.
  const intelRuntime = createIntelRuntime({
    dataDir: config.dataDir,
    clock,
    signals: { listingFor: blocklistMirror.listingFor, pristineTrapHitRecent: trapSet.has },
    reverseDns: withDeadline((ip) => dns.ptr(ip), 1000),
    log: (msg) => http.log.info(msg),
  });
  const reputation = createReputation({
    store,
    clock,
    telemetry,
    listings: listingFacts,
    intel: options.intelFacts ?? intelFactsOf(() => intelRuntime.current()),
    onPristineTrapsRecorded: (hits) => trapSet.add(hits),
    onWriteError: (err) =>
      http.log.error({ err }, 'reputation: computations not written yet (kept, tried again)'),
  });
  const warmup = createWarmup({
    store,
    clock,
    reputation,
    // Graduations reach the classifying key owner's webhooks as `email_pool` events (spec §6).
    onGraduation: (events) => {
      eventSources
        .emitGraduations(events)
        .catch((err: unknown) => http.log.warn({ err }, 'graduation events'));
    },
  });
  // A saved IP's compared answer: its baseline when saved, then diffed per dataset version.
  const savedIpLookup = (ip: string) => {
    const parsed = parseIp(ip);
    const answer = parsed ? intelRuntime.current()?.lookup(parsed) : null;
    return answer ? { threat_level: answer.threat.level, flags: answer.netrep } : null;
  };
  const webhooks = createWebhooks({
    store,
    clock,
    // The SSRF guard resolves through the service's one DNS client (NETREP_DNS_SERVERS).
    resolveHost: hostResolverOf(dns),
    allowPrivate: config.webhookAllowPrivate,
    retry: { baseMs: config.webhookRetryBaseMs, maxAttempts: config.webhookMaxAttempts },
    random: Math.random,
    lookup: savedIpLookup,
    datasetVersion: () => intelRuntime.current()?.datasetVersion ?? null,
  });
  const eventSources = createEventSources({
    webhooks,
    changeLog: createChangeLog(store.db),
    lookup: savedIpLookup,
    datasetVersion: () => intelRuntime.current()?.datasetVersion ?? null,
    clock,
  });
  void trapSet.refresh();
  const services: HttpServices = {
    config,
    clock,
    store,
    accounts,
    limits,
    readiness,
    datasetVersion: () => intelRuntime.current()?.datasetVersion ?? null,
    // The serving snapshot's families and the update outcomes, with this instance's next attempt.
    datasetStatus: () => {
      const next = datasetUpdater.nextDueAt();
      return describeDataset({
        dataDir: config.dataDir,
        version: intelRuntime.current()?.datasetVersion ?? null,
        now: clock(),
        schedule: config.datasetUpdate,
        ...(next === null ? {} : { nextAttemptAt: next }),
      });
    },
    blocklist,
    listingFor: blocklistMirror.listingFor,
    dns,
    enrichIp: options.enrichIp ?? ipEnrichmentOf(() => intelRuntime.current()),
    intel: intelRuntime,
    telemetry,
    reputation,
    warmup,
    audit: createAuditJobs({
      store: createAuditStore(store),
      clock,
      datasets: createDatasetVersions(config.dataDir),
      // One probe per zone (the own zone plus NETREP_AUDIT_ZONES) and one FCrDNS check.
      probesPerAddress: () =>
        new Set([config.dnsblZone, ...config.auditZones].map((z) => z.toLowerCase())).size + 1,
    }),
    webhooks,
  };
  const metricsRegistry = createMetricsRegistry();
  const http = await buildHttp({
    services,
    metricsRegistry,
    logger: options.logger === undefined ? false : options.logger,
    metricsRoute: metricsAt.kind === 'main',
    ...(options.routes ? { extraRoutes: options.routes } : {}),
    ...(options.frontReadIntoBuffer === false ? { frontReadIntoBuffer: false } : {}),
  });
  // 'load': the newest snapshot in NETREP_DATA_DIR when there is one (else a later reload brings
  // one); 'build': when there is none, the first is built from the npm packages in the background
  // and /readyz waits for it.
  const datasetMode = options.dataset ?? 'load';
  const datasetLoaded = intelRuntime.loadLatest();
  const datasetExpected = datasetLoaded || datasetMode === 'build';
  if (!datasetLoaded && datasetMode === 'build') intelRuntime.ensure().catch(() => undefined);
  // NETREP_WORKERS=false: an API-only instance; a `netrep worker` process runs the loops.
  const scheduled = options.workers ?? config.workers;
  const blocklistExpiry = startExpiryWorker({ blocklist, logger: http.log, scheduled });
  const fcrdns = startFcrdnsWorker({
    scheduled,
    telemetry,
    reputation,
    dns: services.dns,
    clock,
    logger: http.log,
  });
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
        recordFcrdns: (record) => reputation.recordFcrdns(record),
        stopping,
      }),
    scheduled,
    logger: http.log,
  });
  const feedsSources = createFeedSources({ dataDir: config.dataDir, store });
  const feedsWorker = startFeedsWorker({
    scheduled,
    dataDir: config.dataDir,
    clock,
    sources: feedsSources,
    logger: http.log,
    // The dataset feeds are built in a child process: the build's garbage is not kept here.
    datasetFeedsRunner: createChildFeedsRunner(),
  });
  // Every instance swaps in newer snapshots; only one that runs the workers downloads and builds.
  const datasetUpdater = startDatasetUpdater({
    dataDir: config.dataDir,
    clock,
    intervalMs: datasetUpdateMs,
    sourcesFile: config.datasetSources,
    builder: scheduled,
    runtime: intelRuntime,
    retryMs: datasetRetryMs,
    logger: http.log,
    ...options.datasetUpdate,
  });
  const webhookWorker = startWebhookWorker({
    webhooks,
    collect: () => eventSources.collect(),
    clock,
    scheduled,
    logger: http.log,
  });
  registerDatasetMetrics(metricsRegistry, {
    dataDir: config.dataDir,
    clock,
    runtime: intelRuntime,
    updater: datasetUpdater,
  });
  registerFeedsMetrics(metricsRegistry, feedsWorker);
  registerLimitsMetrics(metricsRegistry, limits.outage);
  // TXT answers point at the lookup route; without NETREP_PUBLIC_URL, at the bound HTTP address.
  let publicBase = (config.publicUrl || `http://${config.listen}`).replace(/\/+$/, '');
  // A taken DNSBL port (an mDNS responder on 5353, a second instance) must not take the HTTP API
  // down with it: the DNS server stays off, loudly, and `dnsblError` says why.
  let dnsblError: string | null = null;
  const startDnsbl = async () => {
    try {
      return await startDnsblServer({
        zone: config.dnsblZone,
        listen: config.dnsblListen,
        index: blocklistMirror.index,
        lookupUrl: (ip) => `${publicBase}/v1/public/blocklist/ip/${ip}`,
        logger: http.log,
        clock,
        tcp: {
          idleTimeoutMs: config.dnsblTcpIdleTimeoutMs,
          frameTimeoutMs: config.dnsblTcpFrameTimeoutMs,
          maxConnectionsPerClient: config.dnsblTcpMaxConnectionsPerClient,
        },
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
      dnsblError = `cannot listen on ${config.dnsblListen} (${code}); the DNSBL server is off: set NETREP_DNSBL_LISTEN to a free address, or empty to silence this`;
      http.log.error({ err }, `dnsbl: ${dnsblError}`);
      return null;
    }
  };
  const dnsbl = config.dnsblListen ? await startDnsbl() : null;
  let metricsListener: MetricsListener | null = null;

  return {
    config,
    store,
    http,
    services,
    dnsbl,
    get metricsUrl() {
      return metricsListener?.url ?? null;
    },
    get dnsblError() {
      return dnsblError;
    },
    blocklistMirror,
    blocklistExpiry,
    auditWorker,
    fcrdns,
    feedsWorker,
    datasetUpdater,
    webhookWorker,
    async listen() {
      const address = await http.listen(mainAddress);
      if (metricsAt.kind === 'separate' && !metricsListener) {
        metricsListener = await startMetricsListener(metricsAt.address, metricsRegistry);
      }
      if (!config.publicUrl) publicBase = address;
      return address;
    },
    async close(onStep) {
      const steps: [string, () => unknown][] = [
        ['dnsbl server', () => dnsbl?.close()],
        ['metrics listener', () => metricsListener?.close()],
        ['http server', () => http.close()],
        ['blocklist expiry worker', () => blocklistExpiry.stop()],
        ['audit worker', () => auditWorker.stop()],
        ['fcrdns worker', () => fcrdns.stop()],
        ['feeds worker', () => feedsWorker.stop()],
        ['dataset updater', () => datasetUpdater.stop()],
        ['webhook worker', () => webhookWorker.stop()],
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
