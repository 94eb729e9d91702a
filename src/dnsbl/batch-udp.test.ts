import dgram from 'node:dgram';
import { createRequire } from 'node:module';
import os from 'node:os';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from '../../test/helpers/dnsbl-tools.ts';
import { batchedUdpChosen, bindBatchedUdp, dnsUdp, setThreadSlice } from './batch-udp.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName } from './query-name.ts';
import { type DnsblServer, startDnsblServer } from './server.ts';
import { udpDescriptors } from './shared-udp.ts';

const ZONE = 'bl.netrep.test';
const qn = (ip: string) => ipToQueryName(ip, ZONE) as string;

if (!dnsUdp) {
  process.stdout.write(
    'batch-udp.test.ts: the @netrep/dns-udp addon is not built (npm install builds it on Linux with a C compiler); the batched UDP suites are skipped\n',
  );
}

describe('NETREP_DNSBL_UDP_IO', () => {
  it('is built wherever CI runs (Linux), so CI never skips the batched path', () => {
    if (process.env.CI !== 'true' || process.platform !== 'linux') return;
    expect(dnsUdp).not.toBeNull();
  });

  it('chooses dgram on request, batched where built, and refuses anything else', () => {
    expect(batchedUdpChosen('dgram')).toBe(false);
    expect(batchedUdpChosen('auto')).toBe(dnsUdp !== null);
    if (dnsUdp) expect(batchedUdpChosen('batched')).toBe(true);
    else expect(() => batchedUdpChosen('batched')).toThrow(/not built/);
    expect(() => batchedUdpChosen('fast')).toThrow(/auto, batched or dgram/);
  });
});

/** Sends each message from one socket and collects what comes back to it, by order of sending. */
async function exchange(port: number, messages: Buffer[], waitMs = 300): Promise<(Buffer | null)[]> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const answers: (Buffer | null)[] = messages.map(() => null);
  let next = 0;
  // One at a time: an answer (or its absence within waitMs) before the next question, so each
  // answer belongs to its question even when it carries no usable ID.
  const one = (m: Buffer) =>
    new Promise<Buffer | null>((resolve) => {
      const timer = setTimeout(() => {
        socket.off('message', on);
        resolve(null);
      }, waitMs);
      const on = (msg: Buffer) => {
        clearTimeout(timer);
        socket.off('message', on);
        resolve(msg);
      };
      socket.on('message', on);
      socket.send(m, port, '127.0.0.1');
    });
  for (const m of messages) answers[next++] = await one(m);
  socket.close();
  return answers;
}

const query = (name: string, type: dnsPacket.RecordType, id: number, edns?: number) =>
  dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type, class: 'IN' }],
    ...(edns ? { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: edns, flags: 0 } as never] } : {}),
  });

/** `message` followed by zeros up to `size` bytes. */
const padded = (message: Buffer, size: number) =>
  Buffer.concat([message, Buffer.alloc(size - message.length)]);

