/**
 * An ASN audit end to end (issue 32): `asns: [15169]` with IPv6 space beside IPv4 is admitted by
 * an int64 max_population now that IPv6 counts in /64s, samples both families, and runs to
 * `succeeded` through the real app, its DNSBL server and a DNS server on 127.0.0.1; every sampled
 * address is answered as AS15169 by the app's own IP lookup of the pinned dataset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsForwarder, startDnsForwarder } from '../../test/helpers/dns-forwarder.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { dnsblQueryName } from './index.ts';

type Json = ReturnType<typeof JSON.parse>;
const OWN = 'bl.netrep.test';

describe.each(STORE_KINDS)('an ASN audit on %s', (kind) => {
  let t: IntelTestApp;
  let lists: ZoneServer;
  let resolver: DnsForwarder;
  let key: string;
  let version: number;

  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, k = key) => {
    const res = await t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: res.statusCode, data: (res.json() as { data: Record<string, Json> }).data };
  };

  beforeAll(async () => {
    if (skipStore(kind)) return;
    // Only the RFC 5782 test points of a second list; everything else is NXDOMAIN (not listed).
    lists = await startZoneServer({
      [dnsblQueryName('127.0.0.2', 'clean.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
    });
    const routes: Record<string, number> = {};
    resolver = await startDnsForwarder({ routes, defaultPort: lists.port });
    t = await createIntelTestApp(kind, {
      config: {
        workers: false,
        dnsblListen: '127.0.0.1:0',
        dnsblZone: OWN,
        auditZones: ['clean.test'],
        dnsServers: resolver.servers,
        auditConcurrency: 4,
        auditDnsTimeoutMs: 300,
      },
    });
    routes[OWN] = t.app.dnsbl?.udpPort as number;
    version = t.app.services.datasetVersion() as number;
    key = await t.key({ permissions: ['audit:write', 'ip:read'] });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await resolver?.close();
    await lists?.close();
  });

  it.skipIf(skipStore(kind))(
    'asns: [15169] is counted in /64s, sampled in both families and runs',
    async () => {
      const request = { asns: [15169], dataset_version: version, seed: 'as15169', max_samples: 12 };
      // The fixture dataset gives AS15169 8.8.8.0/24 and 2a00:1450::/32: 256 + 2^32 units.
      const small = await call('POST', '/v1/audit/jobs', request);
      expect([small.status, small.data.code]).toEqual([400, 'POPULATION_TOO_LARGE']);
      expect(small.data.error).toContain('4294967552 units (256 IPv4 addresses and 4294967296 IPv6 /64s)');

      const created = await call('POST', '/v1/audit/jobs', { ...request, max_population: 1e15 });
      expect(created.status).toBe(202);
      const job = created.data.job;
      expect(job.sampling_manifest).toMatchObject({
        method: 'hmac-sha256-draws-v2',
        population: 256 + 2 ** 32,
        population_ipv4: 256,
        population_ipv6_64s: 2 ** 32,
        sample_size: 12,
        sample_ipv4: 6,
        sample_ipv6: 6,
      });
      const addresses: string[] = job.sampling_manifest.addresses;
      expect(addresses.filter((a) => a.includes(':'))).toHaveLength(6);
      // Each sampled IPv6 address is the ::1 of its /64.
      for (const a of addresses.filter((x) => x.includes(':')))
        expect(a).toMatch(/^2a00:1450:[0-9a-f:]*::1$/);

      // Deterministic: the same request from another owner samples the same addresses.
      const other = await t.key({ permissions: ['audit:write'], ownerId: await t.user() });
      const again = await call('POST', '/v1/audit/jobs', { ...request, max_population: 1e15 }, other);
      expect(again.data.job.sampling_manifest.addresses).toEqual(addresses);
      await call('POST', `/v1/audit/jobs/${again.data.job.id}/cancel`, {}, other);

      expect(await t.app.auditWorker.runOnce()).toEqual([{ jobId: job.id, end: 'succeeded' }]);
      const result = (await call('GET', `/v1/audit/jobs/${job.id}/result`)).data;
      expect(result.job.status).toBe('succeeded');
      expect(result.targets.map((x: Json) => x.target).sort()).toEqual(addresses.slice().sort());
      expect(result.job.final_interpretation.zones[OWN]).toEqual({
        listed: 0,
        not_listed: 12,
        error: 0,
        timeout: 0,
      });
      // Every sampled address belongs to AS15169, as the app's own IP lookup answers it.
      for (const address of addresses) {
        const answer = await call('GET', `/v1/ip/${address}`);
        expect([answer.status, answer.data.asn], address).toEqual([200, 15169]);
      }
    },
  );
});
