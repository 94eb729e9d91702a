/**
 * The service scan (issue #34): `service_title`, `service_server` and `tls_organization` of the
 * addresses users look up, found by one TLS and one HTTP request per port, safely. Off unless
 * NETREP_SCAN=on; lookups answer from stored results at once and queue what is missing; the
 * worker runs the queue under NETREP_SCAN_RATE.
 */
import { BoundedMap } from '../core/bounded-map.ts';
import type { Clock } from '../core/clock.ts';
import type { ParsedIp } from '../core/ip.ts';
import { createCounts, type RefusalKind, type ScanCounts } from './counts.ts';
import { createKnownAddresses, type KnownAddresses } from './known.ts';
import { answerOf, keepFor, type RowVerdict, verdictOf } from './rules.ts';
import { type ScannerSettings, scanAddress } from './scanner.ts';
import type { ScanRow, ScanStore } from './store.ts';
import { parseExcludeList, parsePorts, scanRefusal, scanRefusalOf, type TargetRules } from './target.ts';
import type { ScanAnswer, ScanReport } from './types.ts';

export type { ScanCounts } from './counts.ts';
export { createScanStore, type ScanStore } from './store.ts';
export type * from './types.ts';

export interface ScanSettings {
  enabled: boolean;
  /** NETREP_SCAN_PORTS entries (`443/tls`, `80`). */
  ports: readonly string[];
  /** NETREP_SCAN_EXCLUDE CIDRs. */
  exclude: readonly string[];
  contact: string;
  version: string;
  ttlSeconds: number;
  ratePerMinute: number;
  allowLoopback: boolean;
  connectTimeoutMs: number;
  deadlineMs: number;
  /** Extra trusted roots (tests' own CA). */
  ca?: string[];
}

export interface Scan {
  readonly enabled: boolean;
  /**
   * The scan part of a lookup's answer. Scanning off: `disabled`, from memory. Else one indexed
   * read (or the in-memory copy); a missing or expired result is queued when `mayQueue()` allows
   * it (the anonymous quota), else the answer says `refused`.
   */
  forLookup(ip: ParsedIp, mayQueue: () => boolean | Promise<boolean>): ScanAnswer | Promise<ScanAnswer>;
  /** Claims and runs queued scans until none is due, the minute's cap is reached or `stopping()`. */
  runDue(stopping?: () => boolean): Promise<number>;
  /** Scans now (the operator's `netrep scan`): the report, or why the address is never scanned. */
  scanNow(ip: string): Promise<{ refused: string } | { report: ScanReport }>;
  /** Resolves when the queue writes lookups started have ended (the app's close waits for them). */
  settled(): Promise<void>;
  counts(): ScanCounts;
}

/** The NETREP_SCAN_* settings, by their names in config.ts (structural: no import of it here). */
export function scanSettingsOf(
  c: {
    scan: boolean;
    scanPorts: readonly string[];
    scanExclude: readonly string[];
    scanContact: string;
    scanTtl: number;
    scanRate: number;
    scanAllowLoopback: boolean;
    scanConnectTimeoutMs: number;
    scanDeadlineMs: number;
  },
  version: string,
): ScanSettings {
  return {
    enabled: c.scan,
    ports: c.scanPorts,
    exclude: c.scanExclude,
    contact: c.scanContact,
    version,
    ttlSeconds: c.scanTtl,
    ratePerMinute: c.scanRate,
    allowLoopback: c.scanAllowLoopback,
    connectTimeoutMs: c.scanConnectTimeoutMs,
    deadlineMs: c.scanDeadlineMs,
  };
}

/** `netrep-scan/0.1.0 (+mailto:abuse@example.org)`: who is knocking and whom to tell. */
export function userAgentOf(version: string, contact: string): string {
  return `netrep-scan/${version}${contact ? ` (+${contact})` : ''}`;
}

const DISABLED: ScanAnswer = Object.freeze(answerOf('disabled')) as ScanAnswer;
/** An address with no row (known.ts said so): pending, to be queued. */
const ABSENT: RowVerdict = Object.freeze({ answer: Object.freeze(answerOf('pending')), queue: true });
/** Lanes of one worker pass: scans of different addresses at once. */
const LANES = 4;
const PENDING_KEEP_MS = 2000;
const RESULT_KEEP_MS = 600_000;

function refusalKind(reason: string): RefusalKind {
  return reason.includes('NETREP_SCAN_EXCLUDE') ? 'excluded' : 'not_public';
}

/** The scanner's settings; a scan never goes out without an operator contact in its User-Agent. */
function scannerOf(s: ScanSettings): ScannerSettings {
  if (!s.contact.trim())
    throw new Error(
      'NETREP_SCAN_CONTACT must name the operator (a URL or mailto:) before anything is scanned',
    );
  return {
    ports: parsePorts(s.ports),
    connectTimeoutMs: s.connectTimeoutMs,
    deadlineMs: s.deadlineMs,
    userAgent: userAgentOf(s.version, s.contact),
    ...(s.ca ? { ca: s.ca } : {}),
  };
}

