/**
 * The dependency rule of STYLE.md, checked two ways: dependency-cruiser with the repository's
 * .dependency-cruiser.cjs (also run by `npm run lint`), shown here to fail on a planted tree that
 * breaks each rule once; and a scan for clock reads, since only core/clock reads the time in
 * domain code (STYLE §7: time and randomness are parameters).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/process.ts';

const CONFIG = path.join(REPO, '.dependency-cruiser.cjs');

async function cruiseTree(baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const { output } = await cruise(['src'], { ...options, baseDir });
  if (typeof output === 'string') throw new Error('dependency-cruiser returned text, not a result');
  return output;
}

/** One planted violation per rule: the rule, the importing file, the import it writes. */
const PLANTS: { rule: string; from: string; imports: string }[] = [
  { rule: 'core-imports-nothing-of-ours', from: 'src/core/planted.ts', imports: '../http/shell.ts' },
  { rule: 'store-imports-only-core', from: 'src/store/planted.ts', imports: '../accounts/index.ts' },
  { rule: 'domains-never-import-outward', from: 'src/accounts/planted.ts', imports: '../http/shell.ts' },
  { rule: 'domains-through-their-index', from: 'src/http/planted.ts', imports: '../accounts/secrets.ts' },
  { rule: 'root-files-through-domain-index', from: 'src/config.ts', imports: './accounts/secrets.ts' },
  { rule: 'only-cli-starts-the-app', from: 'src/worker/planted.ts', imports: '../app.ts' },
  { rule: 'route-files-stand-alone', from: 'src/http/routes/asn.ts', imports: './ip.ts' },
  { rule: 'route-files-stand-alone', from: 'src/app.ts', imports: './http/routes/ip.ts' },
  { rule: 'routes-registered-by-the-server', from: 'src/cli/serve.ts', imports: '../http/routes/index.ts' },
  { rule: 'no-circular', from: 'src/feeds/ring-a.ts', imports: './ring-b.ts' },
  { rule: 'fastify-only-in-http', from: 'src/blocklist/planted.ts', imports: 'fastify' },
  { rule: 'sql-only-in-store', from: 'src/reputation/planted.ts', imports: 'kysely' },
  { rule: 'dns-packet-only-in-dnsbl', from: 'src/http/wire.ts', imports: 'dns-packet' },
];

/** Files that break nothing: the allowed direction of each rule. */
const ALLOWED: { from: string; imports: string[] }[] = [
  { from: 'src/core/clock.ts', imports: [] },
  { from: 'src/app.ts', imports: ['./accounts/secrets.ts', './http/shell.ts'] },
  { from: 'src/cli/serve.ts', imports: ['../app.ts'] },
  { from: 'src/accounts/index.ts', imports: ['./secrets.ts', '../core/clock.ts', '../store/open.ts'] },
  { from: 'src/accounts/secrets.ts', imports: [] },
  { from: 'src/accounts/store.ts', imports: ['kysely'] },
  { from: 'src/store/open.ts', imports: ['../core/clock.ts', 'kysely'] },
  { from: 'src/http/shell.ts', imports: ['fastify', '../accounts/index.ts'] },
  { from: 'src/http/server.ts', imports: ['./routes/index.ts'] },
  { from: 'src/http/routes/index.ts', imports: ['./ip.ts', './asn.ts', '../shell.ts'] },
  { from: 'src/http/routes/ip.ts', imports: ['../shell.ts', '../../accounts/index.ts'] },
  { from: 'src/dnsbl/wire.ts', imports: ['dns-packet'] },
  { from: 'src/feeds/ring-b.ts', imports: ['./ring-a.ts'] },
];

describe('dependency rule (dependency-cruiser)', () => {
  let tree: string;
  beforeAll(() => {
    tree = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-arch-'));
    // Package imports resolve to the repository's own node_modules, as they do in src/.
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
    const files = new Map<string, string[]>();
    for (const f of ALLOWED) files.set(f.from, [...(files.get(f.from) ?? []), ...f.imports]);
    for (const p of PLANTS) files.set(p.from, [...(files.get(p.from) ?? []), p.imports]);
    for (const [file, imports] of files) {
      const full = path.join(tree, file);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      const lines = imports.map(
        (spec, i) => `import * as m${i} from '${spec}';\nexport const u${i} = m${i};`,
      );
      fs.writeFileSync(full, `${lines.join('\n')}\nexport const planted = true;\n`);
    }
  });
  afterAll(() => {
    fs.rmSync(tree, { recursive: true, force: true });
  });

  it('the repository keeps it', { timeout: 60_000 }, async () => {
    const result = await cruiseTree(REPO);
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(violations).toEqual([]);
    expect(result.summary.totalCruised).toBeGreaterThan(300);
  });

  it('each rule fails on a planted violation, and only there', { timeout: 60_000 }, async () => {
    const result = await cruiseTree(tree);
    const found = result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from }));
    for (const plant of PLANTS) {
      expect(found, `${plant.rule} in ${plant.from}`).toContainEqual({ rule: plant.rule, from: plant.from });
    }
    const planted = new Set(PLANTS.map((p) => `${p.rule} ${p.from}`));
    // The cycle is reported from each of its members.
    const unexpected = found.filter(
      (v) =>
        !planted.has(`${v.rule} ${v.from}`) &&
        !(v.rule === 'no-circular' && v.from === 'src/feeds/ring-b.ts'),
    );
    expect(unexpected).toEqual([]);
  });
});

/** Domain folders: their code takes `now` or a Clock, never reads the time itself. */
const DOMAIN_DIRS = [
  'accounts',
  'audit',
  'blocklist',
  'dataset',
  'emailauth',
  'feeds',
  'headers',
  'intel',
  'limits',
  'reputation',
  'telemetry',
  'warmup',
  'webhooks',
];
/** `Date.now()`, `new Date()` without an argument, and `Math.random()`. */
const CLOCK_READ = /\bDate\.now\(\)|\bnew Date\(\s*\)|\bMath\.random\(\)/;

function clockReads(file: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, '');
    if (CLOCK_READ.test(code)) out.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return out;
}

function domainSources(): string[] {
  const files: string[] = [];
  for (const dir of DOMAIN_DIRS) {
    const root = path.join(REPO, 'src', dir);
    if (!fs.existsSync(root)) continue;
    for (const entry of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (entry.endsWith('.ts') && !entry.endsWith('.test.ts') && !entry.includes('fixtures')) {
        files.push(path.join('src', dir, entry));
      }
    }
  }
  return files;
}

describe('only core/clock reads the time', () => {
  it('no domain module reads the clock or draws random numbers itself', () => {
    const files = domainSources();
    expect(files.length).toBeGreaterThan(100);
    const reads = files.flatMap((f) => clockReads(f, fs.readFileSync(path.join(REPO, f), 'utf8')));
    expect(reads).toEqual([]);
  });

  it('the scan finds a planted read, and lets parameters and comments be', () => {
    expect(clockReads('x.ts', 'const t = Date.now();')).toHaveLength(1);
    expect(clockReads('x.ts', 'const d = new Date( );')).toHaveLength(1);
    expect(clockReads('x.ts', 'const r = Math.random() * 2;')).toHaveLength(1);
    expect(clockReads('x.ts', 'const d = new Date(now);\nconst t = clock();')).toEqual([]);
    expect(clockReads('x.ts', '// never Date.now(): the clock is injected')).toEqual([]);
  });
});
