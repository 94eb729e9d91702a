/**
 * The DNS thread's entry (started by dns-thread.ts): binds the DNSBL server's UDP and TCP sockets
 * and answers from its own copy of the listing index, built from the host's snapshot and kept
 * equal to it by the change batches the host posts. Nothing else runs on this event loop and
 * heap, so the answers' latency does not follow the HTTP API, the workers or dataset swaps.
 */
import type dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { dnsUdp, setThreadSlice } from './batch-udp.ts';
import {
  ANSWER_ERRORS,
  type ChangeBatch,
  type DnsThreadData,
  type HostMessage,
  POSTED,
  plainError,
  type ThreadMessage,
} from './dns-thread-protocol.ts';
import { createListingIndex, type FastListingIndex } from './listing-index.ts';
import { createUdpSocket, type DnsblServer, parseListen, startDnsblServer } from './server.ts';
import { adoptUdpSocket } from './shared-udp.ts';
import type { DnsblLogger } from './types.ts';

const data = workerData as DnsThreadData;
const host = parentPort;
if (!host) throw new Error('dns-worker.ts runs as a worker thread (dns-thread.ts starts it)');
const post = (m: ThreadMessage) => host.postMessage(m);

const index = createListingIndex(data.snapshot);
const counters = new Int32Array(data.counters);
let applied = 0;

function apply(batch: ChangeBatch): void {
  for (const [ip, value] of batch.changes) {
    if (value) index.set(ip, value);
    else index.delete(ip);
  }
  applied = batch.seq;
}

/** Takes the batches already posted but not yet delivered by the event loop (one atomic read when none). */
function sync(): void {
  if (Atomics.load(counters, POSTED) === applied) return;
  for (let m = receiveMessageOnPort(data.changes); m; m = receiveMessageOnPort(data.changes)) {
    apply(m.message as ChangeBatch);
  }
}

/** The index as the server reads it: current with every batch posted before the lookup. */
const view: FastListingIndex = {
  get(ip) {
    sync();
    return index.get(ip);
  },
  getIpv4(int) {
    sync();
    return index.getIpv4(int);
  },
  getIpv6(hex) {
    sync();
    return index.getIpv6(hex);
  },
  get size() {
    return index.size;
  },
  set: (ip, value) => index.set(ip, value),
  delete: (ip) => index.delete(ip),
  replaceAll: (listings) => index.replaceAll(listings),
};

const logger: DnsblLogger = {
  warn: (obj, msg) => log('warn', obj, msg),
  error: (obj, msg) => log('error', obj, msg),
};

function log(level: 'warn' | 'error', obj: object, msg = ''): void {
  // The server logs each failed answer as it counts it: the host reads the count at scrape time.
  Atomics.store(counters, ANSWER_ERRORS, server?.answerErrors() ?? 0);
  const err = (obj as { err?: unknown }).err;
  post({ kind: 'log', level, msg, ...(err === undefined ? {} : { err: plainError(err) }) });
}

let lookupPrefix = data.lookupPrefix;
let server: DnsblServer | null = null;
let closing = false;

data.changes.on('message', (batch: ChangeBatch) => apply(batch));
host.on('message', (m: HostMessage) => {
  if (m.kind === 'lookup-prefix') lookupPrefix = m.prefix;
  else {
    closing = true;
    // Still binding: the start below closes the server once it is up.
    if (server) void close(server);
  }
});

/** Closes the sockets and the ports; with nothing left on its loop the thread ends. */
async function close(running: DnsblServer | null): Promise<void> {
  await running?.close();
  post({ kind: 'closed' });
  data.changes.close();
  host?.close();
}

/**
 * Linux keeps a nice value per thread: setpriority on this thread's id (from /proc/thread-self)
 * changes this thread only, so DNS can be put ahead of the HTTP API on a busy machine.
 */
function setThreadNice(nice: number): void {
  if (nice === 0) return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').at(-1));
    os.setPriority(tid, nice);
  } catch (err) {
    logger.warn(
      { err },
      `dnsbl: cannot set the DNS thread's nice value to ${nice}; it stays as the process's`,
    );
  }
}

/**
 * The thread's EEVDF slice (Linux 6.12+): woken by a query, a thread on a short slice runs before
 * a busy thread on the default one has used its own (1.4 ms on the 2-core machines of CI).
 */
function setSlice(us: number): void {
  // The slice is set through the addon; without it the thread keeps the kernel's.
  if (us === 0 || !dnsUdp) return;
  try {
    const got = setThreadSlice(us * 1000);
    if (got === 0) {
      logger.warn(
        {},
        `dnsbl: this kernel keeps no per-thread slice (Linux 6.12+); NETREP_DNSBL_THREAD_SLICE_US=${us} does nothing`,
      );
    }
  } catch (err) {
    logger.warn({ err }, `dnsbl: cannot set the DNS thread's slice to ${us} µs; it keeps the kernel's`);
  }
}

/** The UDP socket another DNS thread reads, through this thread's own descriptor; none: bind one. */
async function sharedSocket(): Promise<{ udpSocket: dgram.Socket } | object> {
  if (data.udpFd === undefined) return {};
  const { host, port } = parseListen(data.listen);
  const socket = createUdpSocket(host);
  await adoptUdpSocket(socket, data.udpFd, { type: net.isIPv6(host) ? 'udp6' : 'udp4', address: host, port });
  return { udpSocket: socket };
}

setThreadNice(data.nice);
setSlice(data.sliceUs);
try {
  server = await startDnsblServer({
    ...data.server,
    listen: data.listen,
    batchedUdp: data.batchedUdp,
    reusePort: data.reusePort,
    ...(await sharedSocket()),
    serveTcp: data.serveTcp,
    index: view,
    lookupUrl: (ip) => lookupPrefix + ip,
    logger,
    clock: () => data.nowMs,
  });
  post({ kind: 'ready', udpPort: server.udpPort, tcpPort: server.tcpPort, address: server.address });
  if (closing) await close(server);
} catch (err) {
  post({ kind: 'failed', error: plainError(err) });
  await close(null);
}