/**
 * One scan now, outside the queue and its TTL (the operator's `netrep scan`): the target rules
 * still hold; nothing is stored.
 */
export async function scanOnce(
  s: ScanSettings,
  ip: string,
  clock: Clock,
): Promise<{ refused: string } | { report: ScanReport }> {
  const reason = scanRefusal(ip, { allowLoopback: s.allowLoopback, exclude: parseExcludeList(s.exclude) });
  if (reason) return { refused: reason };
  return { report: await scanAddress(ip, scannerOf(s), clock) };
}

type VerdictCache = BoundedMap<string, { verdict: RowVerdict; until: number }>;

/** Addresses queued by one statement at most (a burst of first lookups flushes in several). */
const QUEUE_BATCH = 500;
/** How long first lookups gather before their queue write: one statement for all of them. */
const QUEUE_GATHER_MS = 50;

/**
 * A lookup that queues a scan answers at once (issue #34: a lookup's latency does not change with
 * scanning on): the address waits in memory, and the first lookups of QUEUE_GATHER_MS are queued
 * together by one statement after their answers have gone, not one write each on the answer's
 * path (a write per lookup cost about 100 µs on SQLite, a third of the lookup). Until its write
 * ends, a lookup of the address answers pending from `pending(ip)` (a map, not the kept
 * verdicts: an lru-cache entry per first lookup cost about 3% of the lookup at load average 11),
 * so this instance does not queue it twice; after it, the address has a row. A refused write (or
 * a process stopped before it) is counted and forgotten, and the next lookup of the address
 * queues it again. The app's close writes what is waiting (`settled`).
 */
function createQueueWrites(store: ScanStore, known: KnownAddresses, counts: ScanCounts, clock: Clock) {
  /** Addresses waiting for their write or in one, with the answer their lookups give meanwhile. */
  const queued = new Map<string, ScanAnswer>();
  let waiting: string[] = [];
  const writes = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;

  const write = async (ips: string[]): Promise<void> => {
    try {
      counts.queued += (await store.queue(ips, clock())).length;
      // Each address now has a row, queued by this write or found there.
      known.added(ips);
    } catch {
      counts.queueFailures += ips.length;
    } finally {
      for (const ip of ips) queued.delete(ip);
    }
  };

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const ips = waiting;
    waiting = [];
    for (let from = 0; from < ips.length; from += QUEUE_BATCH) {
      const batch = write(ips.slice(from, from + QUEUE_BATCH));
      writes.add(batch);
      void batch.finally(() => writes.delete(batch));
    }
  };

  return {
    pending: (ip: string): ScanAnswer | undefined => queued.get(ip),
    start(ip: string, answer: ScanAnswer): void {
      // Two lookups of one address at once both reach here; one write holds it once.
      if (queued.has(ip)) return;
      queued.set(ip, answer);
      waiting.push(ip);
      if (!timer) timer = setTimeout(flush, QUEUE_GATHER_MS).unref();
    },
    async settled(): Promise<void> {
      if (waiting.length > 0) flush();
      while (writes.size > 0) await Promise.allSettled([...writes]);
    },
  };
}

