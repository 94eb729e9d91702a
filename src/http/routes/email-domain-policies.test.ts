/**
 * MTA-STS, TLS-RPT and BIMI through the real domain-check routes (issue 38), against a real DNS
 * server on 127.0.0.1: the new fields validate against the route schema, the policy host on
 * loopback is refused without NETREP_MTA_STS_ALLOW_LOOPBACK (no connection: a TCP listener on
 * the address counts none) and tried with it, hostile domain names are refused before any
 * lookup, and hostile record text comes back as data.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../test/helpers/dns-guard.ts';
import { Value } from '@sinclair/typebox/value';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import {
  startZoneServer,
  type Zone,
  type ZoneRecord,
  type ZoneServer,
} from '../../../test/helpers/dns-zone-server.ts';
import { DomainAuthResultSchema, DomainDnsResultSchema } from '../../emailauth/index.ts';

const txt = (data: string | string[]): ZoneRecord => ({ type: 'TXT', data });
const HOSTILE = '<script>alert(1)</script>"\'';

/** Loopback addresses with nothing on 443 but, in the refusal test, a counting listener. */
const POLICY_ADDRESS = '127.0.0.38';

function zone(): Zone {
  const mail = (d: string): Zone => ({
    [d]: [{ type: 'MX', data: { preference: 10, exchange: `mx.${d}` } }, txt('v=spf1 -all')],
    [`mx.${d}`]: [{ type: 'A', data: '192.0.2.1' }],
    [`_dmarc.${d}`]: [txt('v=DMARC1; p=reject; rua=mailto:d@example.org')],
  });
  return {
    ...mail('policies.com'),
    '_mta-sts.policies.com': [txt('v=STSv1; id=20261128')],
    'mta-sts.policies.com': [{ type: 'A', data: POLICY_ADDRESS }],
    '_smtp._tls.policies.com': [txt('v=TLSRPTv1; rua=mailto:tls@policies.com')],
    'default._bimi.policies.com': [
      txt('v=BIMI1; l=https://policies.com/logo.svg; a=https://policies.com/vmc.pem'),
    ],
    ...mail('hostile.com'),
    '_mta-sts.hostile.com': [txt(`v=STSv1; id=${HOSTILE}`)],
    '_smtp._tls.hostile.com': [txt(['v=TLSRPTv1; rua=mailto:', 'a'.repeat(300), HOSTILE])],
    'default._bimi.hostile.com': [txt(`v=BIMI1; l=javascript:alert(1); a=${HOSTILE}; ${';'.repeat(500)}`)],
  };
}

let server: ZoneServer;
let guarded: TestApp;
let allowed: TestApp;
let key: string;
let listener: net.Server;
let connections = 0;

beforeAll(async () => {
  server = await startZoneServer(zone());
  guarded = await createTestApp('sqlite', { config: { dnsServers: server.servers } });
  allowed = await createTestApp('sqlite', {
    config: { dnsServers: server.servers, mtaStsAllowLoopback: true },
  });
  key = await guarded.key({ permissions: ['email:read'] });
});
afterAll(async () => {
  await guarded?.close();
  await allowed?.close();
  await server?.close();
});

const get = (t: TestApp, url: string, withKey: string | null = null) =>
  t.app.http.inject({ method: 'GET', url, headers: withKey ? { 'x-api-key': withKey } : {} });

describe('the domain check routes with MTA-STS, TLS-RPT and BIMI', () => {
  it('answer the new fields, valid against the schemas, on the tool and the DNS route', async () => {
    const tool = await get(guarded, '/v1/public/tools/domain-check/policies.com');
    expect(tool.statusCode).toBe(200);
    const data = tool.json().data;
    expect(Value.Check(DomainAuthResultSchema, data)).toBe(true);
    expect(data.tls_rpt).toMatchObject({ status: 'found', is_valid: true, rua: ['mailto:tls@policies.com'] });
    expect(data.bimi).toMatchObject({ status: 'found', is_valid: true, dmarc_ready: true });
    expect(data.mta_sts).toMatchObject({
      status: 'found',
      id: '20261128',
      record_valid: true,
      is_valid: false,
    });
    const dns = await get(guarded, '/v1/email/domain/policies.com/dns', key);
    expect(dns.statusCode).toBe(200);
    expect(Value.Check(DomainDnsResultSchema, dns.json().data)).toBe(true);
    expect(dns.json().data.tls_rpt.is_valid).toBe(true);
  });

  it('refuse a loopback policy host without the test setting, before any connection', async (ctx) => {
    // A listener on the policy address's port 443 counts connections (needs the right to bind 443).
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    const bound = await new Promise<boolean>((resolve) => {
      listener.once('error', () => resolve(false));
      listener.listen(443, POLICY_ADDRESS, () => resolve(true));
    });
    try {
      const data = (await get(guarded, '/v1/public/tools/domain-check/policies.com')).json().data;
      expect(data.mta_sts.policy).toMatchObject({
        fetched: false,
        address: null,
        errors: [
          `fetching the policy from mta-sts.policies.com refused: ${POLICY_ADDRESS} is loopback address space`,
        ],
      });
      expect(data.mta_sts.recommendations[0]).toMatch(
        /^Fix the MTA-STS policy at https:\/\/mta-sts\.policies\.com/,
      );
      if (!bound) ctx.skip();
      expect(connections).toBe(0);
      // With the test setting the same check connects (the listener closes at once: no policy).
      const tried = (await get(allowed, '/v1/public/tools/domain-check/policies.com')).json().data;
      expect(tried.mta_sts.policy.address).toBe(POLICY_ADDRESS);
      expect(tried.mta_sts.policy.fetched).toBe(false);
      expect(connections).toBe(1);
    } finally {
      if (bound) await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('with the test setting a loopback host is tried and its failure reported', async () => {
    const data = (await get(allowed, '/v1/public/tools/domain-check/policies.com')).json().data;
    expect(data.mta_sts.policy.address).toBe(POLICY_ADDRESS);
    expect(data.mta_sts.policy.errors[0]).toMatch(
      /^fetching the policy from mta-sts\.policies\.com failed: /,
    );
  });

  it('refuse hostile domain names before any lookup', async () => {
    const before = server.queries.length;
    for (const name of [
      '_mta-sts.policies.com',
      'mta-sts..policies.com',
      '127.0.0.1',
      'localhost',
      `${'a'.repeat(64)}.com`,
      'policies.com%00.evil',
      '%3Cscript%3E.com',
      'policies.com%2F..%2F..%2Fetc',
    ]) {
      const res = await get(guarded, `/v1/public/tools/domain-check/${name}`);
      expect(res.statusCode, name).toBe(400);
      expect(res.json().data.code, name).toBe('INVALID_DOMAIN');
    }
    expect(server.queries.length).toBe(before);
  });

  it('return hostile record text as data, with findings', async () => {
    const res = await get(guarded, '/v1/public/tools/domain-check/hostile.com');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(Value.Check(DomainAuthResultSchema, data)).toBe(true);
    expect(data.mta_sts.record_valid).toBe(false);
    // A record, however broken, sends the check for the policy; this host has no address.
    expect(data.mta_sts.policy.errors).toEqual(['mta-sts.hostile.com does not resolve']);
    expect(data.tls_rpt.is_valid).toBe(false);
    expect(data.tls_rpt.raw).toContain(HOSTILE);
    expect(data.bimi.errors).toContain('l= must be an https: URL (found javascript:)');
    expect(data.bimi.is_valid).toBe(false);
  });
});
