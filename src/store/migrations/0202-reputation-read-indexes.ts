import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * Covering indexes for the two reads every reputation answer makes besides the rollups
 * (issue 18): an address's 30 daily points and the latest scores of its /24 are then read from
 * the index alone, without a table row per point or member.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('reputation_computations_history')
    .on('reputation_computations')
    .columns(['ip', 'day', 'score', 'computed_at'])
    .execute();
  await db.schema
    .createIndex('reputation_latest_subnet_scores')
    .on('reputation_latest')
    .columns(['subnet', 'ip', 'score', 'computed_at'])
    .execute();
}
