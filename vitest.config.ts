import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one at a time on a 2-core CI machine,
    // where most files wait on child processes, sockets and timers. Two at least (#33 item 5).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // As `npm start` runs serve: core/collect-garbage.ts collects after a dataset load only with it.
    execArgv: ['--expose-gc'],
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
