/**
 * The scanner against real servers on 127.0.0.1 (issue #34 "Done when"): a certificate naming an
 * organisation, self-signed and expired ones, a server that never answers, one that trickles,
 * one that sends a 10 MB title, one that redirects, a non-HTTP service, a TLS port that speaks
 * plain HTTP and a closed port. The fields are right or null with the reason, and every limit
 * holds (deadline, byte cap, no redirect followed, one request per port).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closedPort,
  makeCerts,
  respond,
  type ScriptedServer,
  scriptedServer,
  type TestCerts,
} from '../../test/helpers/scan-servers.ts';
import { MAX_READ_BYTES, type ScannerSettings, scanAddress } from './scanner.ts';
import { TITLE_MAX } from './title.ts';
import type { ScanPort } from './types.ts';

const UA = 'netrep-scan/0.0.0 (+mailto:ops@example.test)';
const clock = () => Date.now();

describe('scanAddress on 127.0.0.1', () => {
  let certs: TestCerts;
  const servers: ScriptedServer[] = [];
  const serve = async (script: Parameters<typeof scriptedServer>[0]) => {
    const s = await scriptedServer(script);
    servers.push(s);
    return s;
  };
  const settings = (ports: ScanPort[], extra: Partial<ScannerSettings> = {}): ScannerSettings => ({
    ports,
    connectTimeoutMs: 2000,
    deadlineMs: 4000,
    userAgent: UA,
    ca: [certs.ca],
    ...extra,
  });
  const page = (socket: import('node:net').Socket) =>
    respond(
      socket,
      '200 OK',
      { Server: 'TestServer/1.0', 'Content-Type': 'text/html' },
      '<html><head><title>\n  Caf&eacute; &amp; Bar &#x2014; &lt;home&gt;  </title></head></html>',
    );

  beforeAll(() => {
    certs = makeCerts();
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('reads the organisation, names and validity of a certificate, the Server header and the title', async () => {
    const https = await serve({ tlsOptions: certs.org, onRequest: page });
    const http = await serve({ onRequest: page });
    const r = await scanAddress(
      '127.0.0.1',
      settings([
        { port: https.port, protocol: 'tls' },
        { port: http.port, protocol: 'http' },
      ]),
      clock,
    );
    expect(r.status).toBe('done');
    expect(r.tls_organization).toBe('Example Hosting Ltd');
    expect(r.service_server).toBe('TestServer/1.0');
    // Unknown named references stay as written; the numeric and XML ones are decoded.
    expect(r.service_title).toBe('Caf&eacute; & Bar — <home>');
    const tlsPort = r.ports[0];
    expect(tlsPort?.tls).toMatchObject({
      valid: true,
      reason: null,
      names: ['www.example.test', 'example.test'],
    });
    expect(r.ports.map((p) => p.outcome)).toEqual(['answered', 'answered']);
    // One request per port, naming netrep and the operator's contact.
    for (const s of [https, http]) {
      expect(s.connections).toBe(1);
      expect(s.received[0]).toMatch(/^GET \/ HTTP\/1\.0\r\n/);
      expect(s.received[0]).toContain(`User-Agent: ${UA}\r\n`);
    }
  });

  it('reads a self-signed and an expired certificate, and says why they are not valid', async () => {
    const self = await serve({ tlsOptions: certs.selfSigned, onRequest: page });
    const expired = await serve({ tlsOptions: certs.expired, onRequest: page });
    const a = await scanAddress('127.0.0.1', settings([{ port: self.port, protocol: 'tls' }]), clock);
    expect(a.tls_organization).toBe('Self Signed Org');
    expect(a.ports[0]?.tls).toMatchObject({ valid: false, reason: 'self-signed', names: ['self.test'] });
    const b = await scanAddress('127.0.0.1', settings([{ port: expired.port, protocol: 'tls' }]), clock);
    expect(b.tls_organization).toBe('Expired Org');
    expect(b.ports[0]?.tls).toMatchObject({
      valid: false,
      reason: 'expired',
      not_after: '2020-02-01T00:00:00.000Z',
    });
    // Without the test CA trusted, the organisation's certificate is still read, not valid.
    const org = await serve({ tlsOptions: certs.org, onRequest: page });
    const c = await scanAddress(
      '127.0.0.1',
      settings([{ port: org.port, protocol: 'tls' }], { ca: [] }),
      clock,
    );
    expect(c.tls_organization).toBe('Example Hosting Ltd');
    expect(c.ports[0]?.tls).toMatchObject({ valid: false, reason: 'unknown issuer' });
  });

  it('gives up on a server that never answers at the deadline', async () => {
    const silent = await serve({});
    const started = Date.now();
    const r = await scanAddress(
      '127.0.0.1',
      settings([{ port: silent.port, protocol: 'http' }], { deadlineMs: 600 }),
      clock,
    );
    const took = Date.now() - started;
    expect(r.status).toBe('failed');
    expect(r.ports[0]?.outcome).toBe('deadline');
    expect(r.reason).toMatch(/deadline of \d+ ms \(0 bytes read\)/);
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(5000);
  });

  it('stops a trickling server at the deadline, keeping what arrived', async () => {
    let timer: NodeJS.Timeout | undefined;
    const trickle = await serve({
      onRequest: (socket) => {
        socket.write('HTTP/1.1 200 OK\r\nServer: Slowpoke\r\n\r\n<title>');
        timer = setInterval(() => socket.writable && socket.write('a'), 50);
        socket.on('close', () => clearInterval(timer));
      },
    });
    const started = Date.now();
    const r = await scanAddress(
      '127.0.0.1',
      settings([{ port: trickle.port, protocol: 'http' }], { deadlineMs: 800 }),
      clock,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.ports[0]?.outcome).toBe('deadline');
    expect(r.status).toBe('done');
    expect(r.service_server).toBe('Slowpoke');
    expect(r.service_title).toMatch(/^a+$/);
    clearInterval(timer);
  });

  it('reads at most 64 KiB of a 10 MB title and closes the connection', async () => {
    let sent = 0;
    let cut = false;
    const huge = await serve({
      onRequest: (socket) => {
        socket.write('HTTP/1.1 200 OK\r\nServer: Big\r\n\r\n<title>');
        // 10 MB in 16 KiB pieces, each after the last was taken: a reader that stops cuts it short.
        const chunk = 'x'.repeat(16 * 1024);
        const push = () => {
          while (sent < 10 * 1024 * 1024) {
            if (socket.destroyed) return;
            sent += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', push);
          }
          socket.end();
        };
        socket.on('close', () => {
          cut = sent < 10 * 1024 * 1024;
        });
        push();
      },
    });
    const r = await scanAddress('127.0.0.1', settings([{ port: huge.port, protocol: 'http' }]), clock);
    expect(r.ports[0]).toMatchObject({ outcome: 'answered', truncated: true, server: 'Big' });
    expect(r.service_title).toHaveLength(TITLE_MAX);
    for (let i = 0; i < 50 && !cut; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    // The socket was destroyed: the server could not push the 10 MB through.
    expect(cut).toBe(true);
    expect(huge.connections).toBe(1);
    expect(MAX_READ_BYTES).toBe(65_536);
  });

  it('records a redirect and its host without following it', async () => {
    const redirect = await serve({
      onRequest: (socket) =>
        respond(
          socket,
          '301 Moved Permanently',
          { Location: 'https://elsewhere.example/next', Server: 'nginx' },
          '',
        ),
    });
    const r = await scanAddress('127.0.0.1', settings([{ port: redirect.port, protocol: 'http' }]), clock);
    expect(r.ports[0]).toMatchObject({
      status: 301,
      redirect_host: 'elsewhere.example',
      outcome: 'answered',
    });
    expect(r.service_server).toBe('nginx');
    expect(redirect.connections).toBe(1);
  });

  it('says not_http for a service that is not HTTP, tls_failed for plain text on a TLS port, and why a closed port failed', async () => {
    const ssh = await serve({ onConnect: (socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n') });
    const plain = await serve({ onRequest: page });
    const closed = await closedPort();
    const r = await scanAddress(
      '127.0.0.1',
      settings(
        [
          { port: ssh.port, protocol: 'http' },
          { port: closed, protocol: 'http' },
          { port: plain.port, protocol: 'tls' },
        ],
        { deadlineMs: 3000 },
      ),
      clock,
    );
    expect(r.ports.map((p) => p.outcome)).toEqual(['not_http', 'connect_refused', 'tls_failed']);
    expect(r.ports[0]?.server).toBeNull();
    expect(r.status).toBe('failed');
    expect(r.reason).toContain(`${closed}/http: ECONNREFUSED`);
    expect([r.service_title, r.service_server, r.tls_organization]).toEqual([null, null, null]);
  });

  it('bounds the whole scan by one deadline: a port it leaves no time for is not tried', async () => {
    const silent = await serve({});
    const other = await serve({ onRequest: page });
    const r = await scanAddress(
      '127.0.0.1',
      settings(
        [
          { port: silent.port, protocol: 'http' },
          { port: other.port, protocol: 'http' },
        ],
        { deadlineMs: 500 },
      ),
      clock,
    );
    expect(r.ports[1]?.detail).toMatch(/not tried/);
    expect(other.connections).toBe(0);
  });

  it('tries no port with less than 20 ms of the deadline left', async () => {
    const server = await serve({ onRequest: page });
    const r = await scanAddress(
      '127.0.0.1',
      settings([{ port: server.port, protocol: 'http' }], { deadlineMs: 19 }),
      clock,
    );
    expect(r.ports[0]?.detail).toBe("not tried: the scan's deadline of 19 ms had passed or left under 20 ms");
    expect(server.connections).toBe(0);
  });
});
