/**
 * Runs the DNSBL server on its own thread (dns-worker.ts), so its answers' tail does not follow
 * whatever else the process does. The thread gets a snapshot of the listing index (typed arrays,
 * transferred) and then every change the mirror makes, batched per tick; it is restarted on the
 * same port when it ends on its own.
 */
import net from 'node:net';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { type Clock, systemClock } from '../core/clock.ts';
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
  /** The thread's nice value (NETREP_DNSBL_THREAD_NICE); default 0, the process's. */
  nice?: number;
}

export interface DnsblThread extends DnsblServer {
  setLookupPrefix(prefix: string): void;
  /** Times the thread was started again after it ended on its own. */
  readonly restarts: number;
  /** The running thread (tests end it as a crash would). */
  readonly worker: Worker;
}

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
  private current: Running | null = null;
  private bound: Bound = { udpPort: 0, tcpPort: 0, address: '' };
  private closing = false;
  private restartCount = 0;
  /** Answer errors counted by threads that have ended. */
  private pastErrors = 0;
  /** Failed starts in a row (the restart waits longer after each). */
  private failures = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private pending: [string, ListingValue | null][] = [];
  private flushQueued = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: DnsblThreadOptions) {
    this.settings = serverSettings(options);
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
    return (this.current as Running).worker;
  }

  answerErrors(): number {
    return this.pastErrors + (this.current ? Atomics.load(this.current.counters, ANSWER_ERRORS) : 0);
  }

  setLookupPrefix(prefix: string): void {
    this.lookupPrefix = prefix;
    this.current?.worker.postMessage({ kind: 'lookup-prefix', prefix } satisfies HostMessage);
  }

  async start(): Promise<void> {
    try {
      this.bound = await this.spawn(this.options.listen);
    } catch (err) {
      this.closing = true;
      this.unsubscribe();
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.unsubscribe();
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.stop();
  }

  private flush(): void {
    this.flushQueued = false;
    const running = this.current;
    if (!running || this.pending.length === 0) return;
    const batch: ChangeBatch = { seq: ++running.seq, changes: this.pending };
    this.pending = [];
    running.changes.postMessage(batch);
    Atomics.store(running.counters, POSTED, batch.seq);
  }

  /** Starts a thread on `listen`; resolves once it listens, rejects (with the bind error's code) if it cannot. */
  private spawn(listen: string): Promise<Bound> {
    // The snapshot holds every change so far: batches not yet posted were for the old thread.
    const snapshot = this.options.feed.index.snapshot();
    this.pending = [];
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(COUNTERS * 4);
    const data: DnsThreadData = {
      server: this.settings,
      listen,
      lookupPrefix: this.lookupPrefix,
      nowMs: this.clock(),
      nice: this.options.nice ?? 0,
      snapshot,
      changes: port2,
      counters: shared,
    };
    const worker = createWorker(data, [port2, ...snapshotTransferList(snapshot)]);
    const running: Running = { worker, changes: port1, counters: new Int32Array(shared), seq: 0 };
    this.current = running;
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
        this.exited(running, code, ready);
        reject(failure ?? new Error(`the DNS thread exited with code ${code} before listening`));
      });
    });
  }

  private exited(running: Running, code: number, wasReady: boolean): void {
    running.changes.close();
    this.pastErrors += Atomics.load(running.counters, ANSWER_ERRORS);
    if (this.current !== running) return;
    this.current = null;
    if (!wasReady || this.closing) return;
    this.options.logger?.error(
      { exitCode: code },
      `dnsbl: the DNS thread exited with code ${code}; restarting it`,
    );
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    // At once the first time; after a failed start, waiting longer each time.
    const delay = this.failures === 0 ? 0 : Math.min(RESTART_MAX_DELAY_MS, 100 * 2 ** this.failures);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.closing) void this.restart();
    }, delay);
  }

  private async restart(): Promise<void> {
    const logger = this.options.logger;
    try {
      await this.spawn(hostPort(this.bound.address, this.bound.udpPort));
    } catch (err) {
      this.failures++;
      logger?.error({ err }, 'dnsbl: restarting the DNS thread failed; trying again');
      if (!this.closing) this.scheduleRestart();
      return;
    }
    this.restartCount++;
    this.failures = 0;
    logger?.warn({ restarts: this.restartCount }, 'dnsbl: the DNS thread was restarted and answers again');
    if (this.closing) await this.stop();
  }

  private async stop(): Promise<void> {
    const running = this.current;
    if (!running) return;
    const exited = new Promise<void>((resolve) => running.worker.once('exit', () => resolve()));
    running.worker.postMessage({ kind: 'close' } satisfies HostMessage);
    const timer = setTimeout(() => void running.worker.terminate(), CLOSE_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }
}