/** The lookup's part (Scan.forLookup) with its in-memory copies, known addresses and queue writes. */
function createLookups(store: ScanStore, rules: TargetRules, counts: ScanCounts, clock: Clock) {
  // A Map that forgets its oldest entry beyond 10,000, not lru-cache: each kept entry has its own
  // expiry, and a kept result is read on every lookup of its address (lru-cache's get, which also
  // moves the entry, left the stored-result lookup 1.02× scanning off; this 1.01-1.02×, 2026-12-07).
  const cache: VerdictCache = new BoundedMap(10_000);

  const known = createKnownAddresses(store.inserts);

  // The verdict, not the row, is kept: a stored report is parsed once per read, not per lookup.
  // A result's verdict holds until it expires (kept at most RESULT_KEEP_MS), a pending one 2 s.
  const readVerdict = async (ip: string, now: number): Promise<RowVerdict> => {
    const row = await store.read(ip);
    const verdict = verdictOf(row, now);
    cache.set(ip, { verdict, until: now + keepFor(row, now, PENDING_KEEP_MS, RESULT_KEEP_MS) });
    return verdict;
  };

  const queueWrites = createQueueWrites(store, known, counts, clock);

  const refused = (ip: ParsedIp): string | null => {
    const reason = scanRefusalOf(ip, rules);
    if (reason) counts.refusals[refusalKind(reason)]++;
    return reason;
  };

  const unread = (): ScanAnswer =>
    // The lookup answers without its scan part rather than not at all.
    answerOf('failed', 'scan results could not be read (the store did not answer)');

  /** A verdict that asks for a scan: queued if `mayQueue()` allows it, else refused. */
  const queueIfAllowed = (
    ip: string,
    verdict: RowVerdict,
    mayQueue: () => boolean | Promise<boolean>,
  ): ScanAnswer | Promise<ScanAnswer> => {
    if (!verdict.queue) return verdict.answer;
    let asked: boolean | Promise<boolean>;
    try {
      asked = mayQueue();
    } catch {
      return unread();
    }
    // A quota counted in memory answers at once: no promise on the first lookup's path.
    if (typeof asked === 'boolean') return queuedIf(ip, verdict, asked);
    return asked.then((may) => queuedIf(ip, verdict, may), unread);
  };

  const queuedIf = (ip: string, verdict: RowVerdict, may: boolean): ScanAnswer => {
    if (!may) {
      counts.refusals.quota++;
      const why = 'this client may start no more scans now (the anonymous quota)';
      return {
        ...verdict.answer,
        scan: { status: 'refused', scanned_at: verdict.answer.scan.scanned_at, reason: why },
      };
    }
    queueWrites.start(ip, verdict.answer);
    return verdict.answer;
  };

  /**
   * From memory when it can: a kept result answers at once, an address known to have no row
   * (known.ts) is queued without a read; else the row is read. Only addresses the target rules
   * allow are queued or kept (the rules do not change while the process runs), so a queued or kept
   * one answers before they are asked again: the steady state's lookup is two map reads.
   */
  const lookup = (
    parsed: ParsedIp,
    mayQueue: () => boolean | Promise<boolean>,
  ): ScanAnswer | Promise<ScanAnswer> => {
    const ip = parsed.address;
    const waiting = queueWrites.pending(ip);
    if (waiting) return waiting;
    const now = clock();
    const kept = cache.get(ip);
    if (kept && kept.until > now) return queueIfAllowed(ip, kept.verdict, mayQueue);
    const reason = refused(parsed);
    if (reason) return answerOf('refused', reason);
    if (known.surelyAbsent(ip)) return queueIfAllowed(ip, ABSENT, mayQueue);
    return readVerdict(ip, now).then((verdict) => queueIfAllowed(ip, verdict, mayQueue), unread);
  };

  return {
    lookup,
    async settled(): Promise<void> {
      await queueWrites.settled();
      await known.settled();
    },
  };
}

export function createScan(options: {
  settings: ScanSettings;
  store: ScanStore;
  clock: Clock;
  /** Names this process's claims (host, pid, random). */
  worker: string;
}): Scan {
  const { settings: s, store, clock, worker } = options;
  const rules: TargetRules = { allowLoopback: s.allowLoopback, exclude: parseExcludeList(s.exclude) };
  // Off, nothing is scanned, so no contact is needed; on, a missing one stops the start.
  const scanner = s.enabled ? scannerOf(s) : null;
  const ttlMs = s.ttlSeconds * 1000;
  const leaseMs = s.deadlineMs + 30_000;
  const counts = createCounts();
  const lookups = createLookups(store, rules, counts, clock);

  const runOne = async (row: ScanRow): Promise<void> => {
    const reason = scanRefusal(row.ip, rules);
    const now = clock();
    const report: ScanReport = reason
      ? {
          ip: row.ip,
          ports: [],
          service_title: null,
          service_server: null,
          tls_organization: null,
          status: 'failed',
          reason,
        }
      : await scanAddress(row.ip, scanner as ScannerSettings, clock);
    for (const p of report.ports) counts.ports[p.outcome] = (counts.ports[p.outcome] ?? 0) + 1;
    counts.scans[report.status]++;
    const end = clock();
    await store.finish(row.ip, worker, {
      status: report.status,
      reason: report.reason,
      report: JSON.stringify(report),
      scanned_at: now,
      expires_at: end + ttlMs,
    });
  };

  const lane = async (stopping: () => boolean): Promise<number> => {
    let ran = 0;
    while (!stopping()) {
      const now = clock();
      const row = await store.claim(worker, now, leaseMs);
      if (!row) break;
      const minute = Math.floor(now / 60_000);
      if (!(await store.takeSlot(minute, s.ratePerMinute))) {
        await store.release(row.ip, worker);
        counts.deferred++;
        break;
      }
      await runOne(row);
      ran++;
    }
    return ran;
  };

  return {
    enabled: s.enabled,
    forLookup: (ip, mayQueue) => (s.enabled ? lookups.lookup(ip, mayQueue) : DISABLED),
    async runDue(stopping = () => false) {
      if (!s.enabled) return 0;
      await store.pruneBudget(Math.floor(clock() / 60_000) - 5);
      const ran = await Promise.all(Array.from({ length: LANES }, () => lane(stopping)));
      return ran.reduce((a, b) => a + b, 0);
    },
    scanNow: (ip) => scanOnce(s, ip, clock),
    settled: () => lookups.settled(),
    counts: () => counts,
  };
}
