/**
 * Saves and reads evidence, FCrDNS results and score computations; no rules here. The tables and
 * prepared statements are in store-sql.ts, the evidence rows in store-evidence.ts, the
 * computations in store-scores.ts; the interface is ReputationStore (store-types.ts).
 */
import type { Kysely } from 'kysely';
import { bumpStampsIn, createPrepared } from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import { createEvidenceAudits, createEvidenceReads, createEvidenceWrites } from './store-evidence.ts';
import { createScoreRows } from './store-scores.ts';
import { fcrdnsRecord, Q, type ReputationFcrdnsTable, type StoreHandles } from './store-sql.ts';
import type { FcrdnsRecord, ReputationStore } from './store-types.ts';

export type { ComputationRecord, FcrdnsRecord, ReputationStore } from './store-types.ts';

export function createReputationStore(store: StoreHandles): ReputationStore {
  const db: Kysely<Database> = store.db;
  const prepared = createPrepared(store);
  return {
    ...createEvidenceWrites(prepared),
    ...createEvidenceReads(db, prepared),
    ...createEvidenceAudits(db),
    ...createScoreRows(prepared),

    async fcrdnsForMany(ips) {
      const out = new Map<string, FcrdnsRecord>();
      if (ips.length === 0) return out;
      const rows = await prepared.all<ReputationFcrdnsTable>(Q.fcrdns, [[...ips]]);
      for (const row of rows) out.set(row.ip, fcrdnsRecord(row));
      return out;
    },

    async saveFcrdns(r) {
      const row = {
        ip: r.ip,
        ptr_hostname: r.ptrHostname,
        forward_match: r.forwardMatch ? 1 : 0,
        forward_ips: JSON.stringify(r.forwardIps),
        last_checked_at: r.lastCheckedAt,
        last_observed_at: r.lastObservedAt,
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('reputation_fcrdns')
          .values(row)
          .onConflict((oc) => oc.column('ip').doUpdateSet({ ...row }))
          .execute();
        await bumpStampsIn(trx, [r.ip]);
      });
    },

    async fcrdnsFor(ip) {
      const row = await db
        .selectFrom('reputation_fcrdns')
        .selectAll()
        .where('ip', '=', ip)
        .executeTakeFirst();
      return row === undefined ? null : fcrdnsRecord(row);
    },
  };
}
