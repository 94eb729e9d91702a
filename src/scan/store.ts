/**
 * Saves and reads service scans (issue #34); no rules here. Every write that decides who scans is
 * one conditional statement, so two instances on one PostgreSQL (or two processes on one SQLite
 * file) never both scan an address within its TTL.
 */
import { type Kysely, sql } from 'kysely';
import { type DialectName, type Store, supportsSkipLocked } from '../store/index.ts';
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

export interface ScanStore {
  /** One primary-key read. */
  read(ip: string): Promise<ScanRow | null>;
  /** Queues `ip` when it has no row or its result expired; true when this call queued it. */
  queue(ip: string, now: number): Promise<boolean>;
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

async function claimScan(
  db: Kysely<Database>,
  dialect: DialectName,
  worker: string,
  now: number,
  leaseMs: number,
): Promise<ScanRow | null> {
  return await db.transaction().execute(async (trx) => {
    const due = trx
      .selectFrom('scan_results')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<=', now)]),
        ]),
      )
      .orderBy('queued_at')
      .limit(1);
    const found = await (supportsSkipLocked(dialect) ? due.forUpdate().skipLocked() : due).executeTakeFirst();
    if (!found) return null;
    // The condition is repeated so that, on SQLite, a second process that read the same row loses.
    const r = await trx
      .updateTable('scan_results')
      .set({ status: 'running', lease_owner: worker, lease_expires_at: now + leaseMs })
      .where('ip', '=', found.ip)
      .where('status', '=', found.status)
      .where('queued_at', '=', found.queued_at)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return null;
    return { ...found, status: 'running', lease_owner: worker, lease_expires_at: now + leaseMs };
  });
}

export function createScanStore(store: Store): ScanStore {
  const db: Kysely<Database> = store.db;
  return {
    async read(ip) {
      return (
        (await db.selectFrom('scan_results').selectAll().where('ip', '=', ip).executeTakeFirst()) ?? null
      );
    },

    async queue(ip, now) {
      const r = await db
        .insertInto('scan_results')
        .values({
          ip,
          status: 'queued',
          queued_at: now,
          lease_owner: null,
          lease_expires_at: null,
          scanned_at: null,
          expires_at: null,
          reason: null,
          report: null,
        })
        .onConflict((oc) =>
          oc
            .column('ip')
            .doUpdateSet({ status: 'queued', queued_at: now, lease_owner: null, lease_expires_at: null })
            .where('scan_results.status', 'in', ['done', 'failed'])
            .where('scan_results.expires_at', '<=', now),
        )
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
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
