/** Helpers the audit store's parts share: JSON columns, event rows, observation inserts. */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { NewEvent, NewObservation } from './store-types.ts';

export const json = (v: unknown): string => JSON.stringify(v ?? {});

export const eventRow = (jobId: number, e: NewEvent, now: number) => ({
  job_id: jobId,
  event_type: e.type,
  actor: e.actor,
  detail: json(e.detail),
  created_at: now,
});

/** Inserts observations, skipping those already stored; returns how many were inserted. */
export async function insertObservations(
  db: Kysely<Database>,
  list: readonly NewObservation[],
): Promise<number> {
  if (list.length === 0) return 0;
  const r = await db
    .insertInto('audit_observations')
    .values(
      list.map((o) => ({
        job_id: o.jobId,
        target_id: o.targetId,
        address: o.address,
        observation_kind: o.kind,
        source_key: o.sourceKey,
        outcome: o.outcome,
        raw_codes: JSON.stringify(o.rawCodes),
        raw_provider_response: json(o.rawProviderResponse),
        observed_at: o.observedAt,
        expires_at: o.expiresAt,
      })),
    )
    .onConflict((oc) => oc.columns(['job_id', 'target_id', 'observation_kind', 'source_key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0);
}
