/**
 * The IP page's Services section (issue #34): the scan's three fields when a scan found them,
 * nothing while scanning is off or when nothing is known yet, escaped like every other fact.
 */
import { describe, expect, it } from 'vitest';
import { lookupIpPublicExample } from '../http/examples/ip.ts';
import type { IpAnswerExtended } from '../intel/index.ts';
import type { ScanAnswer } from '../scan/index.ts';
import { ipToolPage } from './ip-page.ts';

const base = lookupIpPublicExample.response as unknown as IpAnswerExtended & ScanAnswer;

describe('IP page: services', () => {
  it('shows the title, server and TLS organisation of a done scan, escaped', () => {
    const html = ipToolPage({
      ip: '8.8.8.8',
      answer: { ...base, service_title: 'Home <script>', tls_organization: 'Example & Co' },
    });
    expect(html).toContain('<h2 id="svc-h">Services</h2>');
    expect(html).toContain('<dd>Home &lt;script&gt;</dd>');
    expect(html).toContain('<dd>scaffolding on HTTPServer2</dd>');
    expect(html).toContain('<dd>Example &amp; Co</dd>');
    expect(html).toContain('Scanned 2026-11-26 09:14 UTC.');
  });

  it('says nothing while scanning is off or before anything is known', () => {
    const off: ScanAnswer = {
      scan: { status: 'disabled', scanned_at: null },
      service_title: null,
      service_server: null,
      tls_organization: null,
    };
    expect(ipToolPage({ ip: '8.8.8.8', answer: { ...base, ...off } })).not.toContain('Services');
    const pending = { ...off, scan: { status: 'pending' as const, scanned_at: null } };
    expect(ipToolPage({ ip: '8.8.8.8', answer: { ...base, ...pending } })).not.toContain('Services');
    const failed = { ...off, scan: { status: 'failed' as const, scanned_at: '2026-11-26T09:14:03.120Z' } };
    expect(ipToolPage({ ip: '8.8.8.8', answer: { ...base, ...failed } })).toContain(
      'No port answered the last scan.',
    );
  });
});
