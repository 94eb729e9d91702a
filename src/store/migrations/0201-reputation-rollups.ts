import { type Kysely, sql } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/**
 * Rollups that let a reputation answer read a few rows instead of every event (issue 18). They
 * are written in the same transaction as the raw rows they summarise, and filled here from the
 * rows already stored:
 * - `telemetry_ip_summary`: per address, the earliest, the latest and the first sending
 *   (volume_24h > 0) production observation, ties broken by id as the raw queries do;
 * - `reputation_evidence_ips`: per address, the earliest production evidence (age anchor);
 * - `reputation_evidence_days`: per address and UTC day number (epoch ms / 86 400 000), the
 *   production events of each kind and the first and last observed_at of the day, so a window
 *   that cuts a day in two can tell whether it needs that day's raw rows.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);

  let summary = db.schema.createTable('telemetry_ip_summary').addColumn('ip', 'text', (c) => c.primaryKey());
  for (const which of ['earliest', 'latest', 'sending']) {
    summary = summary
      .addColumn(`${which}_at`, big)
      .addColumn(`${which}_id`, big)
      .addColumn(`${which}_bounce`, 'double precision')
      .addColumn(`${which}_complaint`, 'double precision')
      .addColumn(`${which}_volume`, big);
  }
  await summary.execute();

  await db.schema
    .createTable('reputation_evidence_ips')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('first_at', big, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('reputation_evidence_days')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('pristine', 'integer', (c) => c.notNull())
    .addColumn('recycled', 'integer', (c) => c.notNull())
    .addColumn('typo', 'integer', (c) => c.notNull())
    .addColumn('honeypot', 'integer', (c) => c.notNull())
    .addColumn('first_at', big, (c) => c.notNull())
    .addColumn('last_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('reputation_evidence_days_pk', ['ip', 'day'])
    .execute();

  // Backfill from the raw rows (synthetic rows are never production evidence).
  const count = (kind: string) => sql.raw(`sum(case when kind = '${kind}' then 1 else 0 end)`);
  await sql`
    insert into reputation_evidence_days (ip, day, pristine, recycled, typo, honeypot, first_at, last_at)
    select ip, observed_at / 86400000, ${count('pristine_trap')}, ${count('recycled_trap')},
      ${count('typo_trap')}, ${count('smtp_honeypot')}, min(observed_at), max(observed_at)
    from reputation_evidence where synthetic = 0
    group by ip, observed_at / 86400000`.execute(db);
  await sql`
    insert into reputation_evidence_ips (ip, first_at)
    select ip, min(observed_at) from reputation_evidence where synthetic = 0 group by ip`.execute(db);

  const ranked = (order: string, filter: string) =>
    sql.raw(`(select ip, id, observed_at, bounce_rate, complaint_rate, volume_24h,
      row_number() over (partition by ip order by ${order}) as rn
      from telemetry_observations where synthetic = 0${filter})`);
  await sql`
    insert into telemetry_ip_summary (ip,
      earliest_at, earliest_id, earliest_bounce, earliest_complaint, earliest_volume,
      latest_at, latest_id, latest_bounce, latest_complaint, latest_volume)
    select e.ip, e.observed_at, e.id, e.bounce_rate, e.complaint_rate, e.volume_24h,
      l.observed_at, l.id, l.bounce_rate, l.complaint_rate, l.volume_24h
    from ${ranked('observed_at asc, id asc', '')} e
    join ${ranked('observed_at desc, id desc', '')} l on l.ip = e.ip and l.rn = 1
    where e.rn = 1`.execute(db);
  await sql`
    update telemetry_ip_summary set sending_at = s.observed_at, sending_id = s.id,
      sending_bounce = s.bounce_rate, sending_complaint = s.complaint_rate, sending_volume = s.volume_24h
    from ${ranked('observed_at asc, id asc', ' and volume_24h > 0')} s
    where s.ip = telemetry_ip_summary.ip and s.rn = 1`.execute(db);
}
