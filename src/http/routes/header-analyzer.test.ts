/**
 * The header analyzer routes through the real app: body and headers limits, hostile bodies,
 * a real sample from shared/data, enrichment through services.enrichIp for at most 20 hops,
 * and the DMARC policy lookup (public route only) against a real DNS server on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../test/helpers/dns-guard.ts';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import type { HopEnrichment } from '../../headers/index.ts';
import { analyzeHeadersExample } from '../examples/tools.ts';

const SAMPLE = readFileSync(sharedDataPath('email/headers/spamscope-mail_test_6.headers.txt'), 'utf8');

const enrichedIps: string[] = [];
function enrichIp(ip: string): HopEnrichment | null {
  enrichedIps.push(ip);
  return {
    asn: 64500,
    asn_name: 'TEST-AS',
    country: 'ZZ',
    cloud_provider: null,
    connection_type: 'datacenter',
    threat_score: 7,
  };
}

/** `count` Received hops, newest first as in a real message, each from its own public IP. */
function manyHops(count: number): string {
  const lines: string[] = [];
  for (let i = count; i >= 1; i--) {
    const minute = String(i % 60).padStart(2, '0');
    lines.push(
      `Received: from relay${i}.example.net (relay${i}.example.net [198.51.${Math.floor(i / 200)}.${i % 200}])\r\n` +
        `\tby relay${i + 1}.example.net with ESMTP id ${i}; Mon, 1 Jun 2026 10:${minute}:00 +0000`,
    );
  }
  return `${lines.join('\r\n')}\r\nFrom: a@example.org\r\nDate: Mon, 1 Jun 2026 10:00:00 +0000\r\nMessage-ID: <x@example.org>\r\n`;
}

let server: ZoneServer;
let t: TestApp;
let key: string;

