/** Runs real tools (nginx, caddy, named-checkzone, iptables-restore, sh) on encoded feed files. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type CanonicalRow,
  type EncodeContext,
  encodeCanonicalRows,
  type FeedFormat,
  type FeedName,
  feedDefinition,
  sortFeedRows,
} from '../../src/feeds/index.ts';
import { realFeedRows } from './feeds-real-data.ts';

export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runTool(
  cmd: string,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): ToolResult {
  const env = { ...process.env, ...options.env };
  const r = spawnSync(cmd, args, {
    input: options.input,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function feedContext(feed: FeedName): EncodeContext {
  return {
    feed: feedDefinition(feed),
    date: '2026-01-02',
    generatedAt: '2026-01-02T00:05:00Z',
    datasetVersion: 7,
  };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The real feed's rows in canonical order (sorted, deduped). */
export async function realCanonicalRows(feed: FeedName): Promise<CanonicalRow[]> {
  return collect(sortFeedRows(realFeedRows(feed)));
}

export async function encodeToString(
  format: FeedFormat,
  rows: CanonicalRow[],
  ctx: EncodeContext,
): Promise<string> {
  return (await collect(encodeCanonicalRows(format, rows, ctx))).join('');
}

/** A temporary directory removed by the returned cleanup function. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `netrep-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeText(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}
