/**
 * Durability of audit jobs across processes (CONTRACT §10), on SQLite and PostgreSQL: a
 * `netrep worker` is SIGKILLed mid-job; a second one takes the job over once the lease expires
 * and finishes it, and no observation is stored twice. DNS is a real server on 127.0.0.1 whose
 * PTR answers never come, so each FCrDNS probe takes its full timeout and the job lasts seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { seedDataset } from '../../test/helpers/datasets.ts';
import { startZoneServer, type Zone, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { type NetrepProcess, pgUrlWithSchema, startNetrep } from '../../test/helpers/process.ts';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createAuditStore, dnsblQueryName } from '../audit/index.ts';

const OWN = 'bl.netrep.test';
const CIDR_BASE = '203.0.113.';

function zone(): Zone {
  const z: Zone = {
    [dnsblQueryName('127.0.0.2', OWN) as string]: [{ type: 'A', data: '127.0.0.2' }],
    [dnsblQueryName('127.0.0.2', 'clean.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
  };
  for (let i = 0; i < 32; i++) z[`${i}.113.0.203.in-addr.arpa`] = [{ type: 'TIMEOUT' }];
  return z;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(STORE_KINDS)('audit worker takeover after SIGKILL on %s', (kind) => {
  let handle: TestStoreHandle;
  let t: TestApp;
  let dns: ZoneServer;
  const workers: NetrepProcess[] = [];

  beforeAll(async () => {
    if (skipStore(kind)) return;
    dns = await startZoneServer(zone());
    // The run's shared snapshot of the fixture packages (test/helpers/datasets.ts), not a build of its own.
    handle = await createTestStore(kind);
    await seedDataset(handle.dataDir, 'fixture-a');
    t = await createTestApp(kind, { config: { workers: false }, handle });
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await t?.close();
    await handle?.cleanup();
    await dns?.close();
  });

  const env = () => ({
    NETREP_DATA_DIR: t.handle.dataDir,
    NETREP_DATABASE_URL: t.handle.pgSchema ? pgUrlWithSchema(t.handle.databaseUrl, t.handle.pgSchema) : '',
    NETREP_DNS_SERVERS: dns.servers.join(','),
    NETREP_DNSBL_ZONE: OWN,
    NETREP_AUDIT_ZONES: 'clean.test',
    // Four probes at a time: the job still lasts seconds (the kill comes with some twenty of its
    // 32 targets to go) and the second worker finishes the rest in half the time two would take.
    NETREP_AUDIT_CONCURRENCY: '4',
    NETREP_AUDIT_LEASE_SECONDS: '2',
    NETREP_AUDIT_DNS_TIMEOUT_MS: '100',
    NETREP_LISTEN: '127.0.0.1:0',
  });

  it.skipIf(skipStore(kind))(
    'a second worker finishes the job of a killed one without duplicate observations',
    async () => {
      const key = await t.key({ permissions: ['audit:write'] });
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/v1/audit/jobs',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify({
          cidrs: [`${CIDR_BASE}0/27`],
          dataset_version: t.app.services.datasetVersion(),
          seed: 'kill',
        }),
      });
      expect(res.statusCode).toBe(202);
      const jobId = res.json().data.job.id as number;
      const store = createAuditStore(t.app.store);

      const first = await startNetrep(env(), 60_000, 'worker');
      workers.push(first);
      let before = 0;
      for (let i = 0; i < 600 && before < 10; i++) {
        await sleep(50);
        before = (await store.observations(jobId)).length;
      }
      expect(before).toBeGreaterThanOrEqual(10);
      // The second worker boots while the first dies and its lease runs out: it cannot claim the
      // job before then (the first holds it), so what it does is still a takeover.
      const starting = startNetrep(env(), 60_000, 'worker');
      // Stopped in afterAll whatever fails below.
      starting.then(
        (w) => workers.push(w),
        () => undefined,
      );
      first.child.kill('SIGKILL');
      await new Promise((r) => first.child.once('exit', r));
      // Gone: stop() would wait out its five seconds on a process killed by a signal.
      workers.splice(workers.indexOf(first), 1);
      const survivors = await store.observations(jobId);
      const held = await store.job(jobId, null);
      expect(held?.status).toBe('running');
      expect(survivors.length).toBeLessThan(32 * 3);

      await starting;
      let job = await store.job(jobId, null);
      for (let i = 0; i < 1200 && job?.status === 'running'; i++) {
        await sleep(50);
        job = await store.job(jobId, null);
      }
      expect(job?.status).toBe('succeeded');
      const all = await store.observations(jobId);
      expect(all).toHaveLength(32 * 3);
      const keys = all.map((o) => `${o.target_id}|${o.observation_kind}|${o.source_key}`);
      expect(new Set(keys).size).toBe(keys.length);
      // What the killed worker stored is kept as it was, not probed again.
      const kept = new Map(all.map((o) => [o.id, o]));
      for (const o of survivors) expect(kept.get(o.id)).toEqual(o);
      const events = await store.events(jobId);
      const types = events.map((e) => e.event_type);
      expect(types).toEqual(['created', 'started', 'takeover', 'completed']);
      const started = events[1];
      const takeover = events[2];
      expect(JSON.parse(takeover?.detail ?? '{}').from).toBe(started?.actor.replace(/^worker:/, ''));
      expect(takeover?.actor).not.toBe(started?.actor);
    },
    180_000,
  );
});
