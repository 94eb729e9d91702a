/** Runs once before the suites: reports which external backends the run will exercise. */
import { probeBackends } from './backends.ts';

export default async function setup(): Promise<void> {
  const b = await probeBackends();
  const lines = [
    `PostgreSQL (${b.postgresUrl}): ${b.postgres ? 'available, PostgreSQL suites run' : `NOT available, PostgreSQL suites SKIPPED (${b.postgresReason})`}`,
    `Redis (${b.redisUrl}): ${b.redis ? 'available, Redis suites run' : `NOT available, Redis suites SKIPPED (${b.redisReason})`}`,
  ];
  process.stdout.write(`\nnetrep test backends:\n  ${lines.join('\n  ')}\n\n`);
  if (
    process.env.CI === 'true' &&
    (!b.postgres || !b.redis) &&
    process.env.NETREP_TEST_ALLOW_SKIP !== 'true'
  ) {
    throw new Error('CI=true but PostgreSQL or Redis is not reachable; CI must exercise both backends');
  }
}
