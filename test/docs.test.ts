/**
 * The documentation holds together (#33 item 1): every relative link in README.md, docs/*.md and
 * the src/ READMEs reaches an existing file and heading; every folder of src/ has a README of at
 * most 40 lines; README.md stays under 300 lines; and no doc or code comment dates a fact by an
 * ordinal label of a past stretch of work instead of a date or a commit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/process.ts';

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full, keep));
    else if (keep(full)) out.push(full);
  }
  return out;
}

const DOCS = [
  path.join(REPO, 'README.md'),
  ...walk(path.join(REPO, 'docs'), (f) => f.endsWith('.md')),
  ...walk(path.join(REPO, 'src'), (f) => path.basename(f) === 'README.md'),
];

/** Markdown without fenced blocks and inline code, where brackets are not links. */
function proseOf(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown text: [text](target), no scheme, no autolinks. */
function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const m of proseOf(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    links.push(target);
  }
  return links;
}

/** The ordinal labels of a stretch of work that date nothing for a reader. */
const WORK_LABEL =
  /\b(?:(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth)[- ]sessions?|sessions? [0-9]+|this\ssession)\b/i;

/** Comment text of a TypeScript source (line and block comments; strings are not parsed). */
function commentsOf(source: string): string {
  const parts: string[] = [];
  for (const m of source.matchAll(/\/\*[\s\S]*?\*\/|(?:^|[^:'"`])\/\/[^\n]*/g)) parts.push(m[0]);
  return parts.join('\n');
}

/** Why a relative link of `doc` leads nowhere (no such file, no such heading), or null. */
function linkProblem(doc: string, link: string): string | null {
  const [file = '', anchor] = link.split('#');
  const target = file === '' ? doc : path.resolve(path.dirname(doc), decodeURI(file));
  if (!fs.existsSync(target)) return 'no such file';
  if (anchor !== undefined && !anchorsOf(fs.readFileSync(target, 'utf8')).has(anchor))
    return 'no such heading';
  return null;
}

describe('docs', () => {
  it('every relative link in README.md, docs/ and the src READMEs reaches a file and heading', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const doc of DOCS) {
      for (const link of relativeLinks(fs.readFileSync(doc, 'utf8'))) {
        checked++;
        const problem = linkProblem(doc, link);
        if (problem !== null) broken.push(`${path.relative(REPO, doc)}: ${link} (${problem})`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('the link check finds a missing file and a missing heading', () => {
    expect(relativeLinks('[a](docs/api.md#errors) [b](https://x.test/) `[c](d.md)` [e](#f)')).toEqual([
      'docs/api.md#errors',
      '#f',
    ]);
    const anchors = anchorsOf('# API guide\n## Errors\n## IP address forms\n## Errors\n## `GET /x` (y)');
    expect([...anchors]).toEqual(['api-guide', 'errors', 'ip-address-forms', 'errors-1', 'get-x-y']);
  });

  it('README.md is at most 300 lines and its first screen links setup, settings, API and benchmarks', () => {
    const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const firstScreen = readme.split('\n').slice(0, 40).join('\n');
    for (const target of [
      'docs/configuration.md',
      'docs/api.md',
      'docs/benchmarks.md',
      'docs/operations.md',
    ]) {
      expect(firstScreen).toContain(`](${target}`);
    }
    expect(firstScreen).toContain('npm install && npm start');
    expect(firstScreen).toContain('npm install && npm test');
  });

  it('every folder of src/ has a README of at most 40 lines', () => {
    const src = path.join(REPO, 'src');
    const folders = fs
      .readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(10);
    const missing = folders.filter((f) => !fs.existsSync(path.join(src, f, 'README.md')));
    expect(missing).toEqual([]);
    const long = walk(src, (f) => path.basename(f) === 'README.md')
      .map((f) => ({
        file: path.relative(REPO, f),
        lines: fs.readFileSync(f, 'utf8').trimEnd().split('\n').length,
      }))
      .filter((r) => r.lines > 40);
    expect(long).toEqual([]);
  });

  it('no doc or code comment dates a fact by a label of a stretch of work instead of a date or commit', () => {
    // The labels are put together here, so that this file does not hold the text it forbids.
    const label = (...words: string[]) => words.join(' ');
    expect(WORK_LABEL.test(label('measured in the thirteenth', 'session'))).toBe(true);
    expect(WORK_LABEL.test(label('see', 'session', '12'))).toBe(true);
    expect(WORK_LABEL.test(label('changed this', 'session'))).toBe(true);
    expect(WORK_LABEL.test('measured 2026-11-25 (6d5eb23); the dashboard session cookie')).toBe(false);
    const found: string[] = [];
    const sources = ['src', 'test', 'bench'].flatMap((d) =>
      walk(path.join(REPO, d), (f) => f.endsWith('.ts') && f !== fileURLToPath(import.meta.url)),
    );
    for (const file of [...DOCS, ...sources]) {
      const text = fs.readFileSync(file, 'utf8');
      const scanned = file.endsWith('.ts') ? commentsOf(text) : text;
      for (const line of scanned.split('\n')) {
        if (WORK_LABEL.test(line)) found.push(`${path.relative(REPO, file)}: ${line.trim()}`);
      }
    }
    expect(found).toEqual([]);
  });
});
