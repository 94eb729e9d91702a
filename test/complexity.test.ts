/**
 * Biome's cognitive-complexity rule runs at its default (15) in `npm run lint` for every file except
 * the ones biome.jsonc lists, whose functions were written before the rule was on (issue #33). This
 * test keeps that list a ratchet: it only shrinks. A listed file that no longer has a function over
 * the limit must leave the list (else it could grow new ones unseen), and the list never grows.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/process.ts';

const RULE = 'complexity/noExcessiveCognitiveComplexity';
/** The length of the list on 2026-11-27 (117 when the rule was turned on that day); lower it as files leave. */
const LISTED_AT_MOST = 3;

interface BiomeConfig {
  linter: { rules: { complexity: Record<string, string> } };
  overrides: { includes: string[]; linter?: { rules?: { complexity?: Record<string, string> } } }[];
}

function readConfig(): BiomeConfig {
  const text = readFileSync(path.join(REPO, 'biome.jsonc'), 'utf8');
  // biome.jsonc's comments are whole lines starting with //.
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as BiomeConfig;
}

function listedFiles(config: BiomeConfig): string[] {
  return config.overrides
    .filter((o) => o.linter?.rules?.complexity?.noExcessiveCognitiveComplexity === 'off')
    .flatMap((o) => o.includes);
}

/** Files among `files` that have at least one function over the default limit (the rule forced on). */
function filesOverTheLimit(files: string[]): Set<string> {
  const biome = path.join(REPO, 'node_modules', '.bin', 'biome');
  let out: string;
  try {
    out = execFileSync(
      biome,
      ['lint', `--only=${RULE}`, '--max-diagnostics=none', '--reporter=json', ...files],
      {
        cwd: REPO,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
  } catch (err) {
    // biome exits 1 when it reports findings; its JSON is still on stdout.
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  const report = JSON.parse(out) as {
    diagnostics: { category: string; location: { path: { file: string } | string } }[];
  };
  const over = new Set<string>();
  for (const d of report.diagnostics) {
    if (!d.category.endsWith('noExcessiveCognitiveComplexity')) continue;
    over.add(typeof d.location.path === 'string' ? d.location.path : d.location.path.file);
  }
  return over;
}

describe('cognitive complexity (Biome, default limit)', () => {
  const config = readConfig();
  const listed = listedFiles(config);

  it('is on at its default for everything not listed', () => {
    expect(config.linter.rules.complexity.noExcessiveCognitiveComplexity).toBe('error');
  });

  it('lists only files that still need their place, and the list never grows', { timeout: 60_000 }, () => {
    expect(listed.length).toBeLessThanOrEqual(LISTED_AT_MOST);
    expect(new Set(listed).size).toBe(listed.length);
    const over = filesOverTheLimit(listed);
    const free = listed.filter((f) => !over.has(f));
    expect(
      free,
      'these files have no function over the limit any more: remove them from biome.jsonc',
    ).toEqual([]);
  });
});