beforeAll(async () => {
  server = await startZoneServer({
    '_dmarc.ggg.com': [{ type: 'TXT', data: 'v=DMARC1; p=quarantine; sp=reject' }],
    '_dmarc.example.org': [{ type: 'TXT', data: 'v=DMARC1; p=none; sp=reject' }],
  });
  t = await createTestApp('sqlite', { config: { dnsServers: server.servers }, enrichIp });
  key = await t.key({ permissions: ['email:read'] });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const post = (
  url: string,
  payload: string | Buffer,
  options: { key?: string | null; type?: string | null } = {},
) => {
  const headers: Record<string, string> = {};
  const type = options.type === undefined ? 'application/json' : options.type;
  if (type !== null) headers['content-type'] = type;
  const k = options.key === undefined ? key : options.key;
  if (k !== null) headers['x-api-key'] = k;
  return t.app.http.inject({ method: 'POST', url, headers, payload });
};
const PUBLIC = '/v1/public/tools/header-analyzer';
const KEYED = '/v1/tools/header-analyzer';

describe('POST /v1/public/tools/header-analyzer and /v1/tools/header-analyzer', () => {
  it('answers the documented example request with the documented authentication facts', async () => {
    // The example once showed dkim_result "absent" next to dkim_verdict "pass" (issue 19).
    const res = await post(KEYED, JSON.stringify(analyzeHeadersExample.request));
    expect(res.statusCode).toBe(200);
    const example = analyzeHeadersExample.response as { authentication: Record<string, unknown> };
    expect(res.json().data.authentication).toEqual(example.authentication);
  });

  it('analyzes a real sample: hops, origin, authentication, enrichment, DMARC policy on the public route', async () => {
    enrichedIps.length = 0;
    const res = await post(PUBLIC, JSON.stringify({ headers: SAMPLE }), { key: null });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.received_chain).toHaveLength(2);
    expect(data.infrastructure.origin_ip).toBe('172.22.22.61');
    expect(data.infrastructure.origin_public_ip).toBe('66.202.209.213');
    expect(data.infrastructure.from_domain).toBe('ggg.com');
    expect(data.authentication.spf_result).toBe('pass');
    expect(data.authentication.dkim_domain).toBe('ggg.com');
    expect(data.authentication.dkim_selector).toBe('profi');
    expect(data.authentication.dmarc_policy).toBe('quarantine');
    // The private first hop is not enriched; the public relay is.
    expect(enrichedIps).toEqual(['66.202.209.213']);
    const relay = data.received_chain.find((h: { from_ip: string }) => h.from_ip === '66.202.209.213');
    expect(relay).toMatchObject({ asn: 64500, asn_name: 'TEST-AS', country: 'ZZ', threat_score: 7 });
    const local = data.received_chain.find((h: { from_ip: string }) => h.from_ip === '172.22.22.61');
    expect(local).toMatchObject({ asn: null, country: null, threat_score: null });

    const keyed = await post(KEYED, JSON.stringify({ headers: SAMPLE }));
    expect(keyed.statusCode).toBe(200);
    expect(keyed.json().data.authentication).not.toHaveProperty('dmarc_policy');
    expect(keyed.json().data.received_chain).toEqual(data.received_chain);
  });

  it('applies the organizational domain sp= to a subdomain From, and null for an unknown domain', async () => {
    const sub = SAMPLE.replace(/^From: (.*)<noreply@ggg\.com>/m, 'From: $1<noreply@news.ggg.com>');
    expect(sub).not.toBe(SAMPLE);
    const res = await post(PUBLIC, JSON.stringify({ headers: sub }), { key: null });
    expect(res.json().data.infrastructure.from_domain).toBe('news.ggg.com');
    expect(res.json().data.authentication.dmarc_policy).toBe('reject');
    const unknown = SAMPLE.replace(/^From: (.*)<noreply@ggg\.com>/m, 'From: $1<noreply@unknown-domain.com>');
    expect(
      (await post(PUBLIC, JSON.stringify({ headers: unknown }), { key: null })).json().data.authentication
        .dmarc_policy,
    ).toBeNull();
  });

  it('enriches at most 20 hops (the 20 nearest the recipient), once per IP', async () => {
    enrichedIps.length = 0;
    const res = await post(KEYED, JSON.stringify({ headers: manyHops(25) }));
    expect(res.statusCode).toBe(200);
    const chain = res.json().data.received_chain as Array<{ from_ip: string; asn: number | null }>;
    expect(chain).toHaveLength(25);
    expect(enrichedIps).toHaveLength(20);
    expect(new Set(enrichedIps).size).toBe(20);
    expect(chain.slice(0, 5).every((h) => h.asn === null)).toBe(true);
    expect(chain.slice(5).every((h) => h.asn === 64500)).toBe(true);
    expect(res.json().data.anomalies.join(' ')).toMatch(/20/);
  });

  it('limits: headers over 49152 bytes → HEADERS_TOO_LARGE; body over 64 KiB → 413', async () => {
    const atLimit = `Subject: x\r\n${'X-Pad: '.padEnd(49152 - 12, 'p')}`;
    expect(Buffer.byteLength(atLimit)).toBe(49152);
    expect((await post(KEYED, JSON.stringify({ headers: atLimit }))).statusCode).toBe(200);
    const over = await post(KEYED, JSON.stringify({ headers: `${atLimit}p` }));
    expect(over.statusCode).toBe(400);
    expect(over.json().data.code).toBe('HEADERS_TOO_LARGE');
    // Multi-byte characters count as bytes: 16385 × 3 bytes > 49152 although under 49152 characters.
    const wide = await post(KEYED, JSON.stringify({ headers: `Subject: ${'€'.repeat(16385)}` }));
    expect(wide.json().data.code).toBe('HEADERS_TOO_LARGE');
    const huge = await post(PUBLIC, JSON.stringify({ headers: 'a'.repeat(70_000) }), { key: null });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().data.code).toBe('PAYLOAD_TOO_LARGE');
    const justOver = await post(KEYED, `{"headers":"${'a'.repeat(64 * 1024 - 13)}"}`);
    expect(justOver.statusCode).toBe(413);
  });

  it('missing or blank headers → MISSING_HEADERS', async () => {
    for (const body of [
      '{}',
      '{"headers":""}',
      '{"headers":"  \\r\\n "}',
      '{"headers":null}',
      '{"other":"x"}',
    ]) {
      const res = await post(KEYED, body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json().data.code, body).toBe('MISSING_HEADERS');
    }
  });

  it('hostile bodies → INVALID_BODY, never a 5xx', async () => {
    const cases: Array<[string | Buffer, string | null]> = [
      ['{"headers": 42}', 'application/json'],
      ['{"headers": ["Received: x"]}', 'application/json'],
      ['{"headers": {"a": 1}}', 'application/json'],
      ['{"headers": true}', 'application/json'],
      ['[]', 'application/json'],
      ['"Received: from x"', 'application/json'],
      ['null', 'application/json'],
      ['{"headers": "x"', 'application/json'],
      ['not json at all', 'application/json'],
      ['', 'application/json'],
      [Buffer.from([0xff, 0xfe, 0x00, 0x7b]), 'application/json'],
      ['Received: from x', 'text/plain'],
      ['headers=Received', 'application/x-www-form-urlencoded'],
      ['{"headers":"Received: x"}', null],
    ];
    for (const [payload, type] of cases) {
      const res = await post(KEYED, payload, { type });
      const label = `${type} ${String(payload).slice(0, 30)}`;
      expect(res.statusCode, label).toBe(400);
      expect(res.json().data.code, label).toBe('INVALID_BODY');
    }
  });

  it('junk that is a string is analyzed, not rejected', async () => {
    const junk = '\u0000\u00ff Received: ((( \r\n\tby ; ;\r\nReceived:\r\n\r\nbody';
    const res = await post(KEYED, JSON.stringify({ headers: junk }));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.anomalies.length).toBeGreaterThan(0);
  });

  it('the keyed alias needs an email:read key; the public route none', async () => {
    expect((await post(KEYED, JSON.stringify({ headers: SAMPLE }), { key: null })).statusCode).toBe(401);
    const bare = await t.key({ permissions: ['ip:read'] });
    expect((await post(KEYED, JSON.stringify({ headers: SAMPLE }), { key: bare })).statusCode).toBe(403);
    expect(
      (await post(PUBLIC, JSON.stringify({ headers: SAMPLE }), { key: null })).headers['x-ratelimit-limit'],
    ).toBe('60');
  });
});

