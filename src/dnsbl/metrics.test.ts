/** netrep_dnsbl_answer_errors_total: a query whose answering throws is answered SERVFAIL and counted. */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from '../../test/helpers/dnsbl-tools.ts';
import { createListingIndex } from './listing-index.ts';
import { registerDnsblMetrics } from './metrics.ts';
import { ipToQueryName } from './query-name.ts';
import { type DnsblServer, startDnsblServer } from './server.ts';
import type { ListingIndex } from './types.ts';

const ZONE = 'bl.netrep.test';

describe('DNSBL answer errors on /metrics', () => {
  const healthy = createListingIndex([{ ip: '192.0.2.10', returnCode: '127.0.0.2', reason: 'spam' }]);
  let failing = false;
  // The index the server reads: fails on demand, as a broken index would.
  const index: ListingIndex = {
    get(ip) {
      if (failing) throw new Error('index unavailable');
      return healthy.get(ip);
    },
    get size() {
      return healthy.size;
    },
  };
  const registry = new Registry();
  let server: DnsblServer;
  beforeAll(async () => {
    server = await startDnsblServer({ zone: ZONE, listen: '127.0.0.1:0', index, lookupUrl: (ip) => ip });
    registerDnsblMetrics(registry, server);
  });
  afterAll(() => server.close());

  const exported = async () =>
    (await registry.getSingleMetricAsString('netrep_dnsbl_answer_errors_total')).split('\n');

  it('counts nothing while answers work, then each SERVFAIL of a failed answer (UDP and TCP)', async () => {
    const name = ipToQueryName('192.0.2.10', ZONE) as string;
    expect((await dig(server.udpPort, name, 'A')).status).toBe('NOERROR');
    expect(await exported()).toContain('netrep_dnsbl_answer_errors_total 0');
    failing = true;
    expect((await dig(server.udpPort, name, 'A')).status).toBe('SERVFAIL');
    expect((await dig(server.udpPort, name, 'A', ['+tcp'])).status).toBe('SERVFAIL');
    failing = false;
    expect((await dig(server.udpPort, name, 'A')).status).toBe('NOERROR');
    expect(server.answerErrors()).toBe(2);
    expect(await exported()).toContain('netrep_dnsbl_answer_errors_total 2');
  });
});
