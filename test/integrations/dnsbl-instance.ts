/**
 * A running netrep instance serving its DNSBL zone on a loopback port, as a mail filter sees it:
 * listings are added and removed through the admin HTTP API over the real socket, and the filter
 * asks the DNS listener (UDP and TCP on one port) directly, as its resolver would. `list` and
 * `delist` return once the listener answers the change (the API-to-DNS path has tests of its own
 * in test/dnsbl), so what a test then sees is the filter's doing.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { ipToQueryName } from '../../src/dnsbl/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/** The zone the README snippets name: NETREP_DNSBL_ZONE's default. */
export const ZONE = 'bl.netrep.test';

export interface ListingBody {
  ip: string;
  type: 'spam' | 'malware' | 'phishing';
  reason: string;
  return_code?: string;
}

export interface DnsblInstance {
  /** The HTTP base URL (the TXT answers link to it). */
  url: string;
  /** The DNS listener's port on 127.0.0.1 (UDP and TCP). */
  dnsPort: number;
  /** The TXT text the zone serves for `ip` (the reason and lookup link a filter quotes). */
  txt(ip: string): Promise<string>;
  list(body: ListingBody): Promise<void>;
  delist(ip: string): Promise<void>;
  close(): Promise<void>;
}

/** `dnsListen`: host:port of the DNS listener (default a free port on 127.0.0.1). */
export async function startDnsblInstance(dnsListen = '127.0.0.1:0'): Promise<DnsblInstance> {
  const t: TestApp = await createTestApp('sqlite', {
    config: { dnsblListen: dnsListen, dnsblZone: ZONE },
  });
  const url = await t.app.listen();
  const dnsPort = t.app.dnsbl?.udpPort;
  if (!dnsPort) throw new Error('the DNSBL listener did not start');
  const admin = await t.key({ permissions: ['admin'] });
  const call = async (method: 'POST' | 'DELETE', path: string, body?: ListingBody) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': admin, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  };
  const host = dnsListen.slice(0, dnsListen.lastIndexOf(':'));
  const ask = (ip: string, type: 'A' | 'TXT') => query(host, dnsPort, ipToQueryName(ip, ZONE) ?? '', type);
  const answered = async (ip: string, listed: boolean) => {
    const deadline = Date.now() + 5000;
    while ((await ask(ip, 'A')).length > 0 !== listed) {
      if (Date.now() > deadline) throw new Error(`${ip}: the DNS listener did not answer the change in 5 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    url,
    dnsPort,
    txt: async (ip) => {
      const [txt] = await ask(ip, 'TXT');
      if (txt === undefined) throw new Error(`no TXT record for ${ip}`);
      return txt;
    },
    list: async (body) => {
      await call('POST', '/v1/admin/blocklist/listings', body);
      await answered(body.ip, true);
    },
    delist: async (ip) => {
      await call('DELETE', `/v1/admin/blocklist/listings/${ip}`);
      await answered(ip, false);
    },
    close: () => t.close(),
  };
}

/** One query over UDP to the instance's listener: the answers of that type (TXT strings joined). */
async function query(host: string, port: number, name: string, type: 'A' | 'TXT'): Promise<string[]> {
  const socket = dgram.createSocket('udp4');
  try {
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for ${name} ${type}`)), 2000);
      socket.once('message', (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      socket.send(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type }] }), port, host);
    });
    return (dnsPacket.decode(reply).answers ?? [])
      .filter((a) => a.type === type)
      .map((a) => {
        const data = (a as { data: Buffer | Buffer[] | string | string[] }).data;
        return (Array.isArray(data) ? data : [data]).map((d) => d.toString()).join('');
      });
  } finally {
    socket.close();
  }
}
