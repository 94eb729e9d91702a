/**
 * `dataset update`: download upstream files to `<dataDir>/upstream/<path>` (each through a
 * temp file and a rename, so a failed download keeps the previous copy), then build from there.
 * NETREP_DATASET_SOURCES names a JSON file `{ "<source id>": "<url>", ... }`; when set, it is
 * the complete list of what is downloaded.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type SourceSpec, UPSTREAM_SOURCES } from './sources.ts';

export function upstreamDir(dataDir: string): string {
  return path.join(dataDir, 'upstream');
}

export function resolveSources(overrideFile: string): SourceSpec[] {
  if (!overrideFile) return [...UPSTREAM_SOURCES];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(overrideFile, 'utf8'));
  } catch (err) {
    throw new Error(`NETREP_DATASET_SOURCES: cannot read ${overrideFile}: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error('NETREP_DATASET_SOURCES: expected a JSON object mapping source ids to URLs');
  }
  const out: SourceSpec[] = [];
  for (const [id, url] of Object.entries(doc)) {
    const spec = UPSTREAM_SOURCES.find((s) => s.id === id);
    if (!spec) throw new Error(`NETREP_DATASET_SOURCES: unknown source id "${id}"`);
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new Error(`NETREP_DATASET_SOURCES: "${id}" needs an http(s) URL`);
    out.push({ ...spec, url });
  }
  return out;
}

export interface DownloadResult {
  id: string;
  ok: boolean;
  bytes: number;
  error?: string;
}

export async function downloadSources(options: {
  dataDir: string;
  sources: readonly SourceSpec[];
  timeoutMs?: number;
  onResult?: (r: DownloadResult) => void;
}): Promise<DownloadResult[]> {
  const root = upstreamDir(options.dataDir);
  const results: DownloadResult[] = [];
  for (const spec of options.sources) {
    const target = path.join(root, spec.path);
    let result: DownloadResult;
    try {
      const res = await fetch(spec.url, {
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
        redirect: 'follow',
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      if (body.length === 0) throw new Error('empty body');
      mkdirSync(path.dirname(target), { recursive: true });
      const tmp = `${target}.download`;
      writeFileSync(tmp, body);
      renameSync(tmp, target);
      result = { id: spec.id, ok: true, bytes: body.length };
    } catch (err) {
      const kept = existsSync(target) ? ' (previous copy kept)' : '';
      result = { id: spec.id, ok: false, bytes: 0, error: `${(err as Error).message}${kept}` };
    }
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}
