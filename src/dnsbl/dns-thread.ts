/**
 * Runs the DNSBL server on its own thread (dns-worker.ts), so its answers' tail does not follow
 * whatever else the process does. The thread gets a snapshot of the listing index (typed arrays,
 * transferred) and then every change the mirror makes, batched per tick; it is restarted on the
 * same port when it ends on its own.
 */
import net from 'node:net';
import os from 'node:os';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { type Clock, systemClock } from '../core/clock.ts';
import { batchedUdpChosen } from './batch-udp.ts';
import type { ListingChangeListener } from './blocklist-mirror.ts';
import {
  ANSWER_ERRORS,
  type ChangeBatch,
  COUNTERS,
  type DnsThreadData,
  type DnsThreadServerSettings,
  type HostMessage,
  POSTED,
  type ThreadMessage,
} from './dns-thread-protocol.ts';
import { type ListingIndexSnapshot, snapshotTransferList } from './listing-index.ts';
import type { DnsblServer } from './server.ts';
import { udpDescriptors } from './shared-udp.ts';
import type { DnsblLogger, ListingValue } from './types.ts';

/** What the thread is fed from: the blocklist mirror. */
export interface ListingFeed {
  index: { snapshot(): ListingIndexSnapshot };
  onChange(listener: ListingChangeListener): () => void;
}

export interface DnsblThreadOptions extends DnsThreadServerSettings {
  listen: string;
  feed: ListingFeed;
  /** TXT answers link to this followed by the address (`setLookupPrefix` changes it). */
  lookupPrefix: string;
  logger?: DnsblLogger;
  clock?: Clock;
  /** The threads' nice value (NETREP_DNSBL_THREAD_NICE); default 0, the process's. */
  nice?: number;
  /** The threads' EEVDF slice in µs (NETREP_DNSBL_THREAD_SLICE_US; needs the addon); 0 leaves the kernel's. */
  sliceUs?: number;
  /** NETREP_DNSBL_UDP_IO: `auto` (the addon where built), `batched` or `dgram` (batch-udp.ts). */
  udpIo?: string;
  /**
   * DNS threads answering UDP on the port (NETREP_DNSBL_THREADS; default 1; 0: one per CPU core,
   * at most `AUTO_THREADS_MAX`): batched, each binds its own SO_REUSEPORT socket and the kernel
   * spreads the clients over them; on node:dgram they read the first's socket, each datagram going
   * to one of them. The first also serves TCP, bound exclusively: a second instance on the port
   * fails its start (with port 0, a retry picks another). On dgram where the socket's descriptor
   * cannot be found (not Linux) one serves, with a warning.
   */
  threads?: number;
}

export interface DnsblThread extends DnsblServer {
  setLookupPrefix(prefix: string): void;
  /** Times a thread was started again after it ended on its own. */
  readonly restarts: number;
  /** The first running thread, the one serving TCP (tests end it as a crash would). */
  readonly worker: Worker;
  /** Every running thread. */
  readonly workers: Worker[];
}

/** Two answered more than one on 2 cores, with dnsperf on the same cores (docs/benchmarks.md). */
const AUTO_THREADS_MAX = 2;
const CLOSE_WAIT_MS = 2000;
const RESTART_MAX_DELAY_MS = 5000;

interface Bound {
  udpPort: number;
  tcpPort: number;
  address: string;
}

interface Running {
  worker: Worker;
  changes: MessagePort;
  counters: Int32Array;
  seq: number;
}

/** A thread's place: slot 0 serves UDP and TCP, the others UDP; each restarts on its own. */
interface Slot {
  running: Running | null;
  /** Failed starts in a row (the restart waits longer after each). */
  failures: number;
  restartTimer: NodeJS.Timeout | null;
}