describe('header analyzer without enrichment or DNS', () => {
  it('answers null enrichment fields and a null DMARC policy when DNS fails', async () => {
    const bare = await createTestApp('sqlite');
    try {
      const res = await bare.app.http.inject({
        method: 'POST',
        url: PUBLIC,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ headers: SAMPLE }),
      });
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(
        data.received_chain.every(
          (h: { asn: unknown; threat_score: unknown }) => h.asn === null && h.threat_score === null,
        ),
      ).toBe(true);
      expect(data.authentication.dmarc_policy).toBeNull();
    } finally {
      await bare.close();
    }
  });
});

describe('every result the headers show (issue 31)', () => {
  const ARCBAD = readFileSync(sharedDataPath('email/messages/rspamd-arcbad.eml'), 'utf8').split(
    /\r?\n\r?\n/,
    1,
  )[0];

  it('answers both dkim= results, every A-R header with its trust and the ARC chain; /openapi.json describes them', async () => {
    const res = await post(KEYED, JSON.stringify({ headers: ARCBAD }));
    expect(res.statusCode).toBe(200);
    const a = res.json().data.authentication;
    expect(a.dkim_results.map((d: { result: string; domain: string }) => `${d.result} ${d.domain}`)).toEqual([
      'pass freebsd.org',
      'fail outlook.com',
    ]);
    expect(
      a.authentication_results.map((h: { authserv_id: string; trusted: boolean }) => [
        h.authserv_id,
        h.trusted,
      ]),
    ).toEqual([['mail.highsecure.ru', true]]);
    expect(a.trust_source).toBe('topmost');
    expect([a.arc.instances, a.arc.seals.length, a.arc.verdict]).toEqual([1, 2, 'none']);
    expect(a.arc.chain_problem).toBe('instance i=1 has 2 ARC-Seal headers');

    const doc = (await t.app.http.inject({ method: 'GET', url: '/openapi.json' })).json();
    const text = JSON.stringify(doc);
    for (const field of [
      'dkim_results',
      'authentication_results',
      'chain_problem',
      'trust_source',
      'dkim_signatures',
    ])
      expect(text).toContain(`"${field}"`);
    expect(text).toContain('NETREP_TRUSTED_AUTHSERV_IDS');
  });

  it('trusts exactly the authserv-ids of NETREP_TRUSTED_AUTHSERV_IDS when it is set', async () => {
    const configured = await createTestApp('sqlite', {
      config: { dnsServers: server.servers, trustedAuthservIds: ['mx1.freebsd.org'] },
    });
    try {
      const res = await configured.app.http.inject({
        method: 'POST',
        url: PUBLIC,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ headers: ARCBAD }),
      });
      expect(res.statusCode).toBe(200);
      const a = res.json().data.authentication;
      expect(a.trust_source).toBe('configured');
      expect(a.authentication_results[0]).toMatchObject({
        authserv_id: 'mail.highsecure.ru',
        trusted: false,
      });
      expect(a.authserv_id_trusted).toBe(false);
      expect(a.dkim_results.every((d: { trusted: boolean }) => !d.trusted)).toBe(true);
    } finally {
      await configured.close();
    }
  });
});
