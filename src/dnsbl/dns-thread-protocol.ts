/** What the DNS thread (dns-worker.ts) and its host (dns-thread.ts) send each other. */
import type { MessagePort } from 'node:worker_threads';
import type { ListingIndexSnapshot } from './listing-index.ts';
import type { DnsblServerOptions } from './server.ts';
import type { ListingValue } from './types.ts';

/** The server's settings that cross the thread boundary (no functions: the lookup URL is a prefix). */
export type DnsThreadServerSettings = Pick<
  DnsblServerOptions,
  'zone' | 'soa' | 'ns' | 'ttl' | 'tcp' | 'fastPath'
>;

export interface DnsThreadData {
  server: DnsThreadServerSettings;
  /** `host:port`: bound as given, or, with `udpFd`, the address of the socket it names. */
  listen: string;
  /**
   * A descriptor of the UDP socket already bound on `listen`, which other DNS threads read: this
   * thread reads its own duplicate of it (shared-udp.ts) instead of binding (node:dgram only).
   */
  udpFd?: number;
  /** This thread serves TCP (the first of the DNS threads; the others UDP only). */
  serveTcp: boolean;
  /** TXT answers link to this followed by the address. */
  lookupPrefix: string;
  /** Epoch ms of the default SOA serial (the host's clock). */
  nowMs: number;
  /** Nice value for the thread (Linux); 0 leaves it as the process's. */
  nice: number;
  /** The thread's EEVDF slice in microseconds (batch-udp.ts `setThreadSlice`); 0 leaves the kernel's. */
  sliceUs: number;
  /** UDP through the @netrep/dns-udp addon (checked built by the host) rather than node:dgram. */
  batchedUdp: boolean;
  /** With `batchedUdp` and several threads: each binds its own SO_REUSEPORT socket on the port. */
  reusePort: boolean;
  snapshot: ListingIndexSnapshot;
  /** Listing changes after the snapshot, in batches (`ChangeBatch`). */
  changes: MessagePort;
  /** Int32Array of `COUNTERS` slots, shared. */
  counters: SharedArrayBuffer;
}

/**
 * POSTED: the sequence number of the last batch the host posted on `changes`. The thread reads it
 * before each lookup and takes pending batches synchronously, so a change made before a query
 * was sent is in its answer, however the thread's event loop orders the two.
 * ANSWER_ERRORS: the thread's count of queries whose answering failed (for /metrics).
 */
export const POSTED = 0;
export const ANSWER_ERRORS = 1;
export const COUNTERS = 2;

export interface ChangeBatch {
  seq: number;
  /** In order: [ip, value] sets a listing, [ip, null] removes it. */
  changes: [string, ListingValue | null][];
}

/** Host → thread on the worker's own port. */
export type HostMessage = { kind: 'lookup-prefix'; prefix: string } | { kind: 'close' };

/** An error as it crosses the thread boundary, for the host's logger (pino reads message and stack). */
export interface PlainError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

/** Thread → host. */
export type ThreadMessage =
  | { kind: 'ready'; udpPort: number; tcpPort: number; address: string }
  | { kind: 'failed'; error: PlainError }
  | { kind: 'log'; level: 'warn' | 'error'; msg: string; err?: PlainError }
  | { kind: 'closed' };

export function plainError(err: unknown): PlainError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const code = (err as NodeJS.ErrnoException).code;
  return {
    name: err.name,
    message: err.message,
    ...(err.stack === undefined ? {} : { stack: err.stack }),
    ...(typeof code === 'string' ? { code } : {}),
  };
}
