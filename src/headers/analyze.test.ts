import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/clock.ts';
import { analyzeHeaders, type HopEnrichment } from './index.ts';

const clock = createManualClock('2024-01-02T12:00:00Z');

function received(from: string, ip: string, by: string, date: string): string {
  return `Received: from ${from} (${from} [${ip}])\r\n\tby ${by} (Postfix) with ESMTP id X1\r\n\tfor <a@example.net>; ${date}\r\n`;
}

const BASE =
  received('relay.example.org', '203.0.113.9', 'mx.example.net', 'Tue, 2 Jan 2024 10:00:05 +0000') +
  received('client.example.org', '198.51.100.20', 'relay.example.org', 'Tue, 2 Jan 2024 10:00:00 +0000') +
  'From: =?UTF-8?B?w4lsaXNl?= <elise@example.org>\r\nDate: Tue, 2 Jan 2024 10:00:00 +0000\r\n' +
  'Message-ID: <1@example.org>\r\nX-Mailer: =?UTF-8?Q?M=C3=A9l?= 1.0\r\n\r\nbody: Received: from evil\r\n';

describe('analyzeHeaders', () => {
  it('orders hops first to last, with delays, and ignores the body', async () => {
    const a = await analyzeHeaders(BASE, { clock });
    expect(a.received_chain.map((h) => [h.from_ip, h.by_host, h.timestamp, h.delay])).toEqual([
      ['198.51.100.20', 'relay.example.org', '2024-01-02T10:00:00Z', null],
      ['203.0.113.9', 'mx.example.net', '2024-01-02T10:00:05Z', '5s'],
    ]);
    expect(a.infrastructure).toMatchObject({
      origin_ip: '198.51.100.20',
      from_domain: 'example.org',
      x_mailer: 'Mél 1.0',
    });
    expect(a.anomalies).toEqual([]);
  });

  it('reads LF-only and bare-CR input the same way', async () => {
    const crlf = await analyzeHeaders(BASE, { clock });
    expect(await analyzeHeaders(BASE.replaceAll('\r\n', '\n'), { clock })).toEqual(crlf);
    expect(await analyzeHeaders(BASE.replaceAll('\r\n', '\r'), { clock })).toEqual(crlf);
  });

  it('enriches public hop IPs only, once per IP, at most 20 hops nearest the recipient', async () => {
    const calls: string[] = [];
    const enrich = (ip: string): HopEnrichment => {
      calls.push(ip);
      return {
        asn: 64500,
        asn_name: 'EXAMPLE',
        country: 'NL',
        cloud_provider: null,
        connection_type: 'datacenter',
        threat_score: 5,
      };
    };
    let raw = '';
    for (let i = 0; i < 25; i++)
      raw += received(
        `h${i}.example.com`,
        `8.8.${i}.1`,
        `h${i + 1}.example.com`,
        `Tue, 2 Jan 2024 10:00:${String(59 - i).padStart(2, '0')} +0000`,
      );
    raw += received('lan.example.com', '10.0.0.1', 'h25.example.com', 'Tue, 2 Jan 2024 09:00:00 +0000');
    const a = await analyzeHeaders(raw, { clock, enrich });
    expect(a.received_chain).toHaveLength(26);
    expect(calls).toHaveLength(20);
    expect(a.received_chain[0]?.asn).toBeNull();
    expect(a.received_chain[25]).toMatchObject({ asn: 64500, country: 'NL', threat_score: 5 });
    expect(a.anomalies).toContain(
      'The message has 26 Received hops; only the 20 nearest the recipient were enriched.',
    );
  });

  it('survives an enrich function that throws, and omits dmarc_policy without a lookup', async () => {
    const a = await analyzeHeaders(BASE, {
      clock,
      enrich: () => {
        throw new Error('intel down');
      },
    });
    expect(a.received_chain[0]?.asn).toBeNull();
    expect('dmarc_policy' in a.authentication).toBe(false);
  });

  it('asks dmarcPolicy for the From domain', async () => {
    const asked: string[] = [];
    const a = await analyzeHeaders(BASE, {
      clock,
      dmarcPolicy: async (d) => {
        asked.push(d);
        return 'reject';
      },
    });
    expect(asked).toEqual(['example.org']);
    expect(a.authentication.dmarc_policy).toBe('reject');
  });

  it('flags negative delay, future hop, missing Date and Message-ID, misalignment, private to public', async () => {
    const raw =
      received('a.example.com', '203.0.113.1', 'mx.example.net', 'Tue, 2 Jan 2024 13:00:00 +0000') +
      received('b.example.com', '203.0.113.2', 'a.example.com', 'Tue, 2 Jan 2024 10:00:10 +0000') +
      received(
        'pc.home.example',
        '192.168.1.10',
        'smtp.other-isp.example',
        'Tue, 2 Jan 2024 10:00:20 +0000',
      ) +
      'From: <ceo@bank.example>\r\nReturn-Path: <bounce@bulk.example>\r\n' +
      'DKIM-Signature: v=1; a=rsa-sha256; d=bulk.example; s=s1; bh=x; b=y\r\n';
    const a = await analyzeHeaders(raw, { clock });
    expect(a.anomalies).toEqual([
      'Hop 1 (by smtp.other-isp.example): private address 192.168.1.10 handed the message to a public relay.',
      'Hop 2 (by a.example.com) is dated 10s before the hop that handed it the message; clocks may disagree or a Received header may be forged.',
      'Hop 3 (by mx.example.net) is dated 1h in the future.',
      'The message has no Date header.',
      'The message has no Message-ID header.',
      'The From domain bank.example is not aligned with the DKIM signing domain bulk.example.',
      'The From domain bank.example is not aligned with the Return-Path domain bulk.example.',
    ]);
    expect(a.received_chain[1]?.delay).toBe('-10s');
  });

  it('prefers the Authentication-Results of the receiving host over others', async () => {
    const raw =
      'Authentication-Results: forged.example; spf=pass smtp.mailfrom=x@a.example; dkim=pass header.d=a.example; dmarc=pass\r\n' +
      'Authentication-Results: mx.example.net; spf=softfail (not permitted) smtp.mailfrom=x@a.example;\r\n dkim=fail header.d=a.example; dmarc=fail (p=reject)\r\n' +
      received('a.example', '203.0.113.1', 'mx.example.net', 'Tue, 2 Jan 2024 10:00:00 +0000') +
      'Received-SPF: pass (forged)\r\nDKIM-Signature: v=1; d=a.example; s=sel;\r\n b=abc\r\n';
    const a = await analyzeHeaders(raw, { clock });
    expect(a.authentication).toMatchObject({
      spf_result: 'softfail',
      dkim_result: 'present',
      dkim_verdict: 'fail',
      dkim_selector: 'sel',
      dkim_domain: 'a.example',
      dmarc_result: 'fail',
      authserv_id: 'mx.example.net',
    });
  });

  it('falls back to Received-SPF, maps legacy words, passes neutral through', async () => {
    const spf = async (v: string) =>
      (await analyzeHeaders(`Received-SPF: ${v} (x) client-ip=203.0.113.1\r\n`, { clock })).authentication
        .spf_result;
    expect([
      await spf('Pass'),
      await spf('SoftFail'),
      await spf('Neutral'),
      await spf('error'),
      await spf('weird'),
    ]).toEqual(['pass', 'softfail', 'neutral', 'temperror', 'none']);
  });

  it('reads a pasted block with 8-bit junk, an mbox From line and lost fold indentation', async () => {
    const raw =
      'From MAILER-DAEMON Tue Jan  2 10:00:00 2024\n' +
      'Received: from x.example ([203.0.113.5]) by mx.example.net with ESMTP id 1;\n' +
      'Tue, 2 Jan 2024 10:00:00 +0000\n' +
      'Subject: caf\u00e9 \u00ff\u00fe\u0000junk\n' +
      'From: "\u00c9lise" <e@example.org>\n';
    const a = await analyzeHeaders(raw, { clock });
    expect(a.received_chain).toHaveLength(1);
    expect(a.received_chain[0]).toMatchObject({
      from_ip: '203.0.113.5',
      timestamp: '2024-01-02T10:00:00Z',
      parsed: true,
    });
    expect(a.infrastructure.from_domain).toBe('example.org');
  });
});
