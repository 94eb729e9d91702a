/**
 * Audit jobs end to end on both stores, in process: the real app and its DNSBL server, a real
 * DNS server on 127.0.0.1 holding four other lists (listed, unlisted, failing the RFC 5782 test
 * points, answering 127.255.255.254), and a forwarding resolver in NETREP_DNS_SERVERS in front
 * of both. Also takeover after a lease expires and cooperative cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsForwarder, startDnsForwarder } from '../../test/helpers/dns-forwarder.ts';
import { startZoneServer, type Zone, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { createAuditRunner, createAuditStore, dnsblQueryName } from '../audit/index.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { startAuditWorker } from './audit.ts';

type Json = ReturnType<typeof JSON.parse>;
const OWN = 'bl.netrep.test';
const ZONES = ['listed.test', 'clean.test', 'broken.test', 'refusing.test'];
const ADDRESSES = Array.from({ length: 8 }, (_, i) => `192.0.2.${i}`);

function listsZone(): Zone {
  const zone: Zone = {
    // The listed list: RFC 5782 test points, .1 listed with a TXT, .5 refused with 127.255.255.254.
    [dnsblQueryName('127.0.0.2', 'listed.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
    [dnsblQueryName('192.0.2.1', 'listed.test') as string]: [
      { type: 'A', data: '127.0.0.2' },
      { type: 'TXT', data: 'listed for spam, see https://listed.test/192.0.2.1' },
    ],
    [dnsblQueryName('192.0.2.5', 'listed.test') as string]: [{ type: 'A', data: '127.255.255.254' }],
    // The unlisted list: only its listed test point.
    [dnsblQueryName('127.0.0.2', 'clean.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
    // broken.test does not list 127.0.0.2 and lists 127.0.0.1: it fails both test points.
    [dnsblQueryName('127.0.0.1', 'broken.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
    [dnsblQueryName('192.0.2.2', 'broken.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
    // FCrDNS: 192.0.2.1 has a PTR whose A is itself; 192.0.2.2 one that points elsewhere.
    '1.2.0.192.in-addr.arpa': [{ type: 'PTR', data: 'mail.sender.test' }],
    'mail.sender.test': [{ type: 'A', data: '192.0.2.1' }],
    '2.2.0.192.in-addr.arpa': [{ type: 'PTR', data: 'other.sender.test' }],
    'other.sender.test': [{ type: 'A', data: '198.51.100.1' }],
  };
  // refusing.test answers every query, test points included, with "public resolver refused".
  for (const ip of ['127.0.0.1', '127.0.0.2', ...ADDRESSES]) {
    zone[dnsblQueryName(ip, 'refusing.test') as string] = [{ type: 'A', data: '127.255.255.254' }];
  }
  return zone;
}

describe.each(STORE_KINDS)('audit worker on %s', (kind) => {
  let t: IntelTestApp;
  let lists: ZoneServer;
  let resolver: DnsForwarder;
  let key: string;
  let version: number;

  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const res = await t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: res.statusCode, data: (res.json() as { data: Record<string, Json> }).data };
  };

  beforeAll(async () => {
    if (skipStore(kind)) return;
    lists = await startZoneServer(listsZone());
    // The forwarder learns the DNSBL port once the app listens; until then it points at the lists.
    const routes: Record<string, number> = {};
    resolver = await startDnsForwarder({ routes, defaultPort: lists.port });
    t = await createIntelTestApp(kind, {
      config: {
        workers: false,
        dnsblListen: '127.0.0.1:0',
        dnsblZone: OWN,
        auditZones: ZONES,
        dnsServers: resolver.servers,
        auditConcurrency: 4,
        auditDnsTimeoutMs: 300,
      },
    });
    routes[OWN] = t.app.dnsbl?.udpPort as number;
    version = t.app.services.datasetVersion() as number;
    key = await t.key({ permissions: ['audit:write'] });
    await t.app.services.blocklist.list({ ip: '192.0.2.3', type: 'spam', reason: 'audit test' });
    await t.app.blocklistMirror.poll();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await resolver?.close();
    await lists?.close();
  });

  it.skipIf(skipStore(kind))(
    'probes every zone through the resolvers with RFC 5782 hygiene and gates the result',
    async () => {
      const created = await call('POST', '/v1/audit/jobs', {
        cidrs: ['192.0.2.0/29'],
        dataset_version: version,
        seed: 'e2e',
        acceptance: true,
      });
      expect(created.status).toBe(202);
      const ended = await t.app.auditWorker.runOnce();
      expect(ended).toEqual([{ jobId: created.data.job.id, end: 'succeeded' }]);

      const r = (await call('GET', `/v1/audit/jobs/${created.data.job.id}/result`)).data;
      expect(r.job.status).toBe('succeeded');
      expect(r.job.progress).toEqual({ done: 48, planned: 48 });
      expect(r.observations).toHaveLength(8 * 5 + 8);
      const outcome = (zone: string, ip: string) =>
        r.observations.find(
          (o: Json) =>
            o.source_key === zone &&
            o.address === ip &&
            o.observation_kind === (zone === 'fcrdns' ? 'fcrdns' : 'dnsbl'),
        );

      // The own zone, answered by the netrep DNSBL server through the resolver.
      expect(outcome(OWN, '192.0.2.3')).toMatchObject({ outcome: 'listed', raw_codes: ['127.0.0.2'] });
      expect(outcome(OWN, '192.0.2.3').raw_provider_response.txt.join(' ')).toContain('192.0.2.3');
      expect(outcome(OWN, '192.0.2.4').outcome).toBe('not_listed');
      // A list that lists one address, with its TXT kept, and refuses another.
      expect(outcome('listed.test', '192.0.2.1')).toMatchObject({
        outcome: 'listed',
        raw_codes: ['127.0.0.2'],
      });
      expect(outcome('listed.test', '192.0.2.1').raw_provider_response.txt).toEqual([
        'listed for spam, see https://listed.test/192.0.2.1',
      ]);
      expect(outcome('listed.test', '192.0.2.5')).toMatchObject({
        outcome: 'error',
        raw_codes: ['127.255.255.254'],
      });
      expect(outcome('listed.test', '192.0.2.5').raw_provider_response.reason).toContain(
        'public or open resolver',
      );
      expect(outcome('listed.test', '192.0.2.6').outcome).toBe('not_listed');
      for (const ip of ADDRESSES) {
        expect(outcome('clean.test', ip).outcome).toBe('not_listed');
        // Untrusted zones give errors with the reason, never listed and never not_listed.
        expect(outcome('broken.test', ip).outcome).toBe('error');
        expect(outcome('broken.test', ip).raw_provider_response.reason).toContain(
          'RFC 5782 test point 127.0.0.2',
        );
        expect(outcome('refusing.test', ip).outcome).toBe('error');
        expect(outcome('refusing.test', ip).raw_provider_response.reason).toContain('127.255.255.254');
      }
      // FCrDNS, stored where reputation reads it.
      expect(outcome('fcrdns', '192.0.2.1')).toMatchObject({ outcome: 'pass' });
      expect(outcome('fcrdns', '192.0.2.2')).toMatchObject({ outcome: 'fail' });
      expect(outcome('fcrdns', '192.0.2.7')).toMatchObject({ outcome: 'fail' });
      const rep = await t.app.http.inject({ method: 'GET', url: '/v1/email/ip/192.0.2.1/reputation' });
      expect(rep.json().data.fcrdns).toMatchObject({ ptr_hostname: 'mail.sender.test', forward_match: true });
      const rep2 = await t.app.http.inject({ method: 'GET', url: '/v1/email/ip/192.0.2.2/reputation' });
      expect(rep2.json().data.factors.map((f: Json) => f.name)).toContain('fcrdns');

      const fi = r.job.final_interpretation;
      expect(fi.zones[OWN]).toEqual({ listed: 1, not_listed: 7, error: 0, timeout: 0 });
      expect(fi.zones['listed.test']).toEqual({ listed: 1, not_listed: 6, error: 1, timeout: 0 });
      expect(fi.zones['broken.test']).toEqual({ listed: 0, not_listed: 0, error: 8, timeout: 0 });
      expect(fi.fcrdns).toEqual({ pass: 1, fail: 7, unknown: 0 });
      expect(fi.acceptance.gate).toBe('fail');
      expect(fi.acceptance.reasons.join(' ')).toContain('own zone bl.netrep.test');
      expect(r.events.map((e: Json) => [e.event_type, e.actor.split(':')[0]])).toEqual([
        ['created', 'key'],
        ['started', 'worker'],
        ['completed', 'worker'],
      ]);
    },
  );

  it.skipIf(skipStore(kind))('gives review when nothing is listed but probes errored', async () => {
    const created = await call('POST', '/v1/audit/jobs', {
      ips: ['192.0.2.6', '192.0.2.7'],
      dataset_version: version,
      seed: 'review',
      acceptance: true,
    });
    await t.app.auditWorker.runOnce();
    const job = (await call('GET', `/v1/audit/jobs/${created.data.job.id}`)).data;
    expect(job.final_interpretation.acceptance.gate).toBe('review');
    expect(job.final_interpretation.acceptance.reasons.join(' ')).toContain('of probes errored');
  });

  it.skipIf(skipStore(kind))(
    'takes over a job whose lease expired without repeating stored observations',
    async () => {
      const created = await call('POST', '/v1/audit/jobs', {
        cidrs: ['192.0.2.0/30'],
        dataset_version: version,
        seed: 'take',
      });
      const jobId = created.data.job.id as number;
      const store = createAuditStore(t.app.store);
      // A worker claims the job, stores two observations and dies.
      const dead = await store.claim('dead-worker', t.clock(), 30_000);
      expect(dead?.job.id).toBe(jobId);
      const targets = await store.targets(jobId);
      for (const target of targets.slice(0, 2)) {
        await store.insertObservation({
          jobId,
          targetId: target.id,
          address: target.target,
          kind: 'dnsbl',
          sourceKey: OWN,
          outcome: 'not_listed',
          rawCodes: [],
          rawProviderResponse: { by: 'dead-worker' },
          observedAt: t.clock(),
          expiresAt: null,
        });
      }
      const runner = (name: string) =>
        createAuditRunner({
          store,
          dns: createDnsClient({ servers: resolver.servers, timeoutMs: 300 }),
          clock: t.clock,
          ownZone: OWN,
          extraZones: ZONES,
          concurrency: 2,
          leaseMs: 30_000,
          worker: name,
          recordFcrdns: async () => undefined,
        });
      // Within the lease nobody else may take it.
      expect(await runner('second').runNext()).toBeNull();
      t.clock.advance(31_000);
      expect(await runner('second').runNext()).toEqual({ jobId, end: 'succeeded' });
      const r = (await call('GET', `/v1/audit/jobs/${jobId}/result`)).data;
      expect(r.observations).toHaveLength(4 * 6);
      const keys = r.observations.map((o: Json) => `${o.target_id}|${o.observation_kind}|${o.source_key}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(r.observations.filter((o: Json) => o.raw_provider_response.by === 'dead-worker')).toHaveLength(
        2,
      );
      const takeover = r.events.find((e: Json) => e.event_type === 'takeover');
      expect(takeover).toMatchObject({ actor: 'worker:second', detail: { from: 'dead-worker' } });
      // The dead worker's late write is refused: it no longer holds the lease.
      expect(await store.heartbeat(jobId, 'dead-worker', t.clock(), 30_000, {})).toBeNull();
    },
  );

  it.skipIf(skipStore(kind))('stops a running job between probes when it is cancelled', async () => {
    // Slow answers: every probe of 203.0.113.0/28 under clean.test times out (300 ms).
    const zone = listsZone();
    for (let i = 0; i < 16; i++)
      zone[dnsblQueryName(`203.0.113.${i}`, 'clean.test') as string] = [{ type: 'TIMEOUT' }];
    lists.setZone(zone);
    const created = await call('POST', '/v1/audit/jobs', {
      cidrs: ['203.0.113.0/28'],
      dataset_version: version,
      seed: 'cancel',
    });
    const jobId = created.data.job.id as number;
    const running = t.app.auditWorker.runOnce();
    const store = createAuditStore(t.app.store);
    for (let i = 0; i < 200 && (await store.observations(jobId)).length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    const c = await call('POST', `/v1/audit/jobs/${jobId}/cancel`);
    expect(c.data.cancellation_accepted).toBe(true);
    expect(await running).toEqual([{ jobId, end: 'cancelled' }]);
    const r = (await call('GET', `/v1/audit/jobs/${jobId}/result`)).data;
    expect(r.job.status).toBe('cancelled');
    expect(r.observations.length).toBeLessThan(16 * 6);
    expect(r.job.final_interpretation.partial).toBe(true);
    expect(r.events.map((e: Json) => e.event_type)).toEqual([
      'created',
      'started',
      'cancel_requested',
      'cancelled',
    ]);
    expect(r.events[2].actor).toMatch(/^key:/);
    expect(r.events[3].actor).toMatch(/^worker:/);
    lists.setZone(listsZone());
  });

  it.skipIf(skipStore(kind))(
    'a stopping worker leaves its job between probes and releases the lease',
    async () => {
      const zone = listsZone();
      for (let i = 0; i < 16; i++)
        zone[dnsblQueryName(`203.0.113.${i + 32}`, 'clean.test') as string] = [{ type: 'TIMEOUT' }];
      lists.setZone(zone);
      const created = await call('POST', '/v1/audit/jobs', {
        cidrs: ['203.0.113.32/28'],
        dataset_version: version,
        seed: 'stop',
      });
      const jobId = created.data.job.id as number;
      const store = createAuditStore(t.app.store);
      const options = {
        store,
        dns: createDnsClient({ servers: resolver.servers, timeoutMs: 300 }),
        clock: t.clock,
        ownZone: OWN,
        extraZones: ZONES,
        concurrency: 2,
        leaseMs: 30_000,
        recordFcrdns: async () => undefined,
      };
      const worker = startAuditWorker({
        runner: (stopping) => createAuditRunner({ ...options, worker: 'leaving', stopping }),
        scheduled: false,
      });
      const pass = worker.runOnce();
      for (let i = 0; i < 200 && (await store.observations(jobId)).length === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      await worker.stop();
      expect(await pass).toEqual([{ jobId, end: 'released' }]);
      const left = await store.observations(jobId);
      expect(left.length).toBeLessThan(16 * 6);
      // No lease wait: another worker takes it over at once, at the same clock time.
      lists.setZone(listsZone());
      expect(await createAuditRunner({ ...options, worker: 'next' }).runNext()).toEqual({
        jobId,
        end: 'succeeded',
      });
      expect(await store.observations(jobId)).toHaveLength(16 * 6);
      expect((await store.events(jobId)).map((e) => e.event_type)).toEqual([
        'created',
        'started',
        'takeover',
        'completed',
      ]);
    },
  );

  it.skipIf(skipStore(kind))(
    'marks a job failed with its error_detail when a probe cannot be stored',
    async () => {
      const created = await call('POST', '/v1/audit/jobs', {
        ips: ['192.0.2.9'],
        dataset_version: version,
        seed: 'fail',
      });
      const jobId = created.data.job.id as number;
      const runner = createAuditRunner({
        store: createAuditStore(t.app.store),
        dns: createDnsClient({ servers: resolver.servers, timeoutMs: 300 }),
        clock: t.clock,
        ownZone: OWN,
        extraZones: [],
        concurrency: 1,
        leaseMs: 30_000,
        worker: 'failing',
        recordFcrdns: async () => {
          throw new Error('reputation store unavailable');
        },
      });
      expect(await runner.runNext(jobId)).toEqual({ jobId, end: 'failed' });
      const r = (await call('GET', `/v1/audit/jobs/${jobId}/result`)).data;
      expect(r.job).toMatchObject({
        status: 'failed',
        error_detail: 'audit job failed: reputation store unavailable',
      });
      expect(r.events.at(-1)).toMatchObject({ event_type: 'failed', actor: 'worker:failing' });
    },
  );
});
