/**
 * Saves and reads audit jobs, targets, observations and events; no rules here. The interface and
 * tables are in store-types.ts; the owners' side in store-jobs.ts, the workers' in store-lease.ts.
 */
import type { Kysely } from 'kysely';
import type { Store } from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import { createJobReads, createJobWrites } from './store-jobs.ts';
import { createLeaseRows } from './store-lease.ts';
import { insertObservations } from './store-rows.ts';
import type { AuditStore } from './store-types.ts';

export type * from './store-types.ts';

export function createAuditStore(store: Store): AuditStore {
  const db: Kysely<Database> = store.db;
  return {
    ...createJobWrites(db),
    ...createJobReads(db),
    ...createLeaseRows(db, store.dialect),
    insertObservations: (list) => insertObservations(db, list),
    async insertObservation(o) {
      return (await insertObservations(db, [o])) > 0;
    },
  };
}