describe.skipIf(!dnsUdp)('the batched UDP path (recvmmsg/sendmmsg through @netrep/dns-udp)', () => {
  const index = createListingIndex([
    { ip: '192.0.2.10', returnCode: '127.0.0.3', reason: 'malware C2' },
    { ip: '2001:db8::25', returnCode: '127.0.0.4', reason: 'phishing kit' },
    { ip: '198.51.100.7', returnCode: '127.0.0.2', reason: 'x'.repeat(1500) },
  ]);
  const options = {
    zone: ZONE,
    listen: '127.0.0.1:0',
    index,
    lookupUrl: (ip: string) => `http://127.0.0.1/ip/${ip}`,
    clock: () => Date.parse('2026-06-01T00:00:00Z'),
    serveTcp: false,
  };
  let batched: DnsblServer;
  let plain: DnsblServer;
  beforeAll(async () => {
    batched = await startDnsblServer({ ...options, batchedUdp: true });
    plain = await startDnsblServer({ ...options, batchedUdp: false });
  });
  afterAll(async () => {
    await batched.close();
    await plain.close();
  });

  it('answers every kind of message byte for byte as node:dgram does, and leaves unanswerable ones unanswered', async () => {
    const messages = [
      query(qn('192.0.2.10'), 'A', 1),
      query(qn('192.0.2.10'), 'TXT', 2),
      query(qn('192.0.2.11'), 'A', 3),
      query(qn('2001:db8::25'), 'A', 4),
      // 1,500 bytes of TXT: truncated (TC) without EDNS, whole with a 4,096-byte EDNS size.
      query(qn('198.51.100.7'), 'TXT', 5),
      query(qn('198.51.100.7'), 'TXT', 6, 4096),
      query(ZONE, 'SOA', 7),
      query(ZONE, 'NS', 8),
      query('example.com', 'A', 9),
      query(qn('192.0.2.10'), 'AAAA', 10),
      // Hostile: a response, a header alone, 5 bytes, every count at 65,535, random bytes.
      Buffer.from(query(qn('192.0.2.10'), 'A', 11)).fill(0x80, 2, 3),
      Buffer.from(query(qn('192.0.2.10'), 'A', 12)).subarray(0, 12),
      Buffer.from([1, 2, 3, 4, 5]),
      Buffer.concat([Buffer.from([0, 13, 1, 0]), Buffer.alloc(8, 0xff)]),
      Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 255)),
      // The largest datagram loopback carries (65,507 bytes): read whole, answered as dgram does.
      padded(query(qn('192.0.2.10'), 'A', 14), 65_507),
    ];
    const a = await exchange(batched.udpPort, messages);
    const b = await exchange(plain.udpPort, messages);
    expect(a.map((x) => x?.toString('hex') ?? null)).toEqual(b.map((x) => x?.toString('hex') ?? null));
    // And the answers are the zone's: dig reads them.
    expect(a.slice(0, 10).every((x) => x !== null)).toBe(true);
    const listed = await dig(batched.udpPort, qn('192.0.2.10'), 'A');
    expect(listed.answers.map((r) => r.data)).toEqual(['127.0.0.3']);
  });

  it('answers a burst larger than a batch from several clients, each its own answers', async () => {
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const s = dgram.createSocket('udp4');
        await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
        return s;
      }),
    );
    const perClient = 50; // 200 queries in flight: several batches of 32 per readable event
    const got = clients.map(() => new Set<number>());
    const done = Promise.all(
      clients.map(
        (s, c) =>
          new Promise<void>((resolve) => {
            s.on('message', (msg) => {
              const decoded = dnsPacket.decode(msg);
              // The question that came back is the one this client asked with that ID.
              const ip = `192.0.2.${(decoded.id ?? 0) % 1000}`;
              expect(decoded.questions?.[0]?.name).toBe(qn(ip));
              expect(Math.floor((decoded.id ?? 0) / 1000)).toBe(c);
              got[c]?.add(decoded.id ?? -1);
              if (got[c]?.size === perClient) resolve();
            });
          }),
      ),
    );
    clients.forEach((s, c) => {
      for (let i = 0; i < perClient; i++)
        s.send(query(qn(`192.0.2.${i}`), 'A', c * 1000 + i), batched.udpPort, '127.0.0.1');
    });
    await done;
    for (const s of clients) s.close();
    expect(got.map((g) => g.size)).toEqual([perClient, perClient, perClient, perClient]);
  });

  it('closes its descriptor on close: the port is free again', async () => {
    const s = await startDnsblServer({ ...options, batchedUdp: true });
    const port = s.udpPort;
    expect(udpDescriptors(port)).toHaveLength(1);
    await s.close();
    expect(udpDescriptors(port)).toEqual([]);
    const again = await startDnsblServer({ ...options, listen: `127.0.0.1:${port}`, batchedUdp: true });
    expect(again.udpPort).toBe(port);
    await again.close();
  });

  it('binds nothing that is taken or not an address', () => {
    expect(() => bindBatchedUdp('127.0.0.1', batched.udpPort)).toThrow(/EADDRINUSE/);
    expect(() => bindBatchedUdp('localhost', 0)).toThrow(/not an IP address/);
  });
});

/**
 * An echo server in a thread of its own, through the addon, on a socket of its own bound with
 * SO_REUSEPORT to `port` (0: a new one); resolves with its port.
 */
