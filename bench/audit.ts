/**
 * Audit benchmark: one 10,000-sample job (10.0.0.0/16, seed fixed) run by the audit worker
 * against the netrep DNSBL server on 127.0.0.1 (own zone, 1,000 of the addresses listed), with
 * one DNSBL probe and one FCrDNS check per address, observations written to SQLite. The
 * reference, measured in the same run, is the bare DNS client asking the same 10,000 names at
 * the same concurrency with no store: the line prints probes per second and their ratio to it.
 *
 *   node --import tsx bench/audit.ts     (AUDIT_BENCH_SAMPLES=10000, AUDIT_BENCH_CONCURRENCY=16)
 */
import { performance } from 'node:perf_hooks';
import {
  createAuditJobs,
  createAuditRunner,
  createAuditStore,
  type DatasetVersions,
  dnsblQueryName,
} from '../src/audit/index.ts';
import { systemClock } from '../src/core/clock.ts';
import { createDnsClient } from '../src/core/dns/index.ts';
import { intToIpv4 } from '../src/core/ip.ts';
import { createListingIndex, startDnsblServer } from '../src/dnsbl/index.ts';
import { migrate, openStore } from '../src/store/index.ts';
import { tempDir } from '../test/helpers/dnsbl-tools.ts';

const ZONE = 'bl.netrep.test';
const SAMPLES = Number(process.env.AUDIT_BENCH_SAMPLES ?? 10_000);
const CONCURRENCY = Number(process.env.AUDIT_BENCH_CONCURRENCY ?? 16);
const BASE = 0x0a000000; // 10.0.0.0

const listings = Array.from({ length: 1000 }, (_, i) => ({
  ip: intToIpv4(BASE + i * 61),
  returnCode: '127.0.0.2',
  reason: 'bench listing',
}));
const server = await startDnsblServer({
  zone: ZONE,
  listen: '127.0.0.1:0',
  index: createListingIndex(listings),
  lookupUrl: (ip) => `http://127.0.0.1:8080/v1/public/blocklist/ip/${ip}`,
});
const servers = [`127.0.0.1:${server.udpPort}`];
const dns = createDnsClient({ servers, timeoutMs: 2000 });

const dir = tempDir('netrep-bench-audit-');
const store = openStore({ databaseUrl: '', dataDir: dir.dir });
await migrate(store.db, store.dialect);
const auditStore = createAuditStore(store);
const datasets: DatasetVersions = { has: () => true, asnRanges: () => [] };
const jobs = createAuditJobs({ store: auditStore, clock: systemClock, datasets, probesPerAddress: () => 2 });
const { job } = await jobs.create(
  { cidrs: ['10.0.0.0/16'], dataset_version: 1, seed: 'bench', max_samples: SAMPLES },
  { ownerId: 1, keyId: null },
);
const addresses = (await auditStore.targets(job.id)).map((t) => t.target);

// Reference: the bare client, same names, same concurrency, no store.
const names = addresses.map((ip) => dnsblQueryName(ip, ZONE) as string);
let next = 0;
const refStart = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < names.length) {
      const name = names[next++] as string;
      await dns.a(name).catch(() => undefined);
    }
  }),
);
const refQps = names.length / ((performance.now() - refStart) / 1000);

let fcrdnsStored = 0;
const runner = createAuditRunner({
  store: auditStore,
  dns,
  clock: systemClock,
  ownZone: ZONE,
  extraZones: [],
  concurrency: CONCURRENCY,
  leaseMs: 30_000,
  worker: 'bench',
  recordFcrdns: async () => {
    fcrdnsStored++;
  },
});
const start = performance.now();
const ended = await runner.runNext();
const seconds = (performance.now() - start) / 1000;
const observations = await auditStore.observations(job.id);
const listed = observations.filter((o) => o.outcome === 'listed').length;
const rate = observations.length / seconds;
process.stdout.write(
  `audit: ${addresses.length} samples, ${observations.length} probes (${listed} listed, ${fcrdnsStored} FCrDNS results) in ${seconds.toFixed(2)} s = ${Math.round(rate)} probes/s at concurrency ${CONCURRENCY} (${ended?.end}); bare DNS client ${Math.round(refQps)} q/s; ratio ${(rate / refQps).toFixed(2)}\n`,
);
await store.close();
await server.close();
dir.remove();
