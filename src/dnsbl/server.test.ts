import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from '../../test/helpers/dnsbl-tools.ts';
import { UDP_PATHS } from '../../test/helpers/udp-paths.ts';
import { createManualClock } from '../core/clock.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName } from './query-name.ts';
import { type DnsblServer, parseListen, startDnsblServer } from './server.ts';

const ZONE = 'bl.netrep.test';
const url = (ip: string) => `http://127.0.0.1:8080/v1/public/blocklist/ip/${ip}`;
const qn = (ip: string) => ipToQueryName(ip, ZONE) as string;

describe.each(UDP_PATHS)('DNSBL server over UDP and TCP (dig; UDP through $name)', ({ batchedUdp }) => {
  const index = createListingIndex([
    { ip: '192.0.2.10', returnCode: '127.0.0.3', reason: 'malware C2' },
    { ip: '2001:db8::25', returnCode: '127.0.0.4', reason: 'phishing kit' },
    { ip: '198.51.100.7', returnCode: '127.0.0.2', reason: 'x'.repeat(1500) },
  ]);
  let server: DnsblServer;
  beforeAll(async () => {
    server = await startDnsblServer({
      batchedUdp,
      zone: ZONE,
      listen: '127.0.0.1:0',
      index,
      lookupUrl: url,
      clock: createManualClock('2026-06-01T00:00:00Z'),
      ns: ['ns1.netrep.test', 'ns2.netrep.test'],
    });
  });
  afterAll(() => server.close());

  it('binds UDP and TCP on the same ephemeral port', () => {
    expect(server.udpPort).toBeGreaterThan(0);
    expect(server.tcpPort).toBe(server.udpPort);
    expect(server.address).toBe('127.0.0.1');
  });

  for (const tcp of [false, true]) {
    const extra = tcp ? ['+tcp'] : [];
    const via = tcp ? 'TCP' : 'UDP';

    it(`answers A and TXT for a listed IPv4 address over ${via}`, async () => {
      const a = await dig(server.udpPort, qn('192.0.2.10'), 'A', extra);
      expect(a.status).toBe('NOERROR');
      expect(a.flags).toContain('aa');
      expect(a.answers).toEqual([{ name: `10.2.0.192.${ZONE}.`, ttl: 60, type: 'A', data: '127.0.0.3' }]);
      const t = await dig(server.udpPort, qn('192.0.2.10'), 'TXT', extra);
      expect(t.answers.map((r) => r.data)).toEqual([`"malware C2; ${url('192.0.2.10')}"`]);
    });

    it(`answers NXDOMAIN with the SOA for an unlisted address over ${via}`, async () => {
      const a = await dig(server.udpPort, qn('192.0.2.11'), 'A', extra);
      expect(a.status).toBe('NXDOMAIN');
      expect(a.flags).toContain('aa');
      expect(a.answers).toEqual([]);
      expect(a.authority.map((r) => [r.name, r.type])).toEqual([[`${ZONE}.`, 'SOA']]);
    });

    it(`answers IPv6 nibble names (RFC 5782 §2.4) over ${via}`, async () => {
      const a = await dig(server.udpPort, qn('2001:db8::25'), 'A', extra);
      expect(a.answers.map((r) => r.data)).toEqual(['127.0.0.4']);
      const t = await dig(server.udpPort, qn('2001:db8::25'), 'TXT', extra);
      expect(t.answers.map((r) => r.data)).toEqual([`"phishing kit; ${url('2001:db8::25')}"`]);
      expect((await dig(server.udpPort, qn('2001:db8::26'), 'A', extra)).status).toBe('NXDOMAIN');
    });

    it(`serves the RFC 5782 §5 test entries over ${via}`, async () => {
      const listed = await dig(server.udpPort, `2.0.0.127.${ZONE}`, 'A', extra);
      expect(listed.answers.map((r) => r.data)).toEqual(['127.0.0.2']);
      expect((await dig(server.udpPort, `1.0.0.127.${ZONE}`, 'A', extra)).status).toBe('NXDOMAIN');
      const v6 = `2.0.0.0.0.0.f.7.f.f.f.f.${'0.'.repeat(20)}${ZONE}`;
      expect((await dig(server.udpPort, v6, 'A', extra)).answers.map((r) => r.data)).toEqual(['127.0.0.2']);
      const v6none = `1.0.0.0.0.0.f.7.f.f.f.f.${'0.'.repeat(20)}${ZONE}`;
      expect((await dig(server.udpPort, v6none, 'A', extra)).status).toBe('NXDOMAIN');
    });

    it(`answers SOA and NS at the apex over ${via}`, async () => {
      const soa = await dig(server.udpPort, ZONE, 'SOA', extra);
      expect(soa.status).toBe('NOERROR');
      expect(soa.flags).toContain('aa');
      const serial = Math.floor(Date.parse('2026-06-01T00:00:00Z') / 1000);
      expect(soa.answers[0]?.data).toBe(`ns1.netrep.test. hostmaster.${ZONE}. ${serial} 3600 600 604800 60`);
      const ns = await dig(server.udpPort, ZONE, 'NS', extra);
      expect(ns.answers.map((r) => r.data).sort()).toEqual(['ns1.netrep.test.', 'ns2.netrep.test.']);
      const mx = await dig(server.udpPort, ZONE, 'MX', extra);
      expect(mx.status).toBe('NOERROR');
      expect(mx.answers).toEqual([]);
      expect(mx.authority.map((r) => r.type)).toEqual(['SOA']);
    });

    it(`refuses names outside the zone over ${via}`, async () => {
      const r = await dig(server.udpPort, 'example.com', 'A', extra);
      expect(r.status).toBe('REFUSED');
      expect(r.flags).not.toContain('aa');
      expect((await dig(server.udpPort, `x${ZONE}`, 'A', extra)).status).toBe('REFUSED');
    });
  }

  it('matches names case-insensitively and keeps the asker’s case (0x20)', async () => {
    const r = await dig(server.udpPort, `10.2.0.192.Bl.NeTrEp.TeSt`, 'A');
    expect(r.answers).toEqual([
      { name: '10.2.0.192.Bl.NeTrEp.TeSt.', ttl: 60, type: 'A', data: '127.0.0.3' },
    ]);
  });

  it('answers NXDOMAIN for too few or too many labels and for bad labels', async () => {
    for (const name of [
      `2.0.127.${ZONE}`,
      `1.2.0.0.127.${ZONE}`,
      `02.0.0.127.${ZONE}`,
      `256.0.0.1.${ZONE}`,
      `a.b.c.d.${ZONE}`,
    ]) {
      const r = await dig(server.udpPort, name, 'A');
      expect(r.status, name).toBe('NXDOMAIN');
      expect(r.authority.map((x) => x.type)).toEqual(['SOA']);
    }
  });

  it('answers NODATA for other types of a listed name, ANY with A and TXT', async () => {
    const mx = await dig(server.udpPort, qn('192.0.2.10'), 'MX');
    expect(mx.status).toBe('NOERROR');
    expect(mx.answers).toEqual([]);
    const any = await dig(server.udpPort, qn('192.0.2.10'), 'ANY');
    expect(any.answers.map((r) => r.type).sort()).toEqual(['A', 'TXT']);
  });

  it('sets TC for an answer too big for UDP; dig retries over TCP and gets it all', async () => {
    const trunc = await dig(server.udpPort, qn('198.51.100.7'), 'TXT', ['+noedns', '+ignore']);
    expect(trunc.flags).toContain('tc');
    expect(trunc.answers).toEqual([]);
    const full = await dig(server.udpPort, qn('198.51.100.7'), 'TXT', ['+noedns']);
    expect(full.raw).toContain('(TCP)');
    expect(full.answers).toHaveLength(1);
    expect(full.answers[0]?.data.replace(/" "/g, '')).toBe(`"${'x'.repeat(1500)}; ${url('198.51.100.7')}"`);
  });

  it('shows an index change on the next query', async () => {
    const name = qn('203.0.113.9');
    expect((await dig(server.udpPort, name, 'A')).status).toBe('NXDOMAIN');
    index.set('203.0.113.9', { returnCode: '127.0.0.4', reason: 'phishing' });
    expect((await dig(server.udpPort, name, 'A')).answers.map((r) => r.data)).toEqual(['127.0.0.4']);
    index.set('203.0.113.9', { returnCode: '127.0.0.3', reason: 'malware' });
    expect((await dig(server.udpPort, name, 'A', ['+tcp'])).answers.map((r) => r.data)).toEqual([
      '127.0.0.3',
    ]);
    index.delete('203.0.113.9');
    expect((await dig(server.udpPort, name, 'A')).status).toBe('NXDOMAIN');
  });

  it('answers EDNS version 1 with BADVERS', async () => {
    const r = await dig(server.udpPort, qn('192.0.2.10'), 'A', ['+edns=1', '+noednsneg']);
    expect(r.status).toBe('BADVERS');
  });

  it('answers NOTIMP for a non-QUERY opcode and FORMERR for garbage; drops responses', async () => {
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    const ask = (buf: Buffer) =>
      new Promise<Buffer | null>((resolve) => {
        const t = setTimeout(() => resolve(null), 300);
        sock.once('message', (m) => {
          clearTimeout(t);
          resolve(m);
        });
        sock.send(buf, server.udpPort, '127.0.0.1');
      });
    // OPCODE 4 is NOTIFY (RFC 1996).
    const notify = dnsPacket.encode({
      type: 'query',
      id: 7,
      flags: 4 << 11,
      questions: [{ name: ZONE, type: 'SOA' }],
    });
    const n = await ask(notify);
    expect(n?.readUInt16BE(0)).toBe(7);
    expect((n?.readUInt16BE(2) ?? 0) & 0xf).toBe(4);
    const garbage = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0x3f, 0x61]);
    const g = await ask(garbage);
    expect(g?.readUInt16BE(0)).toBe(0x1234);
    expect((g?.readUInt16BE(2) ?? 0) & 0xf).toBe(1);
    // Header counts the message cannot hold (65,535 of each section): FORMERR, as for garbage.
    const question = dnsPacket.encode({
      type: 'query',
      id: 0x4242,
      questions: [{ name: qn('192.0.2.10'), type: 'A' }],
    });
    for (const at of [4, 6, 8, 10]) {
      const claims = Buffer.from(question);
      claims.writeUInt16BE(0xffff, at);
      const c = await ask(claims);
      expect([at, c?.readUInt16BE(0), (c?.readUInt16BE(2) ?? 0) & 0xf]).toEqual([at, 0x4242, 1]);
    }
    const response = dnsPacket.encode({
      type: 'response',
      id: 9,
      questions: [{ name: qn('192.0.2.10'), type: 'A' }],
    });
    expect(await ask(response)).toBeNull();
    expect(await ask(Buffer.from([1, 2, 3]))).toBeNull();
    sock.close();
  });

  it('answers several pipelined queries on one TCP connection, split across writes', async () => {
    const frames = ['192.0.2.10', '192.0.2.11', '2001:db8::25'].map((ip, i) => {
      const m = dnsPacket.encode({ type: 'query', id: 100 + i, questions: [{ name: qn(ip), type: 'A' }] });
      const f = Buffer.alloc(2 + m.length);
      f.writeUInt16BE(m.length, 0);
      m.copy(f, 2);
      return f;
    });
    const all = Buffer.concat(frames);
    const answers = await new Promise<dnsPacket.DecodedPacket[]>((resolve, reject) => {
      const s = net.connect(server.tcpPort, '127.0.0.1');
      let got = Buffer.alloc(0);
      const out: dnsPacket.DecodedPacket[] = [];
      s.on('error', reject);
      s.on('data', (d) => {
        got = Buffer.concat([got, d]);
        while (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
          out.push(dnsPacket.decode(got.subarray(2, 2 + got.readUInt16BE(0))));
          got = got.subarray(2 + got.readUInt16BE(0));
        }
        if (out.length === 3) {
          s.end();
          resolve(out);
        }
      });
      // One byte, then the rest in two uneven pieces: framing must not depend on write boundaries.
      s.write(all.subarray(0, 1));
      setTimeout(() => s.write(all.subarray(1, 40)), 20);
      setTimeout(() => s.write(all.subarray(40)), 40);
    });
    expect(answers.map((a) => a.id)).toEqual([100, 101, 102]);
    expect(answers.map((a) => (a.flags ?? 0) & 0xf)).toEqual([0, 3, 0]);
  });

  it('closes a TCP connection that stalls mid-frame (slowloris)', async () => {
    const s2 = await startDnsblServer({
      zone: ZONE,
      listen: '127.0.0.1:0',
      index,
      lookupUrl: url,
      tcp: { frameTimeoutMs: 150, idleTimeoutMs: 300, maxConnections: 2 },
    });
    try {
      const closedAfter = (write: Buffer | null) =>
        new Promise<number>((resolve) => {
          const started = Date.now();
          const s = net.connect(s2.tcpPort, '127.0.0.1', () => {
            if (write) s.write(write);
          });
          s.on('error', () => undefined);
          s.on('close', () => resolve(Date.now() - started));
        });
      const partial = await closedAfter(Buffer.from([0, 40, 1, 2, 3]));
      expect(partial).toBeLessThan(1000);
      const idle = await closedAfter(null);
      expect(idle).toBeGreaterThanOrEqual(250);
      expect(idle).toBeLessThan(1500);
      // Still answering afterwards.
      expect((await dig(s2.tcpPort, qn('192.0.2.10'), 'A', ['+tcp'])).answers).toHaveLength(1);
    } finally {
      await s2.close();
    }
  });

  it('rejects a listen address that is not host:port', () => {
    expect(parseListen('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(parseListen('[::1]:53')).toEqual({ host: '::1', port: 53 });
    for (const bad of ['localhost:53', '127.0.0.1', '127.0.0.1:70000', ':53']) {
      expect(() => parseListen(bad), bad).toThrow();
    }
  });
});
