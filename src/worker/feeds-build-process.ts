/**
 * Builds dataset feed snapshots in a child process (feeds-build-child.ts), at a lower CPU
 * priority, so that what the build reads and sorts is freed when the child exits and the serving
 * process stays small at idle (issue 18). Skipped rows are reported to the caller as they come.
 */
import type { FeedBuildResult, FeedName } from '../feeds/index.ts';
import { spawnBuildChild } from './build-child.ts';

export interface FeedsBuildRequest {
  dataDir: string;
  now: number;
  feeds: FeedName[];
  onSkippedRow: (feed: FeedName, reason: string) => void;
}

/** Builds the named dataset feeds for the day of `now`; rejects when the build as a whole fails. */
export type FeedsBuildRunner = (request: FeedsBuildRequest) => Promise<FeedBuildResult[]>;

const CHILD = new URL('./feeds-build-child.ts', import.meta.url);

export function createChildFeedsRunner(options: { timeoutMs?: number } = {}): FeedsBuildRunner {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  return (request) =>
    new Promise<FeedBuildResult[]>((resolve, reject) => {
      const args = { dataDir: request.dataDir, now: request.now, feeds: request.feeds };
      const child = spawnBuildChild(CHILD, args);
      let results: FeedBuildResult[] | null = null;
      let partial = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line === '') continue;
          const message = JSON.parse(line) as {
            skipped?: { feed: FeedName; reason: string };
            results?: FeedBuildResult[];
          };
          if (message.skipped) request.onSkippedRow(message.skipped.feed, message.skipped.reason);
          if (message.results) results = message.results;
        }
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0 && results !== null) return resolve(results);
        const why = timedOut
          ? `timed out after ${Math.round(timeoutMs / 1000)} s`
          : (/feed build failed: (.*)/.exec(stderr)?.[1] ??
            (signal ? `killed by ${signal}` : `exited with code ${code}`));
        reject(new Error(`feed build failed: ${why}`));
      });
    });
}
