/**
 * The DNSBL server on its own thread: fed a snapshot and then each change (in the answer of the
 * next query, however the thread's loop orders the two), restarted on the same port when it ends,
 * closed with the app. A listing feed here is a real index with change listeners, as the mirror is.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { dig, queryUdp } from '../../test/helpers/dnsbl-tools.ts';
import { UDP_PATHS } from '../../test/helpers/udp-paths.ts';
import { TEST_ENTRY_REASON } from '../blocklist/index.ts';
import { dnsUdp } from './batch-udp.ts';
import type { ListingChangeListener } from './blocklist-mirror.ts';
import { type DnsblThread, startDnsblThread } from './dns-thread.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName } from './query-name.ts';
import { udpDescriptors } from './shared-udp.ts';
import type { ListingValue } from './types.ts';

const ZONE = 'bl.netrep.test';
const qn = (ip: string) => ipToQueryName(ip, ZONE) as string;

function createFeed() {
  const index = createListingIndex([{ ip: '192.0.2.10', returnCode: '127.0.0.3', reason: 'malware C2' }]);
  const listeners = new Set<ListingChangeListener>();
  return {
    index,
    onChange(listener: ListingChangeListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(ip: string, value: ListingValue | null) {
      if (value) index.set(ip, value);
      else index.delete(ip);
      for (const l of listeners) l(ip, value);
    },
  };
}

function createLogger() {
  const lines: { level: string; msg: string }[] = [];
  /** The errors logged with their lines, for a failure's message (the lines are compared). */
  const errors: string[] = [];
  const keep = (fields: { err?: unknown }) => {
    if (fields.err) errors.push(String((fields.err as Error).stack ?? fields.err));
  };
  return {
    lines,
    errors,
    warn: (fields: { err?: unknown }, msg = '') => {
      keep(fields);
      lines.push({ level: 'warn', msg });
    },
    error: (fields: { err?: unknown }, msg = '') => {
      keep(fields);
      lines.push({ level: 'error', msg });
    },
  };
}

