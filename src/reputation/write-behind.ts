/**
 * Computations written behind the answer (issue 18). An answer's computation is a history point
 * and a /24 member's latest score; writing it inside the answer was the largest single cost of a
 * reputation answer on SQLite (a transaction of three statements per address, ~14 % of its CPU).
 * Here they are queued, one per address and UTC day (the later computation wins, as the stored
 * upsert decides), and written together every `flushMs` and at `close()`, in one
 * `save` per UTC day (so that no statement holds an address twice).
 *
 * Until the write has committed, this instance reads them through `pointsOf` / `latestIn`,
 * overlaid on what the store returns (`overlayPoints`, `overlayMembers`), so its own answers
 * never miss one; other instances see them once written (at most `flushMs` later, their /24
 * stamps raised then). A failed write keeps its computations queued and is tried again at the
 * next turn; a crash loses at most the last `flushMs` of history points (the day's point then
 * shows an earlier computation), never evidence, telemetry or listings, which are written in
 * their request. More than `maxPending` queued addresses make the next answer wait for a write.
 */
import { DAY_MS } from '../core/clock.ts';
import type { MemberScore } from './facts-cache.ts';
import type { Computation } from './history.ts';
import type { ComputationRecord } from './store-types.ts';

export interface WriteBehind {
  /** Queues computations; a promise only when the queue is full (wait for it before answering). */
  queue(list: readonly ComputationRecord[]): Promise<void> | undefined;
  /** Queued (or being written) points of an address, any day. */
  pointsOf(ip: string): readonly Computation[];
  /** Queued (or being written) latest score of each address of a /24. */
  latestIn(subnet: string): readonly MemberScore[];
  /** Writes everything queued so far (and waits for a write in progress). */
  flush(): Promise<void>;
  /**
   * Stops the timer after a last write (a failed one is reported by onError, not thrown); later
   * computations are written at once.
   */
  close(): Promise<void>;
}

export interface WriteBehindOptions {
  save: (list: readonly ComputationRecord[]) => Promise<void>;
  flushMs?: number;
  maxPending?: number;
  /** A failed write (its computations stay queued and are tried again). */
  onError?: (err: unknown) => void;
}

/** Queued computations: address → UTC day → the day's latest computation. */
type Queue = Map<string, Map<number, ComputationRecord>>;

const dayOf = (c: { computedAt: number }) => Math.floor(c.computedAt / DAY_MS);

/** Adds `c` unless the queue holds a later computation of its address and day. */
function put(q: Queue, c: ComputationRecord): void {
  let days = q.get(c.ip);
  if (days === undefined) {
    days = new Map();
    q.set(c.ip, days);
  }
  const day = dayOf(c);
  const held = days.get(day);
  if (held === undefined || held.computedAt <= c.computedAt) days.set(day, c);
}

export function createWriteBehind(options: WriteBehindOptions): WriteBehind {
  const flushMs = options.flushMs ?? 100;
  const maxPending = options.maxPending ?? 10_000;
  let pending: Queue = new Map();
  /** The queue a write in progress took: still read through until it commits. */
  let writing: Queue | null = null;
  let inFlight: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const schedule = () => {
    if (timer === null && !closed && pending.size > 0) {
      timer = setTimeout(() => {
        timer = null;
        // A failure is reported by onError and tried again at the next turn.
        write().catch(() => undefined);
      }, flushMs);
      timer.unref();
    }
  };

  async function writeQueue(q: Queue): Promise<void> {
    // One save per UTC day: an address appears once in each (PostgreSQL's upsert of many rows
    // refuses to change one row twice).
    const byDay = new Map<number, ComputationRecord[]>();
    for (const days of q.values()) {
      for (const [day, c] of days) {
        const list = byDay.get(day) ?? [];
        list.push(c);
        byDay.set(day, list);
      }
    }
    for (const day of [...byDay.keys()].sort((a, b) => a - b)) await options.save(byDay.get(day) ?? []);
  }

  /** Writes the queue once the write in progress (if any) is done. */
  function write(): Promise<void> {
    if (inFlight !== null) return inFlight.then(() => (pending.size > 0 ? write() : undefined));
    if (pending.size === 0) return Promise.resolve();
    const taken = pending;
    pending = new Map();
    writing = taken;
    inFlight = writeQueue(taken).then(
      () => {
        writing = null;
        inFlight = null;
        schedule();
      },
      (err: unknown) => {
        // Kept: what was queued meanwhile is newer or of other addresses, `put` keeps the later.
        for (const days of taken.values()) for (const c of days.values()) put(pending, c);
        writing = null;
        inFlight = null;
        options.onError?.(err);
        schedule();
        throw err;
      },
    );
    return inFlight;
  }

  return {
    queue(list) {
      for (const c of list) put(pending, c);
      if (closed || pending.size >= maxPending) return write();
      schedule();
      return undefined;
    },

    pointsOf(ip) {
      const out: Computation[] = [];
      for (const q of [writing, pending]) {
        const days = q?.get(ip);
        if (days !== undefined) for (const c of days.values()) out.push(c);
      }
      return out;
    },

    latestIn(subnet) {
      // A scan of the queues (a few hundred addresses; read only when a /24 is read from the rows).
      const latest = new Map<string, MemberScore>();
      for (const q of [writing, pending]) {
        for (const days of q?.values() ?? []) {
          for (const c of days.values()) {
            if (c.subnet === subnet)
              overlayMembers(latest, [{ ip: c.ip, score: c.score, computedAt: c.computedAt }]);
          }
        }
      }
      return [...latest.values()];
    },

    flush: () => write(),

    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      // A store that fails now (shutting down) costs these history points, reported by onError;
      // the rest of a shutdown (closing the store) must still run.
      await write().catch(() => undefined);
    },
  };
}

/**
 * Stored points of an address with its queued ones: per UTC day the later computation (a queued
 * one on equal times, as the upsert would write it).
 */
export function overlayPoints(stored: readonly Computation[], queued: readonly Computation[]): Computation[] {
  // Called for every answer (its own computation into the kept history): the stored list is
  // copied only when a point changes, and today's point, the one that changes, is the last.
  let out: Computation[] | null = null;
  for (const q of queued) {
    const list = out ?? stored;
    const day = dayOf(q);
    let i = list.length - 1;
    while (i >= 0 && dayOf(list[i] as Computation) !== day) i--;
    const held = list[i];
    if (held !== undefined && held.computedAt > q.computedAt) continue;
    out ??= [...stored];
    const point = { score: q.score, computedAt: q.computedAt };
    if (held === undefined) out.push(point);
    else out[i] = point;
  }
  return out ?? (stored as Computation[]);
}

/** Stored latest scores of a /24 with its queued ones (the later computation of each address). */
export function overlayMembers(
  stored: Map<string, MemberScore>,
  queued: readonly MemberScore[],
): Map<string, MemberScore> {
  for (const q of queued) {
    const held = stored.get(q.ip);
    if (held === undefined || held.computedAt <= q.computedAt) stored.set(q.ip, q);
  }
  return stored;
}