/** The worker, from compiled JS as it is, from TypeScript through the tsx loader the host runs under. */
function createWorker(data: DnsThreadData, transferList: (ArrayBuffer | MessagePort)[]): Worker {
  const ts = import.meta.url.endsWith('.ts');
  const entry = new URL(ts ? './dns-worker.ts' : './dns-worker.js', import.meta.url);
  const options = { workerData: data, transferList };
  if (!ts) return new Worker(entry, options);
  // A worker does not inherit a loader registered with register() (bin/netrep.js) nor, on Node 20,
  // one from --import: it registers tsx itself before importing the entry.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

function hostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

export async function startDnsblThread(options: DnsblThreadOptions): Promise<DnsblThread> {
  const host = new ThreadHost(options);
  await host.start();
  return host;
}

function serverSettings(o: DnsblThreadOptions): DnsThreadServerSettings {
  return {
    zone: o.zone,
    ...(o.soa ? { soa: o.soa } : {}),
    ...(o.ns ? { ns: o.ns } : {}),
    ...(o.ttl !== undefined ? { ttl: o.ttl } : {}),
    ...(o.tcp ? { tcp: o.tcp } : {}),
    ...(o.fastPath !== undefined ? { fastPath: o.fastPath } : {}),
  };
}

class ThreadHost implements DnsblThread {
  private readonly settings: DnsThreadServerSettings;
  private readonly clock: Clock;
  private lookupPrefix: string;
  private slots: Slot[] = [];
  private bound: Bound = { udpPort: 0, tcpPort: 0, address: '' };
  private closing = false;
  private restartCount = 0;
  /** Answer errors counted by threads that have ended. */
  private pastErrors = 0;
  private pending: [string, ListingValue | null][] = [];
  private flushQueued = false;
  private readonly unsubscribe: () => void;

  private readonly batchedUdp: boolean;

  constructor(private readonly options: DnsblThreadOptions) {
    this.settings = serverSettings(options);
    this.batchedUdp = batchedUdpChosen(options.udpIo ?? 'auto');
    this.clock = options.clock ?? systemClock;
    this.lookupPrefix = options.lookupPrefix;
    // Changes go out once per tick, in order, as one batch.
    this.unsubscribe = options.feed.onChange((ip, value) => {
      this.pending.push([ip, value]);
      if (this.flushQueued) return;
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    });
  }

  get udpPort() {
    return this.bound.udpPort;
  }
  get tcpPort() {
    return this.bound.tcpPort;
  }
  get address() {
    return this.bound.address;
  }
  get restarts() {
    return this.restartCount;
  }
  get worker() {
    return this.workers[0] as Worker;
  }
  get workers() {
    return this.running().map((r) => r.worker);
  }

  private running(): Running[] {
    return this.slots.flatMap((s) => (s.running ? [s.running] : []));
  }

  answerErrors(): number {
    let sum = this.pastErrors;
    for (const r of this.running()) sum += Atomics.load(r.counters, ANSWER_ERRORS);
    return sum;
  }

  setLookupPrefix(prefix: string): void {
    this.lookupPrefix = prefix;
    for (const r of this.running())
      r.worker.postMessage({ kind: 'lookup-prefix', prefix } satisfies HostMessage);
  }

  async start(): Promise<void> {
    const asked = Math.floor(this.options.threads ?? 1);
    const wanted = asked > 0 ? asked : Math.min(AUTO_THREADS_MAX, os.availableParallelism());
    this.slots = Array.from({ length: wanted }, () => ({ running: null, failures: 0, restartTimer: null }));
    try {
      this.bound = await this.spawn(0, this.options.listen);
      // Batched, each thread binds its own socket (SO_REUSEPORT); on dgram they share one.
      if (wanted > 1 && !this.batchedUdp && this.sharedFd() === null) {
        this.options.logger?.warn(
          { threads: wanted },
          "dnsbl: the UDP socket's descriptor cannot be found (/proc); one DNS thread serves",
        );
        this.slots.length = 1;
      }
      await this.spawnExtras();
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** The threads after the first; one that cannot start leaves the others serving, logged. */
  private async spawnExtras(): Promise<void> {
    for (let i = 1; i < this.slots.length; i++) {
      try {
        await this.spawn(i, this.listenAgain());
      } catch (err) {
        this.options.logger?.error(
          { err, threads: i },
          `dnsbl: DNS thread ${i + 1} of ${this.slots.length} did not start; ${i} serve`,
        );
        this.slots.length = i;
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.unsubscribe();
    for (const slot of this.slots) if (slot.restartTimer) clearTimeout(slot.restartTimer);
    await Promise.all(this.slots.map((slot) => this.stop(slot)));
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.pending.length === 0) return;
    // Every thread gets the same batch (each keeps its own index); none running: the next
    // thread's snapshot holds them.
    for (const running of this.running()) {
      const batch: ChangeBatch = { seq: ++running.seq, changes: this.pending };
      running.changes.postMessage(batch);
      Atomics.store(running.counters, POSTED, batch.seq);
    }
    this.pending = [];
  }

  private listenAgain(): string {
    return hostPort(this.bound.address, this.bound.udpPort);
  }

  /** A descriptor of the bound UDP socket while some thread holds it open; null: bind it anew. */
  private sharedFd(): number | null {
    return this.bound.udpPort === 0 ? null : (udpDescriptors(this.bound.udpPort)[0] ?? null);
  }

  /**
   * Starts the thread of `slot` on `listen`; resolves once it listens, rejects (with the bind
   * error's code) if it cannot. It reads the UDP socket the other threads read when one is open.
   */
  private spawn(index: number, listen: string): Promise<Bound> {
    const slot = this.slots[index] as Slot;
    // Changes not yet posted go to the running threads first: the snapshot holds them already.
    this.flush();
    const snapshot = this.options.feed.index.snapshot();
    const udpFd = this.batchedUdp ? null : this.sharedFd();
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(COUNTERS * 4);
    const data: DnsThreadData = {
      server: this.settings,
      listen,
      ...(udpFd === null ? {} : { udpFd }),
      serveTcp: index === 0,
      lookupPrefix: this.lookupPrefix,
      nowMs: this.clock(),
      nice: this.options.nice ?? 0,
      sliceUs: this.options.sliceUs ?? 0,
      batchedUdp: this.batchedUdp,
      reusePort: this.batchedUdp && this.slots.length > 1,
      snapshot,
      changes: port2,
      counters: shared,
    };
    const worker = createWorker(data, [port2, ...snapshotTransferList(snapshot)]);
    const running: Running = { worker, changes: port1, counters: new Int32Array(shared), seq: 0 };
    slot.running = running;
    let ready = false;
    // A start that fails rejects once the thread has ended (its sockets closed).
    let failure: Error | null = null;
    return new Promise((resolve, reject) => {
      worker.on('message', (m: ThreadMessage) => {
        if (m.kind === 'ready') {
          ready = true;
          resolve(m);
        } else if (m.kind === 'failed') failure = Object.assign(new Error(m.error.message), m.error);
        else if (m.kind === 'log') this.options.logger?.[m.level](m.err ? { err: m.err } : {}, m.msg);
      });
      worker.on('error', (err) => {
        this.options.logger?.error({ err }, 'dnsbl: the DNS thread failed');
        failure ??= err;
      });
      worker.once('exit', (code) => {
        this.exited(slot, running, code, ready);
        reject(failure ?? new Error(`the DNS thread exited with code ${code} before listening`));
      });
    });
  }

  private exited(slot: Slot, running: Running, code: number, wasReady: boolean): void {
    running.changes.close();
    this.pastErrors += Atomics.load(running.counters, ANSWER_ERRORS);
    if (slot.running !== running) return;
    slot.running = null;
    if (!wasReady || this.closing) return;
    this.options.logger?.error(
      { exitCode: code },
      `dnsbl: the DNS thread exited with code ${code}; restarting it`,
    );
    this.scheduleRestart(slot);
  }

  private scheduleRestart(slot: Slot): void {
    // At once the first time; after a failed start, waiting longer each time.
    const delay = slot.failures === 0 ? 0 : Math.min(RESTART_MAX_DELAY_MS, 100 * 2 ** slot.failures);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      if (!this.closing) void this.restart(slot);
    }, delay);
  }

  private async restart(slot: Slot): Promise<void> {
    const logger = this.options.logger;
    try {
      await this.spawn(this.slots.indexOf(slot), this.listenAgain());
    } catch (err) {
      slot.failures++;
      logger?.error({ err }, 'dnsbl: restarting the DNS thread failed; trying again');
      if (!this.closing) this.scheduleRestart(slot);
      return;
    }
    this.restartCount++;
    slot.failures = 0;
    logger?.warn({ restarts: this.restartCount }, 'dnsbl: the DNS thread was restarted and answers again');
    if (this.closing) await this.stop(slot);
  }

  private async stop(slot: Slot): Promise<void> {
    const running = slot.running;
    if (!running) return;
    const exited = new Promise<void>((resolve) => running.worker.once('exit', () => resolve()));
    running.worker.postMessage({ kind: 'close' } satisfies HostMessage);
    const timer = setTimeout(() => void running.worker.terminate(), CLOSE_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }
}
