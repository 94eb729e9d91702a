/**
 * A real authoritative DNS server for tests: UDP and TCP on 127.0.0.1, an ephemeral port,
 * answering from a declarative zone.
 *
 *   const server = await startZoneServer({
 *     'example.com': [{ type: 'TXT', data: 'v=spf1 -all' }, { type: 'MX', data: { preference: 10, exchange: 'mx.example.com' } }],
 *     'mx.example.com': [{ type: 'A', data: '192.0.2.1' }],
 *     'slow.example.com': [{ type: 'TIMEOUT' }],
 *   });
 *   createDnsClient({ servers: server.servers });
 *
 * Semantics:
 * - Names are case-insensitive; a trailing dot is ignored. The question is echoed as asked.
 * - A name that is neither a key nor an ancestor of one answers NXDOMAIN; a name that exists
 *   (or is an empty non-terminal, like `_domainkey.example.com`) without records of the asked
 *   type answers NOERROR with an empty answer (NODATA).
 * - CNAME chains are followed inside the zone (loops stop after 8 hops).
 * - Special entries TIMEOUT (never answer), SERVFAIL and REFUSED apply to a query unless a
 *   record of the asked type comes before them in the name's list: put one first to make the
 *   whole name fail (the convention of the RFC 7208 test suite).
 * - TXT data is a string or an array of character-strings; a string over 255 bytes is split.
 * - A UDP answer larger than 512 bytes (or the client's EDNS size) is sent truncated (TC)
 *   with no records, and the client retries over TCP, which carries the full answer.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';

export type ZoneRecord =
  | { type: 'A'; data: string; ttl?: number }
  | { type: 'AAAA'; data: string; ttl?: number }
  | { type: 'TXT'; data: string | string[]; ttl?: number }
  | { type: 'MX'; data: { preference: number; exchange: string }; ttl?: number }
  | { type: 'PTR'; data: string; ttl?: number }
  | { type: 'CNAME'; data: string; ttl?: number }
  | { type: 'NS'; data: string; ttl?: number }
  | { type: 'TIMEOUT' }
  | { type: 'SERVFAIL' }
  | { type: 'REFUSED' };

export type Zone = Record<string, ZoneRecord[]>;

export interface QueryLogEntry {
  name: string;
  type: string;
  transport: 'udp' | 'tcp';
}

export interface ZoneServer {
  port: number;
  address: string;
  /** Ready for createDnsClient({ servers }). */
  servers: string[];
  setZone(zone: Zone): void;
  /** Every question received, in order (both transports). */
  queries: QueryLogEntry[];
  close(): Promise<void>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const MAX_CNAME_HOPS = 8;

function canonical(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function splitTxt(data: string | string[]): Buffer[] {
  const parts = typeof data === 'string' ? [data] : data;
  const out: Buffer[] = [];
  for (const part of parts) {
    const bytes = Buffer.from(part, 'utf8');
    if (bytes.length === 0) out.push(bytes);
    for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  }
  return out;
}

function toAnswer(name: string, rec: ZoneRecord): dnsPacket.Answer | null {
  const ttl = 'ttl' in rec && rec.ttl !== undefined ? rec.ttl : 300;
  switch (rec.type) {
    case 'A':
    case 'AAAA':
      return { name, type: rec.type, ttl, data: rec.data };
    case 'TXT':
      return { name, type: 'TXT', ttl, data: splitTxt(rec.data) };
    case 'MX':
      return {
        name,
        type: 'MX',
        ttl,
        data: { preference: rec.data.preference, exchange: rec.data.exchange },
      };
    case 'PTR':
    case 'CNAME':
    case 'NS':
      return { name, type: rec.type, ttl, data: rec.data };
    default:
      return null;
  }
}

type Outcome = { kind: 'drop' } | { kind: 'answer'; rcode: number; answers: dnsPacket.Answer[] };

/** The outcome a failure record stands for (no answer, SERVFAIL, REFUSED), or null for a record. */
function failureOf(rec: ZoneRecord): Outcome | null {
  if (rec.type === 'TIMEOUT') return { kind: 'drop' };
  if (rec.type === 'SERVFAIL') return { kind: 'answer', rcode: RCODE.SERVFAIL, answers: [] };
  if (rec.type === 'REFUSED') return { kind: 'answer', rcode: RCODE.REFUSED, answers: [] };
  return null;
}

/**
 * Pushes the records of one name that answer `qtype` (as `owner`); a failure record met before
 * any match ends the query with its outcome. Returns that outcome, or whether any record matched.
 */
function answerFromRecords(
  records: readonly ZoneRecord[],
  owner: string,
  qtype: string,
  answers: dnsPacket.Answer[],
): Outcome | boolean {
  let matched = false;
  for (const rec of records) {
    const failure = matched ? null : failureOf(rec);
    if (failure) return failure;
    if (rec.type === qtype || qtype === 'ANY') {
      const answer = toAnswer(owner, rec);
      if (answer) {
        answers.push(answer);
        matched = true;
      }
    }
  }
  return matched;
}

function resolveQuestion(zone: Map<string, ZoneRecord[]>, qname: string, qtype: string): Outcome {
  const answers: dnsPacket.Answer[] = [];
  let name = canonical(qname);
  let owner = qname;
  const seen = new Set<string>();
  for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
    const records = zone.get(name);
    if (!records) {
      const exists = [...zone.keys()].some((key) => key.endsWith(`.${name}`));
      return { kind: 'answer', rcode: exists ? RCODE.NOERROR : RCODE.NXDOMAIN, answers };
    }
    const found = answerFromRecords(records, owner, qtype, answers);
    if (found === true) return { kind: 'answer', rcode: RCODE.NOERROR, answers };
    if (found !== false) return found;
    const cname = records.find((r): r is Extract<ZoneRecord, { type: 'CNAME' }> => r.type === 'CNAME');
    if (!cname || qtype === 'CNAME') return { kind: 'answer', rcode: RCODE.NOERROR, answers };
    seen.add(name);
    answers.push({ name: owner, type: 'CNAME', ttl: 300, data: canonical(cname.data) });
    name = canonical(cname.data);
    owner = name;
    if (seen.has(name)) return { kind: 'answer', rcode: RCODE.NOERROR, answers };
  }
  return { kind: 'answer', rcode: RCODE.SERVFAIL, answers: [] };
}

