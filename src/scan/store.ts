/**
 * Saves and reads service scans (issue #34); no rules here. Every write that decides who scans is
 * one conditional statement, so two instances on one PostgreSQL (or two processes on one SQLite
 * file) never both scan an address within its TTL.
 */
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import {
  createPrepared,
  type DialectName,
  type PreparedSql,
  type Store,
  sqliteDataVersion,
  supportsSkipLocked,
} from '../store/index.ts';
import type { Database } from '../store/schema.ts';

export interface ScanResultsTable {
  ip: string;
  /** `queued`, `running` (leased), `done` or `failed`. */
  status: string;
  queued_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  scanned_at: number | null;
  expires_at: number | null;
  reason: string | null;
  /** JSON of the last ScanReport (kept while a rescan is queued). */
  report: string | null;
}

export interface ScanBudgetTable {
  /** Epoch minute (ms / 60 000). */
  minute: number;
  scans: number;
}

declare module '../store/schema.ts' {
  interface Database {
    scan_results: ScanResultsTable;
    scan_budget: ScanBudgetTable;
  }
}

export type ScanRow = ScanResultsTable;

export interface ScanEnd {
  status: 'done' | 'failed';
  reason: string | null;
  report: string;
  scanned_at: number;
  expires_at: number;
}

/**
 * SQLite only: what tells a lookup, without a read, that an address has no row (known.ts). Rows
 * are never deleted and a new row takes a rowid above every other one, so the rows after a
 * rowid are the rows inserted since.
 */
export interface ScanInserts {
  /** Moves when another process has committed to the file (data_version, read at most every 5 ms). */
  version(): number;
  /** Up to `limit` rows with a rowid above `after`, in rowid order. */
  since(after: number, limit: number): Promise<{ ip: string; rowid: number }[]>;
}

export interface ScanStore {
  /** SQLite: the inserts' token and order (known.ts); null on PostgreSQL. */
  inserts: ScanInserts | null;
  /** One primary-key read. */
  read(ip: string): Promise<ScanRow | null>;
  /**
   * Queues each address that has no row or whose result expired, in one statement; the addresses
   * this call queued. `ips` holds each address once (PostgreSQL refuses a row upserted twice).
   */
  queue(ips: readonly string[], now: number): Promise<string[]>;
  /** Takes the oldest queued scan (or a running one whose lease expired) for `worker`. */
  claim(worker: string, now: number, leaseMs: number): Promise<ScanRow | null>;
  /** Stores a claimed scan's result; false when `worker` no longer holds it. */
  finish(ip: string, worker: string, end: ScanEnd): Promise<boolean>;
  /** Puts a claimed scan back in the queue (the minute's cap was reached). */
  release(ip: string, worker: string): Promise<void>;
  /** Counts one scan in `minute` unless `cap` were already started in it; true when counted. */
  takeSlot(minute: number, cap: number): Promise<boolean>;
  /** Forgets minutes before `minute`. */
  pruneBudget(minute: number): Promise<void>;
}

/** A queued scan, or a running one whose lease expired (its worker stopped). */
function dueAt(now: number) {
  return (eb: ExpressionBuilder<Database, 'scan_results'>): Expression<SqlBool> =>
    eb.or([
      eb('status', '=', 'queued'),
      eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<=', now)]),
    ]);
}

/** PostgreSQL: the oldest due row not locked by another claim (`SKIP LOCKED`), then taken. */
async function claimSkipLocked(
  db: Kysely<Database>,
  worker: string,
  now: number,
  leaseMs: number,
): Promise<ScanRow | null> {
  return await db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('scan_results')
      .selectAll()
      .where(dueAt(now))
      .orderBy('queued_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!found) return null;
    await trx
      .updateTable('scan_results')
      .set({ status: 'running', lease_owner: worker, lease_expires_at: now + leaseMs })
      .where('ip', '=', found.ip)
      .execute();
    return { ...found, status: 'running', lease_owner: worker, lease_expires_at: now + leaseMs };
  });
}

/**
 * SQLite: one statement (a deferred transaction that reads, then writes, fails with "database is
 * locked" beside another process doing the same); the due condition is repeated on the row it
 * picks, so of two processes the second finds nothing to update.
 */
