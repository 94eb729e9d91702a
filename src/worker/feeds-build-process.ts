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

/** One line the child prints on stdout (feeds-build-child.ts). */
interface ChildMessage {
  skipped?: { feed: FeedName; reason: string };
  results?: FeedBuildResult[];
}

/** Reads the child's stdout as JSON lines: skipped rows passed on as they come, the results kept. */
function createMessageReader(onSkippedRow: FeedsBuildRequest['onSkippedRow']) {
  let partial = '';
  const reader = {
    results: null as FeedBuildResult[] | null,
    feed(text: string): void {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line !== '') reader.take(JSON.parse(line) as ChildMessage);
    },
    take(message: ChildMessage): void {
      if (message.skipped) onSkippedRow(message.skipped.feed, message.skipped.reason);
      if (message.results) reader.results = message.results;
    },
  };
  return reader;
}

/** Why the child failed: the timeout, the `feed build failed: ` line it printed, its signal or exit code. */
function childFailureReason(
  timedOutAfterMs: number | null,
  stderr: string,
  signal: NodeJS.Signals | null,
  code: number | null,
): string {
  if (timedOutAfterMs !== null) return `timed out after ${Math.round(timedOutAfterMs / 1000)} s`;
  const printed = /feed build failed: (.*)/.exec(stderr)?.[1];
  if (printed !== undefined) return printed;
  return signal ? `killed by ${signal}` : `exited with code ${code}`;
}

export function createChildFeedsRunner(options: { timeoutMs?: number } = {}): FeedsBuildRunner {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  return (request) =>
    new Promise<FeedBuildResult[]>((resolve, reject) => {
      const args = { dataDir: request.dataDir, now: request.now, feeds: request.feeds };
      const child = spawnBuildChild(CHILD, args);
      const messages = createMessageReader(request.onSkippedRow);
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => messages.feed(d.toString()));
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
        if (code === 0 && messages.results !== null) return resolve(messages.results);
        const why = childFailureReason(timedOut ? timeoutMs : null, stderr, signal, code);
        reject(new Error(`feed build failed: ${why}`));
      });
    });
}
