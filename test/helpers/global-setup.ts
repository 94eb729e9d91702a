/**
 * Runs before each project's files (vitest.config.ts: the parallel suite, then the files that run
 * alone): reports which external backends the run will exercise, and makes the run's folder for
 * shared dataset builds (test/helpers/datasets.ts). Both projects get the same folder (named after
 * the vitest process), so a dataset is built once per run; the last project's teardown removes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { probeBackends } from './backends.ts';

/** Projects using each run folder (global setups run in the one vitest process). */
const shelf = globalThis as { netrepDatasetRunUsers?: Map<string, number> };
shelf.netrepDatasetRunUsers ??= new Map();
const users = shelf.netrepDatasetRunUsers;

export default async function setup(project: TestProject): Promise<() => void> {
  const run = path.join(os.tmpdir(), `netrep-test-datasets-${process.pid}`);
  if (!users.get(run)) await reportBackends();
  fs.mkdirSync(run, { recursive: true });
  project.provide('netrepDatasetRun', run);
  users.set(run, (users.get(run) ?? 0) + 1);
  return () => {
    const left = (users.get(run) ?? 1) - 1;
    users.set(run, left);
    if (left === 0) fs.rmSync(run, { recursive: true, force: true });
  };
}

/** Prints which backends the run exercises; under CI=true a missing one fails the run. */
async function reportBackends(): Promise<void> {
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