async function echoThread(
  port: number,
): Promise<{ port: number; stats(): Promise<number[]>; end(): Promise<void> }> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const b = require(workerData.addon);
     const slot = 512, batch = 32;
     const input = Buffer.alloc(slot * batch), lengths = new Int32Array(batch);
     const output = Buffer.alloc(slot * batch), outLengths = new Int32Array(batch);
     const fd = b.bind('127.0.0.1', workerData.port, true);
     const server = b.serve(fd, batch, slot, input, lengths, output, outLengths, (n) => {
       for (let i = 0; i < n; i++) outLengths[i] = input.copy(output, i * slot, i * slot, i * slot + lengths[i]);
     });
     parentPort.on('message', (m) => {
       if (m === 'stats') parentPort.postMessage(b.stats(server));
       else { b.close(server); parentPort.close(); }
     });
     parentPort.postMessage(b.address(fd).port);`,
    { eval: true, workerData: { addon: createRequire(import.meta.url).resolve('@netrep/dns-udp'), port } },
  );
  const bound = await new Promise<number>((resolve) => worker.once('message', resolve));
  return {
    port: bound,
    stats: () =>
      new Promise((resolve) => {
        worker.once('message', resolve);
        worker.postMessage('stats');
      }),
    end: async () => {
      worker.postMessage('end');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

describe.skipIf(!dnsUdp || process.platform !== 'linux')('several threads on one port (SO_REUSEPORT)', () => {
  it('the kernel spreads the clients over the threads; each datagram is answered once, none is lost', async () => {
    const first = await echoThread(0);
    const threads = [first, await echoThread(first.port)];
    // Without SO_REUSEPORT the port is taken.
    expect(() => bindBatchedUdp('127.0.0.1', first.port)).toThrow(/EADDRINUSE/);
    const clients = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const c = dgram.createSocket('udp4');
        await new Promise<void>((resolve) => c.bind(0, '127.0.0.1', resolve));
        return c;
      }),
    );
    const echoes: string[] = [];
    for (const c of clients) c.on('message', (m) => echoes.push(m.toString()));
    const PER = 25;
    for (let i = 0; i < PER; i++) {
      for (const [k, c] of clients.entries()) c.send(`query ${k}.${i}`, first.port, '127.0.0.1');
      const want = (i + 1) * clients.length;
      for (let waited = 0; echoes.length < want && waited < 2000; waited += 5)
        await new Promise((r) => setTimeout(r, 5));
    }
    for (const c of clients) c.close();
    const stats = await Promise.all(threads.map((t) => t.stats()));
    await Promise.all(threads.map((t) => t.end()));
    const sent = clients.flatMap((_, k) => Array.from({ length: PER }, (_, i) => `query ${k}.${i}`));
    expect(echoes.toSorted()).toEqual(sent.toSorted());
    // Each thread read some (16 clients hashed over two sockets), together all, each once.
    expect(stats.every((s) => (s[0] as number) > 0)).toBe(true);
    expect(stats.reduce((a, s) => a + (s[0] as number), 0)).toBe(sent.length);
    expect(stats.reduce((a, s) => a + (s[1] as number), 0)).toBe(sent.length);
    // A thread is woken only for its own socket's datagrams.
    expect(stats.reduce((a, s) => a + (s[4] as number), 0)).toBe(0);
  });
});

/** The kernel's version as [major, minor]. */
function kernel(): [number, number] {
  const [major = 0, minor = 0] = os
    .release()
    .split('.')
    .map((x) => Number.parseInt(x, 10));
  return [major, minor];
}

describe.skipIf(!dnsUdp || process.platform !== 'linux')('the DNS thread slice (sched_setattr)', () => {
  it("sets this thread's slice and reads it back, leaving its nice value", async () => {
    const { Worker } = await import('node:worker_threads');
    // In a thread of its own: the test runner's thread keeps the kernel's slice.
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const b = require(workerData.addon);
       const os = require('node:os');
       const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').at(-1));
       const before = os.getPriority(tid);
       let slice, error;
       try { slice = b.setSlice(200000); } catch (e) { error = e.code; }
       parentPort.postMessage({ slice, error, before, after: os.getPriority(tid) });`,
      { eval: true, workerData: { addon: createRequire(import.meta.url).resolve('@netrep/dns-udp') } },
    );
    const got = await new Promise<{ slice?: number; error?: string; before: number; after: number }>(
      (resolve) => worker.once('message', resolve),
    );
    await worker.terminate();
    const [major, minor] = kernel();
    if (major > 6 || (major === 6 && minor >= 12)) expect(got.slice).toBe(200_000);
    else expect(got.error === undefined ? got.slice : 0).toBe(0);
    expect(got.after).toBe(got.before);
  });

  it('refuses a negative slice', () => {
    expect(() => setThreadSlice(-1)).toThrow(/nanoseconds/);
  });
});
