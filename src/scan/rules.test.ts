/**
 * The scan's pure rules (issue #34): targets and ports, titles and responses, and what a stored
 * row answers at a given time.
 */
import { describe, expect, it } from 'vitest';
import { scanOnce, scanSettingsOf } from './index.ts';
import { locationHost, readResponse } from './response.ts';
import { keepFor, verdictOf } from './rules.ts';
import type { ScanRow } from './store.ts';
import { parseExcludeList, parsePorts, scanRefusal } from './target.ts';
import { decodeEntities, TITLE_MAX, titleOf } from './title.ts';

const row = (over: Partial<ScanRow>): ScanRow => ({
  ip: '198.51.100.1',
  status: 'done',
  queued_at: 0,
  lease_owner: null,
  lease_expires_at: null,
  scanned_at: 1000,
  expires_at: 5000,
  reason: null,
  report: JSON.stringify({ service_title: 'T', service_server: 'S', tls_organization: 'O' }),
  ...over,
});

describe('targets and ports', () => {
  const rules = { allowLoopback: false, exclude: parseExcludeList(['203.0.113.0/24', '2001:db8:1::/48']) };
  it('refuses non-public, mapped and excluded addresses; allows public unicast', () => {
    expect(scanRefusal('8.8.8.8', rules)).toBeNull();
    expect(scanRefusal('2a00:1450:4001::1', rules)).toBeNull();
    expect(scanRefusal('203.0.113.5', rules)).toMatch(/NETREP_SCAN_EXCLUDE/);
    expect(scanRefusal('::ffff:192.168.0.1', rules)).toMatch(/private/);
    expect(scanRefusal('2002:c0a8:0101::1', rules)).toMatch(/6to4.*192\.168\.1\.1/);
    expect(scanRefusal('127.0.0.1', rules)).toMatch(/loopback/);
    expect(scanRefusal('127.0.0.1', { ...rules, allowLoopback: true })).toBeNull();
    // The loopback setting opens loopback only.
    expect(scanRefusal('10.0.0.1', { ...rules, allowLoopback: true })).toMatch(/private/);
    expect(scanRefusal('not-an-ip', rules)).toMatch(/not an IP address/);
  });
  it('parses ports and refuses bad lists and bad CIDRs', () => {
    expect(parsePorts(['443', '80', '8443/tls', '8080/HTTP'])).toEqual([
      { port: 443, protocol: 'tls' },
      { port: 80, protocol: 'http' },
      { port: 8443, protocol: 'tls' },
      { port: 8080, protocol: 'http' },
    ]);
    expect(() => parsePorts(['0'])).toThrow(/NETREP_SCAN_PORTS/);
    expect(() => parsePorts(['70000'])).toThrow(/NETREP_SCAN_PORTS/);
    expect(() => parsePorts(['443/ssh'])).toThrow(/NETREP_SCAN_PORTS/);
    expect(() => parsePorts(['443', '443/tls'])).toThrow(/twice/);
    expect(() => parseExcludeList(['10.0.0.0/33'])).toThrow(/NETREP_SCAN_EXCLUDE/);
  });
});

describe('titles and responses', () => {
  it('decodes references, drops control characters and caps the length', () => {
    expect(decodeEntities('a &amp; b &#60;&#x3E; &nbsp;&bogus; &#0; &#xD800;')).toBe('a & b <>  &bogus;  ');
    expect(titleOf('<TITLE lang="en">\n  One\ttwo  </TITLE>')).toBe('One two');
    expect(titleOf('<title></title>')).toBeNull();
    expect(titleOf('<html>no title</html>')).toBeNull();
    expect(titleOf(`<title>${'é'.repeat(1000)}`)).toHaveLength(TITLE_MAX);
  });
  it('reads status, Server, a redirect host and a UTF-8 title; anything else is not HTTP', () => {
    const r = readResponse(
      Buffer.from(
        'HTTP/1.1 302 Found\r\nserver:  Apache \r\nLocation: //cdn.example.org/x\r\n\r\n<title>Bücher</title>',
      ),
    );
    expect(r).toEqual({
      http: true,
      status: 302,
      server: 'Apache',
      redirect_host: 'cdn.example.org',
      title: 'Bücher',
    });
    expect(readResponse(Buffer.from('SSH-2.0-OpenSSH\r\n')).http).toBe(false);
    expect(locationHost('/same/host')).toBeNull();
  });
});

describe('what a stored row answers', () => {
  it('fresh results answer; queued or running ones are pending; expired ones queue a rescan', () => {
    expect(verdictOf(null, 0)).toEqual({
      queue: true,
      answer: {
        scan: { status: 'pending', scanned_at: null },
        service_title: null,
        service_server: null,
        tls_organization: null,
      },
    });
    const done = verdictOf(row({}), 2000);
    expect(done.queue).toBe(false);
    expect(done.answer).toEqual({
      scan: { status: 'done', scanned_at: '1970-01-01T00:00:01.000Z' },
      service_title: 'T',
      service_server: 'S',
      tls_organization: 'O',
    });
    expect(
      verdictOf(row({ status: 'failed', reason: 'all ports refused', report: null }), 2000).answer.scan,
    ).toEqual({
      status: 'failed',
      scanned_at: '1970-01-01T00:00:01.000Z',
      reason: 'all ports refused',
    });
    expect(verdictOf(row({ status: 'running' }), 9000)).toMatchObject({
      queue: false,
      answer: { scan: { status: 'pending' } },
    });
    expect(verdictOf(row({}), 5000)).toMatchObject({
      queue: true,
      answer: { scan: { status: 'pending' }, service_title: 'T' },
    });
    expect(keepFor(row({}), 2000, 50, 60_000)).toBe(3000);
    expect(keepFor(row({ status: 'queued' }), 2000, 50, 60_000)).toBe(50);
  });
});

describe('the operator contact', () => {
  it('no scan goes out without NETREP_SCAN_CONTACT; a refused address needs none', async () => {
    const settings = scanSettingsOf(
      {
        scan: true,
        scanPorts: ['9/http'],
        scanExclude: [],
        scanContact: ' ',
        scanTtl: 60,
        scanRate: 1,
        scanAllowLoopback: true,
        scanConnectTimeoutMs: 100,
        scanDeadlineMs: 100,
      },
      '0.0.0',
    );
    await expect(scanOnce(settings, '127.0.0.1', () => 0)).rejects.toThrow(/NETREP_SCAN_CONTACT/);
    expect(await scanOnce(settings, '10.0.0.1', () => 0)).toEqual({
      refused: '10.0.0.1 is private address space',
    });
  });
});
