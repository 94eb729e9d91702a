/** Saved IPs and their last seen state. */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { SavedIpStatesTable, WebhookStore } from './store-types.ts';

type SavedIpMethods =
  | 'putSavedIp'
  | 'getSavedIp'
  | 'countSavedIps'
  | 'listSavedIps'
  | 'deleteSavedIp'
  | 'ownersOf'
  | 'savedIpPage'
  | 'savedIpStates';

export function createSavedIpRows(db: Kysely<Database>): Pick<WebhookStore, SavedIpMethods> {
  return {
    async putSavedIp(row) {
      await db
        .insertInto('saved_ips')
        .values(row)
        .onConflict((oc) => oc.columns(['owner_id', 'ip']).doUpdateSet({ label: row.label }))
        .execute();
    },
    async getSavedIp(ownerId, ip) {
      return await db
        .selectFrom('saved_ips')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('ip', '=', ip)
        .executeTakeFirst();
    },
    async countSavedIps(ownerId) {
      const r = await db
        .selectFrom('saved_ips')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async listSavedIps(ownerId, limit, offset) {
      return await db
        .selectFrom('saved_ips')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .orderBy('created_at')
        .orderBy('ip')
        .limit(limit)
        .offset(offset)
        .execute();
    },
    async deleteSavedIp(ownerId, ip) {
      const r = await db
        .deleteFrom('saved_ips')
        .where('owner_id', '=', ownerId)
        .where('ip', '=', ip)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async ownersOf(ips) {
      const out = new Map<string, number[]>();
      if (ips.length === 0) return out;
      const rows = await db
        .selectFrom('saved_ips')
        .select(['ip', 'owner_id'])
        .where('ip', 'in', [...ips])
        .orderBy('owner_id')
        .execute();
      for (const r of rows) out.set(r.ip, [...(out.get(r.ip) ?? []), Number(r.owner_id)]);
      return out;
    },
    async savedIpPage(afterIp, limit) {
      let q = db.selectFrom('saved_ips').select('ip').distinct();
      if (afterIp !== null) q = q.where('ip', '>', afterIp);
      return (await q.orderBy('ip').limit(limit).execute()).map((r) => r.ip);
    },
    async savedIpStates(ips) {
      const out = new Map<string, SavedIpStatesTable>();
      if (ips.length === 0) return out;
      const rows = await db
        .selectFrom('saved_ip_states')
        .selectAll()
        .where('ip', 'in', [...ips])
        .execute();
      for (const r of rows) out.set(r.ip, r);
      return out;
    },
  };
}
