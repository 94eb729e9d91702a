/**
 * The DNSBL server's UDP through the @netrep/dns-udp addon (native/dns-udp): one recvmmsg reads
 * up to BATCH queries, one JavaScript call answers them all and one sendmmsg sends the answers.
 * Node's dgram makes one receive, one callback and one send per datagram, which was most of a
 * query's cost (docs/benchmarks.md). Where the addon was not built (not Linux, no compiler) or
 * NETREP_DNSBL_UDP_IO=dgram chooses, the server answers through node:dgram as before.
 */
import { createRequire } from 'node:module';
import type { Responder } from './responder.ts';

interface DnsUdpBinding {
  bind(host: string, port: number, reusePort?: boolean): number;
  address(fd: number): { address: string; port: number; family: 'IPv4' | 'IPv6' };
  serve(
    fd: number,
    batch: number,
    slot: number,
    input: Buffer,
    lengths: Int32Array,
    output: Buffer,
    outLengths: Int32Array,
    callback: (count: number) => void,
  ): object;
  close(server: object): void;
  setSlice(ns: number): number;
}

function load(): DnsUdpBinding | null {
  try {
    return createRequire(import.meta.url)('@netrep/dns-udp') as DnsUdpBinding | null;
  } catch {
    return null;
  }
}

/** The addon, or null where it is not built. */
export const dnsUdp: DnsUdpBinding | null = load();

/** NETREP_DNSBL_UDP_IO: whether UDP goes through the addon. */
export function batchedUdpChosen(setting: string): boolean {
  if (setting === 'dgram') return false;
  if (setting === 'batched') {
    if (!dnsUdp) {
      throw new Error(
        'NETREP_DNSBL_UDP_IO=batched, but the @netrep/dns-udp addon is not built (npm install builds it on Linux with a C compiler)',
      );
    }
    return true;
  }
  if (setting !== 'auto')
    throw new Error(`NETREP_DNSBL_UDP_IO must be auto, batched or dgram (got "${setting}")`);
  return dnsUdp !== null;
}

/** Queries read per system call: a burst of 32 is answered at once, a lone query alone. */
const BATCH = 32;
/** The largest UDP payload fits a slot, so no query is cut. */
const SLOT = 65_536;

export interface BatchedUdp {
  port: number;
  close(): Promise<void>;
}

function binding(): DnsUdpBinding {
  if (!dnsUdp) throw new Error('the @netrep/dns-udp addon is not built');
  return dnsUdp;
}

/**
 * A new socket bound to host:port (port 0: the kernel picks one). `reusePort`: each DNS thread
 * binds its own socket on the port (SO_REUSEPORT) and the kernel spreads the clients over them,
 * so a query wakes one thread; on one shared socket every thread polling it was woken.
 */
export function bindBatchedUdp(host: string, port: number, reusePort = false): number {
  return binding().bind(host, port, reusePort);
}

/** Answers the queries that arrive on `fd` (which it then owns and closes) with `responder`. */
export function serveBatchedUdp(fd: number, responder: Responder): BatchedUdp {
  const b = binding();
  // Not zero-filled: a slot's pages are touched only as far as its messages reach.
  const input = Buffer.allocUnsafeSlow(BATCH * SLOT);
  const output = Buffer.allocUnsafeSlow(BATCH * SLOT);
  const lengths = new Int32Array(BATCH);
  const outLengths = new Int32Array(BATCH);
  // One view per slot, made once: a query is read and its answer written in place, so answering
  // allocates nothing for an A answer, and the thread's young generation fills slowly (a Buffer
  // per query and per answer had it collected about three times a second at 10,000 qps).
  const slotsOf = (buffer: Buffer) =>
    Array.from({ length: BATCH }, (_, i) => buffer.subarray(i * SLOT, (i + 1) * SLOT));
  const queries = slotsOf(input);
  const answers = slotsOf(output);
  const { port } = b.address(fd);
  const server = b.serve(fd, BATCH, SLOT, input, lengths, output, outLengths, (count) => {
    for (let i = 0; i < count; i++) {
      const length = lengths[i] as number;
      outLengths[i] =
        length < 0 ? -1 : responder.respondInto(queries[i] as Buffer, length, answers[i] as Buffer);
    }
  });
  let closed = false;
  return {
    port,
    close() {
      if (!closed) {
        closed = true;
        b.close(server);
      }
      // libuv closes the descriptor in this loop iteration's close phase, after its immediates:
      // the second immediate runs once it is closed, so the port is free when this resolves.
      return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    },
  };
}

/**
 * The calling thread's EEVDF slice (Linux 6.12+; NETREP_DNSBL_THREAD_SLICE_US): a thread with a
 * short slice that wakes on a query preempts a thread on a longer one instead of waiting out its
 * slice. Returns the slice the kernel reports back (0: this kernel keeps none), or throws.
 */
export function setThreadSlice(ns: number): number {
  return binding().setSlice(ns);
}
