/**
 * Runs once before the suites: reports which external backends the run will exercise, and makes
 * the run's folder for shared dataset builds (test/helpers/datasets.ts), removed after the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { probeBackends } from './backends.ts';

export default async function setup(project: TestProject): Promise<() => void> {
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
  const run = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-test-datasets-'));
  project.provide('netrepDatasetRun', run);
  return () => fs.rmSync(run, { recursive: true, force: true });
}
