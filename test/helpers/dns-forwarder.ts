/**
 * A forwarding DNS resolver for tests, UDP on 127.0.0.1: each question goes to the upstream
 * whose zone suffix is the longest match (else to the default upstream), the answer comes back
 * as is. It stands in for a recursive resolver that reaches both the netrep DNSBL server and
 * other lists, so audit probes go through NETREP_DNS_SERVERS as in production.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface DnsForwarder {
  port: number;
  servers: string[];
  close(): Promise<void>;
}

export async function startDnsForwarder(options: {
  /** Zone suffix → upstream UDP port on 127.0.0.1. */
  routes: Record<string, number>;
  defaultPort: number;
}): Promise<DnsForwarder> {
  const server = dgram.createSocket('udp4');
  const upstream = dgram.createSocket('udp4');
  const pending = new Map<number, { port: number; address: string; id: number }>();
  let nextId = 1;
  await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', resolve));
  upstream.on('message', (msg) => {
    if (msg.length < 2) return;
    const key = msg.readUInt16BE(0);
    const client = pending.get(key);
    if (!client) return;
    pending.delete(key);
    const reply = Buffer.from(msg);
    reply.writeUInt16BE(client.id, 0);
    server.send(reply, client.port, client.address);
  });
  server.on('message', (msg, rinfo) => {
    let name = '';
    try {
      name = (dnsPacket.decode(msg).questions?.[0]?.name ?? '').toLowerCase();
    } catch {
      return;
    }
    const suffix = Object.keys(options.routes)
      .filter((z) => name === z || name.endsWith(`.${z}`))
      .sort((a, b) => b.length - a.length)[0];
    const port = suffix === undefined ? options.defaultPort : (options.routes[suffix] as number);
    const key = nextId;
    nextId = (nextId % 65535) + 1;
    pending.set(key, { port: rinfo.port, address: rinfo.address, id: msg.readUInt16BE(0) });
    const out = Buffer.from(msg);
    out.writeUInt16BE(key, 0);
    upstream.send(out, port, '127.0.0.1');
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    servers: [`127.0.0.1:${port}`],
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => upstream.close(() => r()));
    },
  };
}
