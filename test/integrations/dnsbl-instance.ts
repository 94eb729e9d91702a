/**
 * A running netrep instance serving its DNSBL zone on a loopback port, as a mail filter sees it:
 * listings are added and removed through the admin HTTP API over the real socket, and the filter
 * asks the DNS listener (UDP and TCP on one port) directly, as its resolver would.
 */
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
  return {
    url,
    dnsPort,
    list: (body) => call('POST', '/v1/admin/blocklist/listings', body),
    delist: (ip) => call('DELETE', `/v1/admin/blocklist/listings/${ip}`),
    close: () => t.close(),
  };
}
