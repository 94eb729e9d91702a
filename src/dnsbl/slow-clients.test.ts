/**
 * Slow and greedy DNS clients over TCP on 127.0.0.1, against the DNSBL server the app starts
 * from its configuration (limits made short so each case ends in about a second): a frame
 * trickled in, empty frames sent to keep a connection open, an idle connection, and one address
 * opening more connections than its cap while UDP keeps answering.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { connectRaw, type RawConnection } from '../../test/helpers/raw-socket.ts';
import { skipStore } from '../../test/helpers/stores.ts';
import { ipToQueryName } from './query-name.ts';

const IDLE_MS = 400;
const FRAME_MS = 200;
const PER_CLIENT = 3;
/** Timer granularity plus a loaded machine's scheduling. */
const SLACK_MS = 2000;

const ZONE = 'bl.netrep.test';
let nextId = 1;

function query(ip = '127.0.0.2'): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id: nextId++ & 0xffff,
    questions: [{ name: ipToQueryName(ip, ZONE) as string, type: 'A' }],
  });
}

function frame(message: Buffer): Buffer {
  const out = Buffer.alloc(2 + message.length);
  out.writeUInt16BE(message.length, 0);
  message.copy(out, 2);
  return out;
}

interface Session extends RawConnection {
  answers: () => number;
}

async function open(port: number): Promise<Session> {
  const raw = await connectRaw(port);
  let got = Buffer.alloc(0);
  let answers = 0;
  raw.socket.on('data', (d: Buffer) => {
    got = Buffer.concat([got, d]);
    while (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) {
      answers++;
      got = got.subarray(2 + got.readUInt16BE(0));
    }
  });
  return { ...raw, answers: () => answers };
}

async function trickle(s: Session, piece: Buffer, everyMs: number, untilMs = 10_000): Promise<number | null> {
  const timer = setInterval(() => {
    if (!s.socket.destroyed) s.socket.write(piece);
  }, everyMs);
  try {
    return await Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), untilMs))]);
  } finally {
    clearInterval(timer);
  }
}

function askUdp(port: number): Promise<number> {
  const socket = dgram.createSocket('udp4');
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no UDP answer')), 3000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(dnsPacket.decode(msg).answers?.length ?? 0);
    });
    socket.send(query(), port, '127.0.0.1');
  });
}

describe.skipIf(skipStore('sqlite'))('slow DNSBL TCP clients (sqlite)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      config: {
        dnsblListen: '127.0.0.1:0',
        dnsblZone: ZONE,
        dnsblTcpIdleTimeoutMs: IDLE_MS,
        dnsblTcpFrameTimeoutMs: FRAME_MS,
        dnsblTcpMaxConnectionsPerClient: PER_CLIENT,
      },
    });
    port = t.app.dnsbl?.tcpPort ?? 0;
    expect(port).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a frame trickled in a byte at a time is cut after the frame timeout', async () => {
    const s = await open(port);
    const q = frame(query());
    s.socket.write(q.subarray(0, 3));
    let i = 3;
    const timer = setInterval(() => {
      if (i < q.length - 1 && !s.socket.destroyed) s.socket.write(q.subarray(i, ++i));
    }, 40);
    const closedAfter = await s.closed;
    clearInterval(timer);
    expect(closedAfter).toBeLessThan(FRAME_MS + SLACK_MS);
    expect(s.answers()).toBe(0);
  });

  it('empty frames do not keep a connection open: closed after the idle timeout', async () => {
    const s = await open(port);
    const closedAfter = await trickle(s, Buffer.from([0, 0]), 50);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(closedAfter).toBeLessThan(IDLE_MS + SLACK_MS);
  });

  it('frames too short to be a DNS message do not either', async () => {
    const s = await open(port);
    const closedAfter = await trickle(s, Buffer.from([0, 3, 1, 2, 3]), 50);
    expect(closedAfter).not.toBeNull();
    expect(closedAfter).toBeLessThan(IDLE_MS + SLACK_MS);
  });

  it('an idle connection is closed after the idle timeout; queries keep one open', async () => {
    const idle = await open(port);
    idle.socket.write(frame(query()));
    await expect.poll(() => idle.answers()).toBe(1);
    const idleAfter = await idle.closed;
    expect(idleAfter).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(idleAfter).toBeLessThan(IDLE_MS + SLACK_MS);

    const busy = await open(port);
    const closed = await trickle(busy, frame(query()), IDLE_MS / 4, IDLE_MS * 3);
    expect(closed).toBeNull();
    expect(busy.answers()).toBeGreaterThan(4);
    busy.socket.destroy();
    await busy.closed;
  });

  it('one address over its TCP cap is closed at once; UDP still answers it; a freed slot is usable', async () => {
    const held = await Promise.all(Array.from({ length: PER_CLIENT }, () => open(port)));
    // Queries keep them open past the idle timeout while the test runs.
    const keep = setInterval(() => {
      for (const s of held) if (!s.socket.destroyed) s.socket.write(frame(query()));
    }, IDLE_MS / 4);
    await expect.poll(() => held.every((s) => s.answers() > 0)).toBe(true);
    const extra = await open(port);
    extra.socket.write(frame(query()));
    expect(await extra.closed).toBeLessThan(SLACK_MS);
    expect(extra.answers()).toBe(0);
    expect(await askUdp(t.app.dnsbl?.udpPort ?? 0)).toBe(1);
    held[0]?.socket.destroy();
    // The server sees that close a moment later.
    await expect
      .poll(async () => {
        const again = await open(port);
        again.socket.write(frame(query()));
        await Promise.race([again.closed, new Promise((r) => setTimeout(r, 200))]);
        const answered = again.answers();
        again.socket.destroy();
        return answered;
      })
      .toBe(1);
    clearInterval(keep);
    for (const s of held) s.socket.destroy();
  });
});