async function claimOneStatement(
  db: Kysely<Database>,
  worker: string,
  now: number,
  leaseMs: number,
): Promise<ScanRow | null> {
  const row = await db
    .updateTable('scan_results')
    .set({ status: 'running', lease_owner: worker, lease_expires_at: now + leaseMs })
    .where((eb) =>
      eb(
        'ip',
        '=',
        eb.selectFrom('scan_results').select('ip').where(dueAt(now)).orderBy('queued_at').limit(1),
      ),
    )
    .where(dueAt(now))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

function claimScan(
  db: Kysely<Database>,
  dialect: DialectName,
  worker: string,
  now: number,
  leaseMs: number,
): Promise<ScanRow | null> {
  return supportsSkipLocked(dialect)
    ? claimSkipLocked(db, worker, now, leaseMs)
    : claimOneStatement(db, worker, now, leaseMs);
}

/**
 * The two statements a lookup may run (store/prepared.ts: prepared once, not per call as Kysely's
 * SQLite driver does; issue #34: a lookup's latency does not change with scanning on). The queue
 * write is the conditional upsert `queue` documents: a new row, or a finished one whose result expired.
 */
const LOOKUP_SQL: Record<'read' | 'queue', PreparedSql> = {
  read: {
    name: 'netrep_scan_read',
    sqlite: 'select * from scan_results where ip = ?',
    postgres: 'select * from scan_results where ip = $1',
  },
  // The lookups of one turn of the event loop queue together (index.ts): one statement for all.
  queue: {
    name: 'netrep_scan_queue_many',
    sqlite: `insert into scan_results (ip, status, queued_at)
      select value, 'queued', ? from json_each(?) where true
      on conflict (ip) do update set status = 'queued', queued_at = excluded.queued_at,
        lease_owner = null, lease_expires_at = null
      where scan_results.status in ('done', 'failed') and scan_results.expires_at <= excluded.queued_at
      returning ip`,
    // In one order on every instance: two writes upserting the same rows in different orders
    // deadlock on PostgreSQL (store.test.ts saw "deadlock detected").
    postgres: `insert into scan_results (ip, status, queued_at)
      select ip, 'queued', $1::bigint from unnest($2::text[]) as t(ip) order by ip
      on conflict (ip) do update set status = 'queued', queued_at = excluded.queued_at,
        lease_owner = null, lease_expires_at = null
      where scan_results.status in ('done', 'failed') and scan_results.expires_at <= excluded.queued_at
      returning ip`,
  },
};

/** The rows inserted after a rowid (ScanInserts): SQLite only, a PostgreSQL table has no such order. */
const SINCE_SQL: PreparedSql = {
  name: 'netrep_scan_since',
  sqlite: 'select rowid, ip from scan_results where rowid > ? order by rowid limit ?',
  postgres: '',
};

export function createScanStore(store: Store): ScanStore {
  const db: Kysely<Database> = store.db;
  const prepared = createPrepared(store);
  const inserts: ScanInserts | null = store.sqlite
    ? {
        version: sqliteDataVersion(store.sqlite, 5),
        since: (after, limit) => prepared.all(SINCE_SQL, [after, limit]),
      }
    : null;
  return {
    inserts,
    async read(ip) {
      return (await prepared.all<ScanRow>(LOOKUP_SQL.read, [ip]))[0] ?? null;
    },

    async queue(ips, now) {
      if (ips.length === 0) return [];
      return (await prepared.all<{ ip: string }>(LOOKUP_SQL.queue, [now, ips])).map((r) => r.ip);
    },

    claim: (worker, now, leaseMs) => claimScan(db, store.dialect, worker, now, leaseMs),

    async finish(ip, worker, end) {
      const r = await db
        .updateTable('scan_results')
        .set({ ...end, lease_owner: null, lease_expires_at: null })
        .where('ip', '=', ip)
        .where('status', '=', 'running')
        .where('lease_owner', '=', worker)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async release(ip, worker) {
      await db
        .updateTable('scan_results')
        .set({ status: 'queued', lease_owner: null, lease_expires_at: null })
        .where('ip', '=', ip)
        .where('status', '=', 'running')
        .where('lease_owner', '=', worker)
        .execute();
    },

    async takeSlot(minute, cap) {
      if (cap <= 0) return false;
      const r = await db
        .insertInto('scan_budget')
        .values({ minute, scans: 1 })
        .onConflict((oc) =>
          oc
            .column('minute')
            .doUpdateSet({ scans: sql`scan_budget.scans + 1` })
            .where('scan_budget.scans', '<', cap),
        )
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async pruneBudget(minute) {
      await db.deleteFrom('scan_budget').where('minute', '<', minute).execute();
    },
  };
}
