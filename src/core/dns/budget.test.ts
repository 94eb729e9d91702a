import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { createManualClock, systemClock } from '../clock.ts';
import { withBudget } from './budget.ts';
import { createDnsClient } from './client.ts';

let server: ZoneServer;

beforeAll(async () => {
  const zone: Parameters<typeof startZoneServer>[0] = {
    'hang.example.com': [{ type: 'TIMEOUT' }],
    'gone.example.com': [{ type: 'SERVFAIL' }],
  };
  for (let i = 0; i < 20; i++) zone[`h${i}.example.com`] = [{ type: 'A', data: `192.0.2.${i + 1}` }];
  server = await startZoneServer(zone);
});
afterAll(async () => {
  await server.close();
});

describe('withBudget', () => {
  it('counts lookups and refuses the query past the budget without sending it', async () => {
    const client = createDnsClient({ servers: server.servers, timeoutMs: 300, tries: 1 });
    const dns = withBudget(client, { maxLookups: 3, concurrency: 2, deadlineMs: 5000, clock: systemClock });
    const sent = server.queries.length;
    await dns.a('h1.example.com');
    await dns.a('h2.example.com');
    await expect(dns.txt('nothing.example.com')).rejects.toMatchObject({ code: 'NXDOMAIN' });
    await expect(dns.a('h3.example.com')).rejects.toMatchObject({ code: 'BUDGET' });
    expect(server.queries.length - sent).toBe(3);
    const stats = dns.stats();
    expect(stats).toMatchObject({
      lookups: 3,
      max_lookups: 3,
      budget_exhausted: true,
      deadline_exceeded: false,
      errors: { NXDOMAIN: 1, BUDGET: 1 },
    });
  });

  it('bounds concurrency: never more in flight than allowed', async () => {
    const client = createDnsClient({ servers: server.servers, timeoutMs: 300, tries: 1 });
    let inFlight = 0;
    let peak = 0;
    const counting = {
      ...client,
      a: async (name: string) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await client.a(name);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const dns = withBudget(counting, {
      maxLookups: 50,
      concurrency: 3,
      deadlineMs: 5000,
      clock: systemClock,
    });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => dns.a(`h${i}.example.com`)));
    expect(answers.map((a) => a[0])).toEqual(Array.from({ length: 20 }, (_, i) => `192.0.2.${i + 1}`));
    expect(peak).toBe(3);
    expect(dns.stats().lookups).toBe(20);
  });

  it('rejects queued and in-flight queries with DEADLINE when the deadline passes', async () => {
    // Per-query timeout far beyond the deadline: only the deadline can end these queries.
    const client = createDnsClient({ servers: server.servers, timeoutMs: 10_000, tries: 1 });
    const dns = withBudget(client, { maxLookups: 10, concurrency: 1, deadlineMs: 300, clock: systemClock });
    const started = performance.now();
    const results = await Promise.allSettled([dns.txt('hang.example.com'), dns.a('h1.example.com')]);
    const elapsed = performance.now() - started;
    expect(
      results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok')),
    ).toEqual(['DEADLINE', 'DEADLINE']);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1000);
    expect(dns.stats().deadline_exceeded).toBe(true);
    await expect(dns.a('h2.example.com')).rejects.toMatchObject({ code: 'DEADLINE' });
    expect(dns.remainingMs()).toBe(0);
  });

  it('uses the injected clock for the absolute deadline', async () => {
    const clock = createManualClock();
    const client = createDnsClient({ servers: server.servers, timeoutMs: 300, tries: 1 });
    const dns = withBudget(client, { maxLookups: 10, concurrency: 2, deadlineMs: 1000, clock });
    expect(await dns.a('h1.example.com')).toEqual(['192.0.2.2']);
    clock.advance(1001);
    await expect(dns.a('h1.example.com')).rejects.toMatchObject({ code: 'DEADLINE' });
    expect(dns.stats()).toMatchObject({ lookups: 1, elapsed_ms: 1001, deadline_exceeded: true });
  });

  it('reports SERVFAIL and TIMEOUT in its error counters', async () => {
    const client = createDnsClient({ servers: server.servers, timeoutMs: 100, tries: 1 });
    const dns = withBudget(client, { maxLookups: 10, concurrency: 2, deadlineMs: 3000, clock: systemClock });
    await expect(dns.mx('gone.example.com')).rejects.toMatchObject({ code: 'SERVFAIL' });
    await expect(dns.mx('hang.example.com')).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(dns.stats().errors).toEqual({ SERVFAIL: 1, TIMEOUT: 1 });
  });
});
