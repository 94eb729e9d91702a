import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from '../../test/helpers/dnsbl-tools.ts';
import { UDP_PATHS } from '../../test/helpers/udp-paths.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName } from './query-name.ts';
import { type DnsblServer, startDnsblServer } from './server.ts';

const ZONE = 'bl.netrep.test';
const COUNT = 100_000;

/** Seeded valid queries, some with EDNS, to mutate. */
function seeds(): Buffer[] {
  const names = ['192.0.2.10', '192.0.2.11', '2001:db8::25', '127.0.0.2'].map(
    (ip) => ipToQueryName(ip, ZONE) as string,
  );
  names.push(ZONE, 'example.com', `a.b.${ZONE}`);
  const out: Buffer[] = [];
  for (const name of names) {
    for (const type of ['A', 'TXT', 'MX', 'SOA'] as const) {
      out.push(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type }] }));
      out.push(
        dnsPacket.encode({
          type: 'query',
          id: 2,
          questions: [{ name, type }],
          additionals: [
            {
              name: '.',
              type: 'OPT',
              udpPayloadSize: 4096,
              extendedRcode: 0,
              ednsVersion: 0,
              flags: 0,
              flag_do: false,
              options: [],
            },
          ],
        }),
      );
    }
  }
  return out;
}

type Edit = [pos: number, value: number, op: 'set' | 'cut' | 'insert' | 'count'];

/** One edit of a seed: a byte set, the packet cut, two bytes inserted, or a section count set. */
function applyEdit(b: Buffer, [pos, value, op]: Edit): Buffer {
  const at = b.length === 0 ? 0 : pos % b.length;
  if (op === 'set' && b.length > 0) b[at] = value;
  else if (op === 'cut') return b.subarray(0, at);
  else if (op === 'insert')
    return Buffer.concat([b.subarray(0, at), Buffer.from([value, value]), b.subarray(at)]);
  else if (op === 'count' && b.length >= 12) b[4 + (pos % 8)] = value; // section counts
  return b;
}

/** 100,000 packets: half random bytes, half seeds with flipped, cut, spliced or inserted bytes. */
function packets(): Buffer[] {
  const base = seeds();
  const random = fc.uint8Array({ minLength: 0, maxLength: 600 });
  const mutated = fc
    .tuple(
      fc.nat(base.length - 1),
      fc.array(fc.tuple(fc.nat(600), fc.nat(255), fc.constantFrom('set', 'cut', 'insert', 'count')), {
        minLength: 1,
        maxLength: 6,
      }),
    )
    .map(([i, edits]) => edits.reduce(applyEdit, Buffer.from(base[i] as Buffer)));
  const all = fc.sample(
    fc.oneof(
      random.map((u) => Buffer.from(u)),
      mutated,
    ),
    { seed: 42, numRuns: COUNT },
  );
  return all;
}

/** Every message of 12+ bytes that is not itself a response deserves an answer (FORMERR at least). */
const answerable = (p: Buffer) => p.length >= 12 && ((p[2] as number) & 0x80) === 0;

interface CountingSocket {
  socket: dgram.Socket;
  /** Answers received so far. */
  replies(): number;
  /** Resolves true once `count` answers have come, false after `ms` without them. */
  until(count: number, ms: number): Promise<boolean>;
}

async function countingSocket(): Promise<CountingSocket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  let replies = 0;
  let waiter: { count: number; done: (reached: boolean) => void } | null = null;
  socket.on('message', () => {
    replies++;
    if (waiter && replies >= waiter.count) waiter.done(true);
  });
  return {
    socket,
    replies: () => replies,
    until: (count, ms) =>
      replies >= count
        ? Promise.resolve(true)
        : new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => waiter?.done(false), ms);
            waiter = {
              count,
              done: (reached) => {
                clearTimeout(timer);
                waiter = null;
                resolve(reached);
              },
            };
          }),
  };
}

/** At most this many answers outstanding, so kernel buffers do not drop the load. */
const WINDOW = 80;

/**
 * The packets over UDP from `client`, pipelined: sending goes on while fewer than WINDOW answers
 * are outstanding, and pauses (woken by the answers, not polling) until half of them are back.
 * An answer not back within 100 ms stops counting against the window (the test counts replies
 * at the end). Returns how many answers are due.
 */
async function sendUdpPipelined(client: CountingSocket, all: Buffer[], port: number): Promise<number> {
  let expected = 0;
  let given = 0;
  for (const p of all) {
    if (answerable(p)) expected++;
    client.socket.send(p, port, '127.0.0.1');
    if (expected - given - client.replies() >= WINDOW) {
      const reached = await client.until(expected - given - WINDOW / 2, 100);
      if (!reached) given = expected - client.replies();
    }
  }
  return expected;
}

/** The same packets as TCP frames on a few connections, including a truncated last frame. */
async function sendTcpFrames(all: Buffer[], port: number): Promise<void> {
  for (let c = 0; c < 4; c++) {
    const frames = all.slice(c * 2000, c * 2000 + 2000).map((p) => {
      const f = Buffer.alloc(2 + p.length);
      f.writeUInt16BE(p.length, 0);
      p.copy(f, 2);
      return f;
    });
    await new Promise<void>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end(Buffer.concat([...frames, Buffer.from([0xff, 0xff, 1])]));
      });
      s.on('data', () => undefined);
      s.on('error', () => resolve());
      s.on('close', () => resolve());
    });
  }
}

// Both UDP paths: node:dgram, and the batched addon where it is built (batch-udp.test.ts says when not).
describe.each(UDP_PATHS)('DNSBL server under hostile input (UDP through $name)', ({ batchedUdp }) => {
  let server: DnsblServer;
  const errors: unknown[] = [];
  beforeAll(async () => {
    server = await startDnsblServer({
      batchedUdp,
      zone: ZONE,
      listen: '127.0.0.1:0',
      index: createListingIndex([{ ip: '192.0.2.10', returnCode: '127.0.0.3', reason: 'malware' }]),
      lookupUrl: (ip) => `http://127.0.0.1/ip/${ip}`,
      logger: { warn: () => undefined, error: (obj) => errors.push(obj) },
    });
  });
  afterAll(() => server.close());

  it(`survives ${COUNT} random and mutated packets over UDP and TCP, then answers correctly`, async () => {
    const all = packets();
    expect(all).toHaveLength(COUNT);
    const udp = await countingSocket();
    const expected = await sendUdpPipelined(udp, all, server.udpPort);
    await sendTcpFrames(all, server.tcpPort);
    await new Promise((r) => setTimeout(r, 200));
    udp.socket.close();
    const replies = udp.replies();
    expect(replies).toBeGreaterThan(expected * 0.95);
    expect(replies).toBeLessThanOrEqual(expected);
    expect(errors).toEqual([]);

    for (const extra of [[], ['+tcp']]) {
      const listed = await dig(server.udpPort, ipToQueryName('192.0.2.10', ZONE) as string, 'A', extra);
      expect(listed.answers.map((a) => a.data)).toEqual(['127.0.0.3']);
      const unlisted = await dig(server.udpPort, ipToQueryName('192.0.2.11', ZONE) as string, 'A', extra);
      expect(unlisted.status).toBe('NXDOMAIN');
    }
  }, 180_000);
});
