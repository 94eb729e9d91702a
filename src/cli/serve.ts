/** `netrep serve` (HTTP, DNSBL and workers in one process) and `netrep migrate`. */
import type { Command } from 'commander';
import { createApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import type { DatasetStatus } from '../dataset/index.ts';
import type { DatasetStart } from '../http/readiness.ts';
import { migrate, openStore } from '../store/index.ts';
import { formatAge, formatUpdateLine } from './dataset-status.ts';
import { type BannerFact, loggerOptions, printBanner } from './log-output.ts';

type App = Awaited<ReturnType<typeof createApp>>;

type BannerApp = Pick<App, 'store' | 'metricsUrl' | 'dnsbl' | 'dnsblError'> & {
  services: {
    datasetVersion(): number | null;
    datasetStatus(): DatasetStatus;
    intel: { failure(): string | null };
  };
};
type BannerConfig = Pick<Config, 'datasetUpdate' | 'workers' | 'dnsblZone' | 'adminPassword'>;

/**
 * What `serve` says once it listens: where the API, docs and dashboard are, and what runs. The
 * dataset is read or built from then on: `start` says what and when; its facts come once loaded.
 */
export function serveBanner(
  app: BannerApp,
  config: BannerConfig,
  address: string,
  admin: { email: string; password: string } | null,
  start: { progress: DatasetStart | null; text: string | null },
): BannerFact[] {
  const facts: BannerFact[] = [
    {
      text: `netrep ${app.store.dialect} store: ${app.store.location}`,
      fields: { store: app.store.dialect, location: app.store.location },
    },
    {
      text: `netrep listening on ${address} (dashboard: ${address}/dashboard, docs: ${address}/docs)`,
      fields: { url: address, dashboard: `${address}/dashboard`, docs: `${address}/docs` },
    },
  ];
  if (app.metricsUrl)
    facts.push({
      text: `netrep metrics on ${app.metricsUrl}/metrics`,
      fields: { metrics: `${app.metricsUrl}/metrics` },
    });
  if (start.progress) {
    const updating = config.datasetUpdate !== 'off' && config.workers;
    // Built from the npm packages only, the first snapshot has none of the upstream lists.
    const npmOnly =
      start.progress.activity === 'building'
        ? `; it will hold no upstream source, so the flags from upstream lists (Tor, VPN, proxies, cloud, crawlers, DROP) are false ${updating ? 'until the first dataset update, which runs once it is loaded' : 'until `netrep dataset update` or `dataset build --from DIR` brings them'}`
        : '';
    facts.push({
      text: `netrep dataset: ${start.text}; /readyz answers 503 NOT_READY with the ETA until it is loaded${npmOnly}`,
      fields: { dataset_start: start.progress },
    });
  } else facts.push(...datasetFacts(app, config));
  if (app.dnsbl)
    facts.push({
      text: `netrep DNSBL ${config.dnsblZone} on ${app.dnsbl.address}:${app.dnsbl.udpPort} (UDP and TCP)`,
      fields: { dnsbl_zone: config.dnsblZone, dnsbl: `${app.dnsbl.address}:${app.dnsbl.udpPort}` },
    });
  if (app.dnsblError)
    facts.push({
      text: `netrep DNSBL ${config.dnsblZone}: ${app.dnsblError}`,
      fields: { dnsbl_zone: config.dnsblZone, dnsbl_error: app.dnsblError },
    });
  if (admin) {
    facts.push({ text: `\nCreated the administrator ${admin.email}.`, fields: { admin: admin.email } });
    if (!config.adminPassword)
      facts.push({
        text: `One-time password (shown only now): ${admin.password}`,
        fields: { admin: admin.email, one_time_password: admin.password },
      });
    facts.push({
      text: 'Create an API key:  npx netrep keys create --name first-key --tier free --permissions ip:read,asn:read\n',
      fields: {},
    });
  }
  return facts;
}

/** The serving dataset (what it holds, its age), its updates and failed downloads. */
function datasetFacts(app: BannerApp, config: BannerConfig): BannerFact[] {
  const version = app.services.datasetVersion();
  const status = app.services.datasetStatus();
  const facts =
    version === null ? [noDatasetFact(app.services.intel.failure())] : servingFacts(version, status, config);
  if (config.datasetUpdate !== 'off') facts.push(updateFact(status, config));
  const failing = status.sources.filter((s) => s.ok === false);
  if (failing.length > 0)
    facts.push({
      text: `netrep dataset: the last download failed for ${failing.map((s) => `${s.id} (${s.error})`).join(', ')}`,
      fields: { failed_sources: failing.map((s) => s.id) },
    });
  return facts;
}

/** No snapshot serves: why, and how to bring one. */
function noDatasetFact(failure: string | null): BannerFact {
  return {
    text: `netrep dataset: none is serving${failure ? ` (${failure})` : ''}; the IP and ASN routes answer 503 NOT_READY until \`netrep dataset build\` and POST /v1/admin/datasets/reload bring one`,
    fields: { dataset_version: null, dataset_error: failure },
  };
}

/** Which source families the serving snapshot holds and their age; a snapshot from npm only says so. */
function servingFacts(version: number, status: DatasetStatus, config: BannerConfig): BannerFact[] {
  const updating = config.datasetUpdate !== 'off';
  const families = status.families.map((f) => `${f.family} ${formatAge(f.age_seconds)}`).join(', ');
  return [
    {
      text: `netrep dataset ${status.summary}${status.upstream ? '' : updating && config.workers ? '; the first dataset update runs now' : '; run `netrep dataset update` or `dataset build --from DIR`'}`,
      fields: { dataset_version: version, upstream: status.upstream },
    },
    {
      text: `netrep dataset families (age): ${families}`,
      fields: { families: Object.fromEntries(status.families.map((f) => [f.family, f.age_seconds])) },
    },
  ];
}

/** The update schedule, where updates are built, and how the last attempt went. */
function updateFact(status: DatasetStatus, config: BannerConfig): BannerFact {
  return {
    text: `netrep dataset update: ${config.datasetUpdate}, ${config.workers ? 'built here' : 'swapped in when a worker builds it'}${status.update.last_attempt_at ? `; ${formatUpdateLine(status.update).replace(/^update: [^;]*; /, '')}` : ''}`,
    fields: {
      dataset_update: config.datasetUpdate,
      builds_here: config.workers,
      last_result: status.update.last_result,
      failed_sources: status.sources.filter((s) => s.ok === false).map((s) => s.id),
    },
  };
}

/** How long a shutdown may take before the process exits anyway, naming the part that hung. */
const SHUTDOWN_DEADLINE_MS = 15_000;

/**
 * Closes the app; when a part does not finish within the deadline, logs which one and exits 1
 * (a supervisor that sent SIGTERM expects the process to go).
 */
async function closeWithin(app: App, log: { error(obj: object, msg: string): void }): Promise<void> {
  let part = 'start';
  const timer = setTimeout(() => {
    log.error({ part, deadline_ms: SHUTDOWN_DEADLINE_MS }, `shutdown did not finish: ${part} still closing`);
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  timer.unref();
  await app.close((p) => {
    part = p;
  });
  clearTimeout(timer);
}

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (and the DNSBL zone and background workers) in one process')
    .action(async () => {
      const config = loadConfig();
      const pretty = process.stdout.isTTY === true;
      // A fresh data dir gets its first dataset snapshot built from the npm packages meanwhile.
      const app = await createApp(config, {
        logger: loggerOptions(config.logLevel, pretty),
        dataset: 'build',
      });
      const admin = await app.services.accounts.ensureAdmin(
        config.adminEmail || 'admin@localhost',
        config.adminPassword || undefined,
      );
      const address = await app.listen();
      // The dataset is read or built from now on: the banner says what and when, then its facts.
      const start = (await app.services.readiness()).find((c) => c.start);
      printBanner(
        serveBanner(app, config, address, admin, {
          progress: start?.start ?? null,
          text: start?.detail ?? null,
        }),
        { pretty, log: app.http.log },
      );
      if (start)
        void app.datasetStarted.then(() =>
          printBanner(datasetFacts(app, config), { pretty, log: app.http.log }),
        );
      let closing = false;
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        app.http.log.info({ signal }, 'shutting down');
        await closeWithin(app, app.http.log);
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
    });

  program
    .command('worker')
    .description(
      'run only the background workers (blocklist expiry, daily feeds, FCrDNS, audit jobs, webhook deliveries, service scans, the report mailbox, dataset updates) on the shared store',
    )
    .action(async () => {
      // No HTTP listener and no DNSBL server: API instances serve, this process works.
      const config = loadConfig({ dnsblListen: '' });
      const pretty = process.stdout.isTTY === true;
      const app = await createApp(config, { logger: loggerOptions(config.logLevel, pretty), workers: true });
      // Its own /metrics when NETREP_METRICS_LISTEN names an address: the worker's dataset
      // updates, webhook deliveries and audit jobs are counted here, not on the API instances.
      const metrics = await app.listenMetrics();
      const text = `netrep worker running on the ${app.store.dialect} store ${app.store.location}${metrics ? `; metrics on ${metrics}/metrics` : ''}`;
      const fields = {
        store: app.store.dialect,
        location: app.store.location,
        ...(metrics ? { metrics: `${metrics}/metrics` } : {}),
      };
      printBanner([{ text, fields }], {
        pretty,
        log: app.http.log,
      });
      const shutdown = async () => {
        await closeWithin(app, app.http.log);
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown());
      process.on('SIGTERM', () => void shutdown());
      // Keep the process alive: the workers' timers do not hold the event loop on their own.
      setInterval(() => undefined, 1 << 30);
    });

  program
    .command('migrate')
    .description('apply pending store migrations and exit (serve also does this on start)')
    .action(async () => {
      const config = loadConfig();
      const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        const applied = await migrate(store.db, store.dialect);
        process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'store is up to date\n');
      } finally {
        await store.close();
      }
    });
}
