/**
 * A minimal stub resolver for the one case c-ares cannot serve: names outside hostname syntax
 * that RFC 7208 §7.1 still allows in domain-specs ("foo:bar/baz.example.com", names with
 * spaces). c-ares refuses them before sending (EBADNAME); DNS itself carries any octets in a
 * label, so this sends the query with dns-packet over UDP (TCP when the answer is truncated)
 * to the same servers, with the same per-try timeout and tries, and maps failures to the same
 * DnsError classes. It is used only after c-ares says EBADNAME (see client.ts).
 */
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { parseIp } from '../ip.ts';
import type { MxAnswer } from './answers.ts';
import { DnsError, type DnsErrorCode } from './errors.ts';

export interface RawResults {
  TXT: string[][];
  MX: MxAnswer[];
  A: string[];
  AAAA: string[];
}
export type RawRecordType = keyof RawResults;

export interface RawQueryOptions {
  /** Servers as node:dns `getServers()` lists them: `ip`, `ip:port`, `[ipv6]:port`. */
  servers: readonly string[];
  timeoutMs: number;
  tries: number;
}

interface Server {
  host: string;
  port: number;
  family: 4 | 6;
}

/** RFC 1035 §4.1.1 RCODE values (the low four bits of the flags) → error classes. */
const RCODE_CLASS: Record<number, DnsErrorCode> = {
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  5: 'REFUSED',
};

function parseServer(entry: string): Server | null {
  const bracket = /^\[([^\]]+)\]:(\d+)$/.exec(entry);
  const v4port = /^([^:]+):(\d+)$/.exec(entry);
  const host = bracket?.[1] ?? v4port?.[1] ?? entry;
  const port = Number(bracket?.[2] ?? v4port?.[2] ?? 53);
  const ip = parseIp(host);
  if (!ip || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host: ip.address, port, family: ip.family };
}

/** RFC 1035 §2.3.4: labels of 1-63 octets, 255 octets on the wire. Any octet is allowed in a label. */
function encodable(name: string): boolean {
  const labels = name.split('.');
  let wire = 1;
  for (const label of labels) {
    const bytes = Buffer.byteLength(label, 'utf8');
    if (bytes === 0 || bytes > 63) return false;
    wire += bytes + 1;
  }
  return wire <= 255;
}

type Reply =
  | { kind: 'answer'; packet: dnsPacket.DecodedPacket }
  | { kind: 'timeout' }
  | { kind: 'unreachable' };

function matches(id: number, name: string, type: string, msg: Buffer): dnsPacket.DecodedPacket | null {
  try {
    const packet = dnsPacket.decode(msg);
    const q = packet.questions?.[0];
    if (packet.id !== id || packet.type !== 'response' || !q) return null;
    if (q.name.toLowerCase() !== name.toLowerCase() || q.type !== type) return null;
    return packet;
  } catch {
    return null;
  }
}

/** The first reply wins: it stops the timer, releases the socket and resolves; a timeout is a reply. */
function settleOnce(
  resolve: (reply: Reply) => void,
  timeoutMs: number,
  release: () => void,
): (reply: Reply) => void {
  let done = false;
  const finish = (reply: Reply) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    release();
    resolve(reply);
  };
  const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
  return finish;
}

function askUdp(
  server: Server,
  query: Buffer,
  id: number,
  name: string,
  type: string,
  timeoutMs: number,
): Promise<Reply> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(server.family === 6 ? 'udp6' : 'udp4');
    const finish = settleOnce(resolve, timeoutMs, () => socket.close());
    socket.on('error', () => finish({ kind: 'unreachable' }));
    socket.on('message', (msg) => {
      const packet = matches(id, name, type, msg);
      if (packet) finish({ kind: 'answer', packet });
    });
    // A connected socket hears ICMP "port unreachable", so a dead server fails at once, as in c-ares.
    socket.connect(server.port, server.host, () => {
      socket.send(query, (err) => {
        if (err) finish({ kind: 'unreachable' });
      });
    });
  });
}

