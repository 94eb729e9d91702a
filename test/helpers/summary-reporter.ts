/**
 * Prints, after Vitest's own summary, the ten slowest test files (wall time of each file's tests
 * and hooks, plus its import time), then one plain closing line, `tests: N passed, N failed,
 * N skipped`, so tools that read a run's last lines see the counts in a common form.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** The slowest files, slowest first: `[seconds, file]` (duration + collect, i.e. imports). */
function slowestFiles(testModules: ReadonlyArray<TestModule>, n = 10): [number, string][] {
  return testModules
    .map((mod): [number, string] => {
      const d = mod.diagnostic();
      return [(d.duration + d.collectDuration) / 1000, mod.relativeModuleId];
    })
    .sort((a, b) => b[0] - a[0])
    .slice(0, n);
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that fails before its tests run (an import error) counts as a failure.
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    failed += unhandledErrors.length;
    const slow = slowestFiles(testModules);
    if (slow.length > 1) {
      const lines = slow.map(([s, file]) => `  ${s.toFixed(1).padStart(7)} s  ${file}`);
      process.stdout.write(`\nslowest test files (tests + hooks + imports):\n${lines.join('\n')}\n`);
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
