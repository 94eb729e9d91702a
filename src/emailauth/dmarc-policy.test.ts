import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { lookupDmarcPolicy } from './index.ts';

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer({
    '_dmarc.org.com': [{ type: 'TXT', data: 'v=DMARC1; p=none; sp=quarantine' }],
    '_dmarc.sub.org.com': [{ type: 'TXT', data: 'v=DMARC1; p=reject' }],
    '_dmarc.bad.com': [{ type: 'TXT', data: 'v=DMARC1; p=maybe' }],
    '_dmarc.broken.com': [{ type: 'SERVFAIL' }],
    '_dmarc.hang.com': [{ type: 'TIMEOUT' }],
  });
});
afterAll(async () => {
  await server.close();
});

const options = (deadlineMs = 5000) => ({
  dns: createDnsClient({ servers: server.servers, timeoutMs: 2000, tries: 1 }),
  clock: createManualClock('2026-06-01T00:00:00Z'),
  deadlineMs,
});

describe('lookupDmarcPolicy', () => {
  it('returns the policy applied to the domain: its own p=, or the organizational sp=', async () => {
    expect(await lookupDmarcPolicy('org.com', options())).toBe('none');
    expect(await lookupDmarcPolicy('sub.org.com', options())).toBe('reject');
    expect(await lookupDmarcPolicy('deep.other.org.com', options())).toBe('quarantine');
  });

  it('is null for no record, an invalid record, DNS failure and non-public names', async () => {
    expect(await lookupDmarcPolicy('none.com', options())).toBeNull();
    expect(await lookupDmarcPolicy('bad.com', options())).toBeNull();
    expect(await lookupDmarcPolicy('broken.com', options())).toBeNull();
    const before = server.queries.length;
    for (const name of ['localhost', '', '1.2.3.4', 'x..y.com'])
      expect(await lookupDmarcPolicy(name, options())).toBeNull();
    expect(server.queries.length).toBe(before);
  });

  it('gives up at its deadline when the server never answers', async () => {
    const started = performance.now();
    expect(await lookupDmarcPolicy('hang.com', options(300))).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