/** Waits (20 s at most) until the server has restarted a thread more than `restarts` times. */
async function restartedAfter(
  server: DnsblThread,
  restarts: number,
  logger: ReturnType<typeof createLogger>,
): Promise<void> {
  const started = performance.now();
  while (server.restarts === restarts) {
    if (performance.now() - started > 20_000)
      throw new Error(
        `not restarted within 20 s; logged: ${JSON.stringify({ lines: logger.lines, errors: logger.errors })}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rcode = async (port: number, ip: string) =>
  (await queryUdp(port, [{ name: qn(ip), type: 'A' }]))[0]?.rcode;

describe('DNSBL server thread', () => {
  let server: DnsblThread | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers from the snapshot, then every change in the next answer', async () => {
    const feed = createFeed();
    server = await startDnsblThread({
      zone: ZONE,
      listen: '127.0.0.1:0',
      feed,
      lookupPrefix: 'http://a.test/ip/',
    });
    const port = server.udpPort;
    expect(server.tcpPort).toBe(port);
    const a = await dig(port, qn('192.0.2.10'), 'A');
    expect(a.answers.map((x) => x.data)).toEqual(['127.0.0.3']);
    expect((await dig(port, qn('192.0.2.10'), 'TXT', ['+tcp'])).answers[0]?.data).toContain(
      'malware C2; http://a.test/ip/192.0.2.10',
    );
    for (let i = 0; i < 20; i++) {
      const ip = `198.51.100.${i}`;
      feed.set(ip, { returnCode: '127.0.0.2', reason: 'spam' });
      expect(await rcode(port, ip)).toBe('NOERROR');
      feed.set(ip, null);
      expect(await rcode(port, ip)).toBe('NXDOMAIN');
    }
    feed.set('2001:db8::7', { returnCode: '127.0.0.4', reason: 'phish' });
    expect((await dig(port, qn('2001:db8::7'), 'A')).answers[0]?.data).toBe('127.0.0.4');
    server.setLookupPrefix('https://b.test/ip/');
    expect((await dig(port, qn('2001:db8::7'), 'TXT')).answers[0]?.data).toContain(
      'https://b.test/ip/2001:db8::7',
    );
    expect(server.restarts).toBe(0);
    // The RFC 5782 test entry says what the HTTP checks say (wire.ts writes the text out).
    expect((await dig(port, qn('127.0.0.2'), 'TXT')).answers[0]?.data).toContain(TEST_ENTRY_REASON);
  });

  it('restarts a thread that ends on its own, on the same port, with the changes made meanwhile', async () => {
    const feed = createFeed();
    const logger = createLogger();
    server = await startDnsblThread({ zone: ZONE, listen: '127.0.0.1:0', feed, lookupPrefix: 'x/', logger });
    const port = server.udpPort;
    const first = server.worker;
    await first.terminate();
    feed.set('203.0.113.5', { returnCode: '127.0.0.2', reason: 'while down' });
    await restartedAfter(server, 0, logger);
    expect(server.worker).not.toBe(first);
    expect(server.udpPort).toBe(port);
    expect(await rcode(port, '203.0.113.5')).toBe('NOERROR');
    expect(await rcode(port, '192.0.2.10')).toBe('NOERROR');
    expect((await dig(port, qn('203.0.113.5'), 'A', ['+tcp'])).status).toBe('NOERROR');
    // Logged; a restart that finds the port not yet free (the kernel closing the old sockets) says
    // so and tries again. Before the exit line, only what the ending thread's TCP server said
    // (on Node 22.23, 2026-11-28: a "TCP server error" warning as the thread ended).
    const exit = logger.lines.findIndex(
      (l) => l.level === 'error' && l.msg === 'dnsbl: the DNS thread exited with code 1; restarting it',
    );
    expect(exit, JSON.stringify(logger.lines)).toBeGreaterThanOrEqual(0);
    expect(logger.lines.slice(0, exit)).toEqual(
      logger.lines.slice(0, exit).map(() => ({ level: 'warn', msg: 'dnsbl: TCP server error' })),
    );
    expect(logger.lines.at(-1)).toEqual({
      level: 'warn',
      msg: 'dnsbl: the DNS thread was restarted and answers again',
    });
  });

  // Both UDP paths: the addon duplicates the descriptor itself, node:dgram through shared-udp.ts.
  it.skipIf(process.platform !== 'linux').each(UDP_PATHS)(
    'two threads read the one UDP socket, each its own descriptor; the one left answers while the other restarts (UDP through $name)',
    async ({ batchedUdp }) => {
      const feed = createFeed();
      const logger = createLogger();
      server = await startDnsblThread({
        zone: ZONE,
        listen: '127.0.0.1:0',
        feed,
        lookupPrefix: 'x/',
        logger,
        threads: 2,
        udpIo: batchedUdp ? 'batched' : 'dgram',
      });
      const port = server.udpPort;
      expect(server.workers).toHaveLength(2);
      expect(udpDescriptors(port)).toHaveLength(2);
      // Each thread keeps its own index: a change is in every answer, whichever thread reads it.
      for (let i = 0; i < 20; i++) {
        const ip = `198.51.100.${i}`;
        feed.set(ip, { returnCode: '127.0.0.2', reason: 'spam' });
        expect(await rcode(port, ip)).toBe('NOERROR');
        feed.set(ip, null);
        expect(await rcode(port, ip)).toBe('NXDOMAIN');
      }
      for (const which of [0, 1]) {
        const ending = server.workers[which] as Worker;
        const restarts = server.restarts;
        await ending.terminate();
        // The other thread's descriptor keeps the socket bound and answering.
        expect(udpDescriptors(port).length).toBeGreaterThanOrEqual(1);
        feed.set('203.0.113.5', { returnCode: '127.0.0.2', reason: 'while down' });
        expect(await rcode(port, '203.0.113.5')).toBe('NOERROR');
        feed.set('203.0.113.5', null);
        await restartedAfter(server, restarts, logger);
        expect(server.workers).toHaveLength(2);
        expect(server.workers).not.toContain(ending);
        expect(udpDescriptors(port)).toHaveLength(2);
        expect(await rcode(port, '203.0.113.5')).toBe('NXDOMAIN');
        // TCP is the first thread's: served again once it is back.
        expect((await dig(port, qn('192.0.2.10'), 'A', ['+tcp'])).answers[0]?.data).toBe('127.0.0.3');
      }
      expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
        'dnsbl: the DNS thread exited with code 1; restarting it',
        'dnsbl: the DNS thread exited with code 1; restarting it',
      ]);
      await server.close();
      server = undefined;
      expect(udpDescriptors(port)).toEqual([]);
    },
  );

  it.skipIf(process.platform !== 'linux')('threads: 0 starts one per CPU core, at most two', async () => {
    server = await startDnsblThread({
      zone: ZONE,
      listen: '127.0.0.1:0',
      feed: createFeed(),
      lookupPrefix: 'x/',
      threads: 0,
    });
    const expected = Math.min(2, os.availableParallelism());
    expect(server.workers).toHaveLength(expected);
    expect(udpDescriptors(server.udpPort)).toHaveLength(expected);
    expect(await rcode(server.udpPort, '192.0.2.10')).toBe('NOERROR');
  });

  it.skipIf(!dnsUdp || process.platform !== 'linux')(
    'gives each DNS thread, and only them, the scheduler slice asked for (Linux 6.12+)',
    async () => {
      const sliceOf = (tid: string) =>
        Number(/se\.slice\s+:\s+(\d+)/.exec(fs.readFileSync(`/proc/self/task/${tid}/sched`, 'utf8'))?.[1]);
      const [major = 0, minor = 0] = os
        .release()
        .split('.')
        .map((x) => Number.parseInt(x, 10));
      const before = new Map(fs.readdirSync('/proc/self/task').map((tid) => [tid, sliceOf(tid)]));
      const logger = createLogger();
      server = await startDnsblThread({
        zone: ZONE,
        listen: '127.0.0.1:0',
        feed: createFeed(),
        lookupPrefix: 'x/',
        logger,
        threads: 2,
        sliceUs: 150,
      });
      const sliced = fs.readdirSync('/proc/self/task').filter((tid) => sliceOf(tid) === 150_000);
      if (major > 6 || (major === 6 && minor >= 12)) {
        expect(sliced).toHaveLength(2);
        expect(sliced.some((tid) => before.has(tid))).toBe(false);
      } else {
        expect(logger.lines.map((l) => l.msg).join('\n')).toContain('keeps no per-thread slice');
      }
      // The others kept theirs.
      for (const [tid, slice] of before)
        if (fs.existsSync(`/proc/self/task/${tid}`)) expect(sliceOf(tid)).toBe(slice);
      expect(await rcode(server.udpPort, '192.0.2.10')).toBe('NOERROR');
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'gives the thread, and only it, the nice value asked for',
    async () => {
      const niceOf = (tid: string) =>
        Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]);
      const before = new Set(fs.readdirSync('/proc/self/task'));
      server = await startDnsblThread({
        zone: ZONE,
        listen: '127.0.0.1:0',
        feed: createFeed(),
        lookupPrefix: 'x/',
        nice: 7,
      });
      const niced = fs.readdirSync('/proc/self/task').filter((tid) => niceOf(tid) === 7);
      expect(niced).toHaveLength(1);
      expect(before.has(niced[0] as string)).toBe(false);
      expect(niceOf(String(process.pid))).toBe(os.getPriority());
      expect(await rcode(server.udpPort, '192.0.2.10')).toBe('NOERROR');
    },
  );

  it.skipIf(!dnsUdp || process.platform !== 'linux')(
    'a second instance on the port of a two-thread one (SO_REUSEPORT sockets) fails its start with EADDRINUSE, and the first answers on',
    async () => {
      const feed = createFeed();
      server = await startDnsblThread({
        zone: ZONE,
        listen: '127.0.0.1:0',
        feed,
        lookupPrefix: 'x/',
        threads: 2,
      });
      const port = server.udpPort;
      // Each thread its own socket on the port: two sockets (inodes), one descriptor each.
      expect(udpDescriptors(port)).toHaveLength(2);
      const second = startDnsblThread({
        zone: ZONE,
        listen: `127.0.0.1:${port}`,
        feed,
        lookupPrefix: 'y/',
        threads: 2,
      });
      await expect(second).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(udpDescriptors(port)).toHaveLength(2);
      // Every query is the first instance's (the second's UDP socket is gone with its start).
      for (let i = 0; i < 20; i++) {
        const t = await dig(port, qn('192.0.2.10'), 'TXT');
        expect(t.answers[0]?.data).toContain('x/192.0.2.10');
      }
    },
  );

  it('close ends the thread and frees the port; a taken port fails the start with its code', async () => {
    const feed = createFeed();
    const running = await startDnsblThread({ zone: ZONE, listen: '127.0.0.1:0', feed, lookupPrefix: 'x/' });
    const port = running.udpPort;
    const worker = running.worker;
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    await running.close();
    await exited;
    expect(running.restarts).toBe(0);
    const holder = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => holder.bind(port, '127.0.0.1', resolve));
    try {
      const failed = startDnsblThread({ zone: ZONE, listen: `127.0.0.1:${port}`, feed, lookupPrefix: 'x/' });
      await expect(failed).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      holder.close();
    }
  });
});
