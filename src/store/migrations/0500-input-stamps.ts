import type { Kysely } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/**
 * Change stamps (issue 18, `store/stamps.ts`): one counter per key, an address or the /24 it is
 * in (`a.b.c.0/24`), raised in the transaction of every write that changes a fact a reputation
 * answer reads (evidence, telemetry, FCrDNS, a blocklist event, a member's score in a /24). A
 * reader that kept facts with the stamps it saw knows they still hold while the stamps are the
 * same, on any instance.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('input_stamps')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('stamp', bigIntType(dialect), (c) => c.notNull())
    .execute();
}
