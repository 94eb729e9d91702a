/**
 * Reputation throughput for IPs with rich evidence, on SQLite and PostgreSQL: 200 public IPs,
 * each with 40 evidence events over 90 days (some synthetic), 12 telemetry observations,
 * listing history, listed neighbours, an FCrDNS result, dataset facts and 30 days of score
 * history. Requests go through the real Fastify app in process (inject, 16 in flight), so the
 * numbers include access control, limits, validation, scoring, the history write and
 * serialization. Reference measured in the same run on the same app: GET /healthz.
 * Run: node --import tsx bench/reputation.ts
 */
import crypto from 'node:crypto';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createManualClock, DAY_MS, toIso } from '../src/core/clock.ts';
import type { IntelFacts } from '../src/reputation/index.ts';
import { probeBackends } from '../test/helpers/backends.ts';
import { createTestStore, type StoreKind } from '../test/helpers/stores.ts';

const IPS = 200;
const IN_FLIGHT = 16;
const DURATION_MS = 3000;
const NOW = Date.parse('2026-06-15T12:00:00Z');

const ipOf = (i: number) => `45.${40 + Math.floor(i / 50)}.${i % 50}.10`;

let client = 0;
const nextClient = () => {
  client++;
  return `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
};

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

async function drive(send: (i: number) => Promise<number>): Promise<Result> {
  const latencies: number[] = [];
  let n = 0;
  const end = performance.now() + DURATION_MS;
  const loop = async () => {
    while (performance.now() < end) {
      const i = n++;
      const t0 = performance.now();
      const status = await send(i);
      if (status !== 200) throw new Error(`status ${status} at request ${i}`);
      latencies.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: (latencies.length * 1000) / elapsed, p50: at(0.5), p99: at(0.99) };
}

async function benchStore(kind: StoreKind): Promise<void> {
  const handle = await createTestStore(kind);
  const clock = createManualClock(NOW);
  const intel: IntelFacts = {
    datacenter: (ip) => ip.endsWith('.10'),
    geoChangeCount90d: (ip) => ip.length % 3,
  };
  const config = loadConfig(
    {
      dataDir: handle.dataDir,
      databaseUrl: handle.databaseUrl,
      redisUrl: '',
      listen: '127.0.0.1:0',
      dnsblListen: '',
    },
    {},
  );
  const app = await createApp(config, {
    clock,
    intelFacts: intel,
    limitPrefix: `b${crypto.randomBytes(4).toString('hex')}`,
    ...(handle.pgSchema ? { pgSchema: handle.pgSchema } : {}),
  });
  try {
    const { user } = await app.services.accounts.createUser({ email: 'bench@example.test', role: 'admin' });
    const make = (permissions: ('admin' | 'telemetry:write')[]) =>
      app.services.accounts.createKey({
        ownerId: user.id,
        name: 'bench',
        tier: 'enterprise',
        permissions,
        features: [],
      });
    const admin = (await make(['admin'])).key;
    const tele = (await make(['telemetry:write'])).key;
    const blocklist = app.services.blocklist;
    const reputation = app.services.reputation;
    if (!blocklist || !reputation) throw new Error('services missing');

    const kinds = ['pristine_trap', 'recycled_trap', 'typo_trap', 'smtp_honeypot'];
    for (let i = 0; i < IPS; i++) {
      const ip = ipOf(i);
      const events = Array.from({ length: 40 }, (_, k) => ({
        ip,
        kind: kinds[k % 4],
        observed_at: toIso(NOW - ((k * 2.3 + i) % 90) * DAY_MS),
        synthetic: k % 7 === 0,
        source: 'bench',
      }));
      await app.http.inject({
        method: 'POST',
        url: '/v1/admin/evidence',
        headers: { 'x-api-key': admin },
        payload: { events },
      });
      const observations = Array.from({ length: 12 }, (_, k) => ({
        ip,
        bounce_rate: (k % 8) / 100,
        complaint_rate: (k % 3) / 1000,
        volume_24h: 1000 * k,
        observed_at: toIso(NOW - k * 3 * 3_600_000),
      }));
      await app.http.inject({
        method: 'POST',
        url: '/v1/email/telemetry/ingest',
        headers: { 'x-api-key': tele },
        payload: { observations },
      });
      if (i % 4 === 0) {
        clock.set(NOW - 20 * DAY_MS);
        await blocklist.list({ ip, type: 'spam', reason: 'bench' });
        clock.set(NOW - 10 * DAY_MS);
        await blocklist.delist(ip, { reason: 'bench' });
        clock.set(NOW);
        if (i % 8 === 0) await blocklist.list({ ip, type: 'spam', reason: 'bench' });
      }
      await blocklist.list({
        ip: ip.replace(/\.10$/, `.${100 + (i % 5)}`),
        type: 'spam',
        reason: 'neighbour',
      });
      await reputation.recordFcrdns({
        ip,
        ptrHostname: `mta${i}.example.test`,
        forwardMatch: i % 3 !== 0,
        forwardIps: [ip],
        lastCheckedAt: NOW - DAY_MS,
        lastObservedAt: NOW - 3_600_000,
      });
    }
    // 30 days of history for every IP.
    for (let d = 29; d >= 0; d--) {
      clock.set(NOW - d * DAY_MS);
      for (let i = 0; i < IPS; i++) await reputation.assess(ipOf(i));
    }
    clock.set(NOW);
    const probe = await app.http.inject({
      url: `/v1/email/ip/${ipOf(0)}/reputation`,
      remoteAddress: nextClient(),
    });
    const data = probe.json().data as { factors: unknown[]; history: unknown[] };
    if (data.history.length !== 30) throw new Error(`history has ${data.history.length} points`);

    const healthz = await drive(async () => (await app.http.inject({ url: '/healthz' })).statusCode);
    const single = await drive(async (i) => {
      const res = await app.http.inject({
        url: `/v1/email/ip/${ipOf(i % IPS)}/reputation`,
        remoteAddress: nextClient(),
      });
      if (res.statusCode !== 200) throw new Error(res.body);
      return res.statusCode;
    });
    const batchIps = Array.from({ length: 100 }, (_, k) => ipOf(k * 2));
    const batch = await drive(
      async () =>
        (
          await app.http.inject({
            method: 'POST',
            url: '/v1/email/reputation/batch',
            payload: { ips: batchIps },
            remoteAddress: nextClient(),
          })
        ).statusCode,
    );
    const f = (n: number) => Math.round(n).toLocaleString('en-US');
    const ms = (n: number) => n.toFixed(2);
    console.log(
      `reputation ${kind}: GET /v1/email/ip/{ip}/reputation (${data.factors.length} factors, 30-day history) ${f(single.rps)} req/s, p50 ${ms(single.p50)} ms, p99 ${ms(single.p99)} ms`,
    );
    console.log(
      `reputation ${kind}: POST /v1/email/reputation/batch (100 IPs) ${f(batch.rps)} req/s = ${f(batch.rps * 100)} IPs/s, p99 ${ms(batch.p99)} ms`,
    );
    console.log(
      `reputation ${kind}: reference GET /healthz ${f(healthz.rps)} req/s, p99 ${ms(healthz.p99)} ms; reputation/healthz ratio ${(single.rps / healthz.rps).toFixed(3)}, batch IPs/healthz ratio ${((batch.rps * 100) / healthz.rps).toFixed(3)}`,
    );
  } finally {
    await app.close();
    await handle.cleanup();
  }
}

const backends = await probeBackends();
await benchStore('sqlite');
if (backends.postgres) await benchStore('postgres');
else console.log(`reputation postgres: skipped (${backends.postgresReason})`);
