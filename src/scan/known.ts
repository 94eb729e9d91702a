/**
 * Which addresses surely have no `scan_results` row, without reading the table (issue #34: a
 * lookup's latency does not change with scanning on). An address's first lookup used to pay one
 * primary-key read that found nothing: on SQLite about 14-17 µs of the main thread at load
 * average 10 (2.3 µs in a tight loop; cold caches between answers), half the first lookup's
 * extra time. Here a Bloom filter holds every address that has a row: rows are never deleted, so
 * "not in the filter" means "no row" while the filter is up to date. It is brought up to date
 * from the rows inserted after the last rowid it saw, whenever the store's change token moves
 * (SQLite's data_version: another process committed, read at most every 5 ms), and this
 * process's own queue writes add their addresses at once. Until then, and on PostgreSQL (no
 * such token or order there), every lookup reads the row as before.
 *
 * Another process's row can stay unseen for the token's 5 ms: its address then reads as absent,
 * the lookup says `pending` (the row is at most 5 ms old, so it is queued or just claimed) and
 * its queue write changes nothing (the upsert leaves queued, running and fresh rows alone).
 */
import type { ScanInserts } from './store.ts';

/** Bits per address held: with 7 hashes, about 1 false "maybe" in 120 (a read, not an error). */
const BITS_PER_ENTRY = 10;
const HASHES = 7;
/** Rows read per refresh statement. */
const PAGE = 5000;
const MIN_CAPACITY = 1 << 16;

export interface Bloom {
  add(key: string): void;
  /** False: `key` was never added. True: it probably was. */
  has(key: string): boolean;
  readonly capacity: number;
  readonly size: number;
}

/** FNV-1a and a multiply-xorshift hash of the same characters, for double hashing. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b | 1) >>> 0];
}

export function createBloom(capacity: number): Bloom {
  const words = Math.ceil((capacity * BITS_PER_ENTRY) / 32);
  const bits = new Uint32Array(words);
  const m = words * 32;
  let size = 0;
  return {
    capacity,
    get size() {
      return size;
    },
    add(key) {
      const [h1, h2] = hashes(key);
      for (let i = 0; i < HASHES; i++) {
        const bit = ((h1 + Math.imul(i, h2)) >>> 0) % m;
        bits[bit >>> 5] = (bits[bit >>> 5] as number) | (1 << (bit & 31));
      }
      size++;
    },
    has(key) {
      const [h1, h2] = hashes(key);
      for (let i = 0; i < HASHES; i++) {
        const bit = ((h1 + Math.imul(i, h2)) >>> 0) % m;
        if (((bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
      }
      return true;
    },
  };
}

export interface KnownAddresses {
  /** True only when `ip` has no row: the filter lacks it and is up to date. Never waits. */
  surelyAbsent(ip: string): boolean;
  /** Addresses this process's queue write has just given a row (or found one). */
  added(ips: readonly string[]): void;
  /** Resolves when a refresh in progress has ended (tests). */
  settled(): Promise<void>;
}

/** Nothing is ever surely absent: every lookup reads its row (PostgreSQL). */
const UNKNOWN: KnownAddresses = {
  surelyAbsent: () => false,
  added: () => {},
  settled: async () => {},
};

export function createKnownAddresses(inserts: ScanInserts | null): KnownAddresses {
  if (inserts === null) return UNKNOWN;
  let bloom = createBloom(MIN_CAPACITY);
  let lastRowid = 0;
  /** The token the filter is up to date with; null before the first refresh ends. */
  let token: number | null = null;
  let refreshing: Promise<void> | null = null;

  const refresh = async (): Promise<void> => {
    // The token first: a commit after it moves the token again, and the next refresh reads it.
    const seen = inserts.version();
    for (;;) {
      const rows = await inserts.since(lastRowid, PAGE);
      if (bloom.size + rows.length > bloom.capacity) {
        // Full: a filter twice the size, filled again from the first row.
        bloom = createBloom(bloom.capacity * 2);
        lastRowid = 0;
        continue;
      }
      for (const row of rows) {
        bloom.add(row.ip);
        lastRowid = row.rowid;
      }
      if (rows.length < PAGE) break;
    }
    token = seen;
  };

  const startRefresh = (): void => {
    if (refreshing) return;
    refreshing = refresh()
      .catch(() => {
        // The store did not answer: lookups read their rows until a refresh succeeds.
        token = null;
      })
      .finally(() => {
        refreshing = null;
      });
  };

  return {
    surelyAbsent(ip) {
      if (refreshing) return false;
      if (token === null || inserts.version() !== token) {
        token = null;
        startRefresh();
        return false;
      }
      return !bloom.has(ip);
    },
    added(ips) {
      for (const ip of ips) bloom.add(ip);
    },
    async settled() {
      while (refreshing) await refreshing;
    },
  };
}