function respond(
  zone: Map<string, ZoneRecord[]>,
  message: Buffer,
  transport: 'udp' | 'tcp',
  log: QueryLogEntry[],
): Buffer | null {
  let query: dnsPacket.DecodedPacket;
  try {
    query = dnsPacket.decode(message);
  } catch {
    return null;
  }
  const question = query.questions?.[0];
  if (!question) return null;
  log.push({ name: question.name, type: question.type, transport });
  const opt = query.additionals?.find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  const outcome = resolveQuestion(zone, question.name, question.type);
  if (outcome.kind === 'drop') return null;
  const additionals: dnsPacket.Answer[] = opt
    ? [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 1232,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ]
    : [];
  const base = dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED);
  const packet: dnsPacket.Packet = {
    id: query.id ?? 0,
    type: 'response',
    flags: base | outcome.rcode,
    questions: [question],
    answers: outcome.answers,
    additionals,
  };
  const full = dnsPacket.encode(packet);
  const limit = opt ? Math.max(512, Math.min(opt.udpPayloadSize ?? 512, 1232)) : 512;
  if (transport === 'udp' && full.length > limit) {
    return dnsPacket.encode({ ...packet, flags: base | dnsPacket.TRUNCATED_RESPONSE, answers: [] });
  }
  return full;
}

function loadZone(zone: Zone): Map<string, ZoneRecord[]> {
  const map = new Map<string, ZoneRecord[]>();
  for (const [name, records] of Object.entries(zone)) {
    const key = canonical(name);
    map.set(key, [...(map.get(key) ?? []), ...records]);
  }
  return map;
}

async function bindPair(): Promise<{ udp: dgram.Socket; tcp: net.Server; port: number }> {
  // UDP picks the ephemeral port; TCP must get the same number, which another process may hold.
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    const tcp = net.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => resolve());
      });
      return { udp, tcp, port };
    } catch (err) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 10) throw err;
    }
  }
}

export async function startZoneServer(initial: Zone = {}): Promise<ZoneServer> {
  let zone = loadZone(initial);
  const queries: QueryLogEntry[] = [];
  const { udp, tcp, port } = await bindPair();
  const sockets = new Set<net.Socket>();

  udp.on('message', (msg, rinfo) => {
    const reply = respond(zone, msg, 'udp', queries);
    if (reply) udp.send(reply, rinfo.port, rinfo.address);
  });

  tcp.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const len = buffered.readUInt16BE(0);
        if (buffered.length < 2 + len) break;
        const msg = buffered.subarray(2, 2 + len);
        buffered = buffered.subarray(2 + len);
        const reply = respond(zone, msg, 'tcp', queries);
        if (reply) {
          const head = Buffer.alloc(2);
          head.writeUInt16BE(reply.length, 0);
          socket.write(Buffer.concat([head, reply]));
        }
      }
    });
  });

  return {
    port,
    address: '127.0.0.1',
    servers: [`127.0.0.1:${port}`],
    queries,
    setZone(next) {
      zone = loadZone(next);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