function askTcp(
  server: Server,
  query: Buffer,
  id: number,
  name: string,
  type: string,
  timeoutMs: number,
): Promise<Reply> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: server.host, port: server.port });
    let buffered = Buffer.alloc(0);
    const finish = settleOnce(resolve, timeoutMs, () => socket.destroy());
    socket.on('error', () => finish({ kind: 'unreachable' }));
    socket.on('close', () => finish({ kind: 'unreachable' }));
    socket.on('connect', () => {
      const head = Buffer.alloc(2);
      head.writeUInt16BE(query.length, 0);
      socket.write(Buffer.concat([head, query]));
    });
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2) return;
      const length = buffered.readUInt16BE(0);
      if (buffered.length < 2 + length) return;
      const packet = matches(id, name, type, buffered.subarray(2, 2 + length));
      finish(packet ? { kind: 'answer', packet } : { kind: 'unreachable' });
    });
  });
}

function convert<K extends RawRecordType>(type: K, answers: dnsPacket.Answer[]): RawResults[K] {
  const own = answers.filter((a) => a.type === type);
  const out: RawResults[RawRecordType] =
    type === 'TXT'
      ? own.map((a) => {
          const data = (a as dnsPacket.TxtAnswer).data;
          const parts = Array.isArray(data) ? data : [data];
          return parts.map((p) => (typeof p === 'string' ? p : Buffer.from(p).toString('utf8')));
        })
      : type === 'MX'
        ? own.map((a) => {
            const data = (a as dnsPacket.MxAnswer).data;
            return { exchange: data.exchange, priority: data.preference ?? 0 };
          })
        : own.map((a) => String((a as dnsPacket.StringAnswer).data));
  return out as RawResults[K];
}

/** Asks one server over UDP with a fresh id; a truncated answer (TC) is asked again over TCP. */
async function askServer(
  server: Server,
  name: string,
  type: RawRecordType,
  timeoutMs: number,
): Promise<Reply> {
  const id = crypto.randomInt(0, 65536);
  const query = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name, class: 'IN' }],
  });
  const reply = await askUdp(server, query, id, name, type, timeoutMs);
  if (reply.kind === 'answer' && reply.packet.flag_tc)
    return askTcp(server, query, id, name, type, timeoutMs);
  return reply;
}

/** The records of an answer; a non-zero RCODE or no record of the type is a DnsError. */
function recordsOf<K extends RawRecordType>(
  type: K,
  packet: dnsPacket.DecodedPacket,
  label: string,
): RawResults[K] {
  const rcode = (packet.flags ?? 0) & 0xf;
  if (rcode !== 0) throw new DnsError(RCODE_CLASS[rcode] ?? 'OTHER', label);
  const records = convert(type, packet.answers ?? []);
  if (records.length === 0) throw new DnsError('NODATA', label);
  return records;
}

/**
 * One query for `name`/`type`: servers in order, `tries` rounds, each try waiting `timeoutMs`.
 * Resolves with at least one record; rejects with a DnsError (NXDOMAIN, NODATA, SERVFAIL,
 * REFUSED, FORMERR, TIMEOUT, BADNAME when the name cannot be put on the wire, OTHER).
 */
export async function rawQuery<K extends RawRecordType>(
  name: string,
  type: K,
  options: RawQueryOptions,
): Promise<RawResults[K]> {
  const label = `${name} ${type}`;
  if (!encodable(name)) throw new DnsError('BADNAME', label);
  const servers = options.servers.map(parseServer).filter((s): s is Server => s !== null);
  if (servers.length === 0) throw new DnsError('OTHER', label);
  let sawTimeout = false;
  for (let attempt = 0; attempt < Math.max(1, options.tries); attempt++) {
    for (const server of servers) {
      const reply = await askServer(server, name, type, options.timeoutMs);
      if (reply.kind === 'timeout') sawTimeout = true;
      if (reply.kind !== 'answer') continue;
      return recordsOf(type, reply.packet, label);
    }
  }
  throw new DnsError(sawTimeout ? 'TIMEOUT' : 'OTHER', label);
}
