/** `netrep serve` (HTTP, DNSBL and workers in one process) and `netrep migrate`. */
import type { Command } from 'commander';
import { createApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { migrate, openStore } from '../store/index.ts';

export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (and the DNSBL zone and background workers) in one process')
    .action(async () => {
      const config = loadConfig();
      // A fresh data dir gets its first dataset snapshot built from the npm packages meanwhile.
      const app = await createApp(config, { logger: { level: config.logLevel }, dataset: 'build' });
      const admin = await app.services.accounts.ensureAdmin(
        config.adminEmail || 'admin@localhost',
        config.adminPassword || undefined,
      );
      const address = await app.listen();
      const out = process.stdout;
      out.write(`netrep ${app.store.dialect} store: ${app.store.location}\n`);
      out.write(`netrep listening on ${address} (docs: ${address}/docs)\n`);
      if (app.metricsUrl) out.write(`netrep metrics on ${app.metricsUrl}/metrics\n`);
      const version = app.services.datasetVersion();
      out.write(
        version === null
          ? 'netrep dataset: building the first snapshot from the npm data packages (/readyz is ready when done)\n'
          : `netrep dataset v${version}\n`,
      );
      if (config.datasetUpdate !== 'off')
        out.write(
          `netrep dataset update: ${config.datasetUpdate}, ${config.workers ? 'built here' : 'swapped in when a worker builds it'}\n`,
        );
      if (app.dnsbl)
        out.write(
          `netrep DNSBL ${config.dnsblZone} on ${app.dnsbl.address}:${app.dnsbl.udpPort} (UDP and TCP)\n`,
        );
      if (app.dnsblError) process.stderr.write(`netrep DNSBL ${config.dnsblZone}: ${app.dnsblError}\n`);
      if (admin) {
        out.write(`\nCreated the administrator ${admin.email}.\n`);
        if (!config.adminPassword) out.write(`One-time password (shown only now): ${admin.password}\n`);
        out.write(
          'Create an API key:  npx netrep keys create --name first-key --tier free --permissions ip:read,asn:read\n\n',
        );
      }
      let closing = false;
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        app.http.log.info({ signal }, 'shutting down');
        await app.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
    });

  program
    .command('worker')
    .description(
      'run only the background workers (blocklist expiry, daily feeds, FCrDNS, audit jobs) on the shared store',
    )
    .action(async () => {
      // No HTTP listener and no DNSBL server: API instances serve, this process works.
      const config = loadConfig({ dnsblListen: '' });
      const app = await createApp(config, { logger: { level: config.logLevel }, workers: true });
      process.stdout.write(`netrep worker running on the ${app.store.dialect} store ${app.store.location}\n`);
      const shutdown = async () => {
        await app.close();
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
