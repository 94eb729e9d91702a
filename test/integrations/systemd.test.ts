/**
 * The systemd units of deploy/systemd as systemd itself reads them (#37 item 4):
 * `systemd-analyze verify` finds nothing to say about them (nor about the README's port-53
 * drop-in), `systemd-analyze security --offline=yes` rates them as the README says, the sample
 * environment file holds only real NETREP_* settings that load, and the unit's stop settings fit
 * what netrep does on SIGTERM: each unit's ExecStart, run as written with the sample settings,
 * exits 0 on SIGTERM well within TimeoutStopSec.
 *
 * The units name the install paths /opt/netrep and /usr/bin/node; the copies checked here point
 * at this checkout and the running Node instead (systemd-analyze verify refuses an ExecStart
 * binary that does not exist), nothing else in them changes.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from '../../src/config.ts';
import { seedDataset } from '../helpers/datasets.ts';
import { REPO } from '../helpers/process.ts';
import { readmeSnippet } from '../helpers/readme-snippet.ts';
import { tempDir } from '../helpers/stores.ts';

const DEPLOY = path.join(REPO, 'deploy/systemd');
const UNITS = ['netrep.service', 'netrep-worker.service'] as const;

const analyzer = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const missing = analyzer.status === 0 ? null : 'systemd-analyze is not installed (Debian package systemd)';
if (missing && process.env.CI !== 'true') console.warn(`systemd.test.ts skipped: ${missing}`);

/** The unit as installed on this machine: the checkout for /opt/netrep, this Node for /usr/bin/node. */
function installedCopy(unit: string): string {
  return fs
    .readFileSync(path.join(DEPLOY, unit), 'utf8')
    .replaceAll('/opt/netrep', REPO)
    .replaceAll('/usr/bin/node', process.execPath);
}

/** `Key=value` settings of a unit's [Service] section (the last one wins, as in systemd). */
function serviceSettings(text: string): Map<string, string> {
  const section = text.split(/^\[Service\]$/m)[1]?.split(/^\[/m)[0] ?? '';
  const out = new Map<string, string>();
  for (const line of section.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1] as string, m[2] as string);
  }
  return out;
}

/** The environment files a unit names, in order (a leading `-`: optional). */
const environmentFiles = (unit: string) =>
  [...installedCopy(unit).matchAll(/^EnvironmentFile=-?(.*)$/gm)].map((m) => m[1] as string);

/** A sample environment file (the folder's copy of /etc/netrep/NAME): `#NAME=value` lines flagged. */
function sampleEnv(installed: string): { name: string; value: string; commented: boolean }[] {
  const text = fs.readFileSync(path.join(DEPLOY, path.basename(installed)), 'utf8');
  return [...text.matchAll(/^(#?)(NETREP_[A-Z0-9_]+)=(.*)$/gm)].map((m) => ({
    name: m[2] as string,
    value: m[3] as string,
    commented: m[1] === '#',
  }));
}

/** The settings a unit starts with: its environment files in order, the later winning. */
const unitEnv = (unit: string): Record<string, string> =>
  Object.fromEntries(
    environmentFiles(unit)
      .flatMap((f) => sampleEnv(f))
      .filter((e) => !e.commented)
      .map((e) => [e.name, e.value]),
  );

function analyze(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync('systemd-analyze', args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Lines of systemd-analyze's output that speak of our files (the units, the drop-in, netrep). */
const aboutOurFiles = (output: string, dir: string) =>
  output.split('\n').filter((l) => l.includes(dir) || /netrep/.test(l));

describe.skipIf(missing !== null && process.env.CI !== 'true')('deploy/systemd units', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('netrep-systemd-');
    for (const unit of UNITS) fs.writeFileSync(path.join(dir, unit), installedCopy(unit));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('systemd-analyze is installed', () => {
    expect(missing).toBeNull();
  });

  it('systemd-analyze verify has nothing to say about either unit', () => {
    expect(fs.existsSync(path.join(REPO, 'bin/netrep.js'))).toBe(true);
    const r = analyze(['verify', ...UNITS.map((u) => `./${u}`)], dir);
    expect(aboutOurFiles(r.output, dir)).toEqual([]);
    expect(r.status).toBe(0);
  });

  it("the README's port-53 drop-in verifies and adds only CAP_NET_BIND_SERVICE", () => {
    const dropIn = path.join(dir, 'netrep.service.d');
    fs.mkdirSync(dropIn, { recursive: true });
    fs.writeFileSync(path.join(dropIn, 'dns-port-53.conf'), readmeSnippet('systemd-port-53'));
    try {
      const r = analyze(['verify', 'netrep.service'], dir, { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` });
      expect(aboutOurFiles(r.output, dir)).toEqual([]);
      expect(r.status).toBe(0);
      // What the drop-in opens, in systemd's own words: the capability, nothing else.
      const json = analyze(['security', '--offline=yes', '--json=short', './netrep.service'], dir);
      const checks = JSON.parse(json.output) as { name: string; set: boolean }[];
      const open = checks.filter((c) => /Capabilit/.test(c.name) && !c.set).map((c) => c.name);
      expect(open.sort()).toEqual([
        'AmbientCapabilities=',
        'CapabilityBoundingSet=~CAP_NET_(BIND_SERVICE|BROADCAST|RAW)',
      ]);
    } finally {
      fs.rmSync(dropIn, { recursive: true, force: true });
    }
  });

  it('systemd-analyze security --offline=yes rates the units as the README says', () => {
    const r = analyze(['security', '--offline=yes', ...UNITS.map((u) => `./${u}`)], dir);
    const overall = (text: string) =>
      text.split('\n').filter((l) => l.startsWith('→ Overall exposure level'));
    expect(overall(r.output)).toEqual(overall(readmeSnippet('systemd-security')));
  });

  it('the sample environment files hold real settings that load, with the data dir the units write', () => {
    const known = new Set<string>(Object.values(SETTINGS).map((s) => s.env));
    expect(environmentFiles('netrep.service')).toEqual(['/etc/netrep/netrep.env']);
    expect(environmentFiles('netrep-worker.service')).toEqual([
      '/etc/netrep/netrep.env',
      '/etc/netrep/netrep-worker.env',
    ]);
    for (const unit of UNITS) {
      const entries = environmentFiles(unit).flatMap((f) => sampleEnv(f));
      expect(entries.filter((e) => !known.has(e.name)).map((e) => e.name)).toEqual([]);
      const config = loadConfig({}, unitEnv(unit));
      const s = serviceSettings(installedCopy(unit));
      expect(s.get('ReadWritePaths')).toBe(config.dataDir);
      expect(`/var/lib/${s.get('StateDirectory')}`).toBe(config.dataDir);
      expect(s.get('WorkingDirectory')).toBe(config.dataDir);
    }
    // Two units on one host: two metrics ports.
    expect(loadConfig({}, unitEnv('netrep.service')).metricsListen).not.toBe(
      loadConfig({}, unitEnv('netrep-worker.service')).metricsListen,
    );
  });

  describe('the stop systemd asks for is the one netrep does', () => {
    // src/cli/serve.ts: past this a shutdown that hangs exits 1 on its own.
    const deadlineMs = Number(
      /const SHUTDOWN_DEADLINE_MS = ([\d_]+);/
        .exec(fs.readFileSync(path.join(REPO, 'src/cli/serve.ts'), 'utf8'))?.[1]
        ?.replaceAll('_', ''),
    );
    const children: ChildProcess[] = [];
    const dataDirs: string[] = [];
    afterAll(() => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
    });

    it.concurrent.for(UNITS)(
      '%s: SIGTERM, then exit 0 well within TimeoutStopSec',
      { timeout: 150_000 },
      // The test's own expect: the two run at once.
      async (unit, { expect }) => {
        const s = serviceSettings(installedCopy(unit));
        expect(s.get('KillSignal')).toBe('SIGTERM');
        expect(s.get('KillMode')).toBe('mixed');
        const timeoutStopMs = Number(s.get('TimeoutStopSec')) * 1000;
        expect(deadlineMs).toBeGreaterThan(0);
        // netrep's own deadline fires first, so a hung part is named in the log before SIGKILL.
        expect(timeoutStopMs).toBeGreaterThan(deadlineMs);

        const dataDir = tempDir('netrep-systemd-data-');
        dataDirs.push(dataDir);
        await seedDataset(dataDir, 'fixture-a');
        // The sample's settings but what would leave this machine or take a fixed port.
        const env = {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          ...unitEnv(unit),
          NETREP_DATA_DIR: dataDir,
          NETREP_LISTEN: '127.0.0.1:0',
          NETREP_DNSBL_LISTEN: '127.0.0.1:0',
          NETREP_METRICS_LISTEN: '127.0.0.1:0',
          NETREP_DATASET_UPDATE: 'off',
          NETREP_DNS_SERVERS: '127.0.0.1:9',
          NETREP_LOG_LEVEL: 'info',
        };
        const [exe, ...args] = (s.get('ExecStart') as string).split(/\s+/);
        const child = spawn(exe as string, args, { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on('data', (d: Buffer) => {
          out += d.toString();
        });
        // serve: the API's address; worker: its own metrics listener's.
        const ready =
          unit === 'netrep.service'
            ? /listening on (http:\/\/[^\s"]+)/
            : /netrep worker running.*metrics on (http:\/\/[^\s"]+)\/metrics/;
        const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
          child.once('exit', (code, signal) => resolve({ code, signal })),
        );
        // A cold start (tsx compiling the sources) on a busy 2-core machine takes a while.
        const startBy = Date.now() + 100_000;
        while (!ready.test(out) && child.exitCode === null && Date.now() < startBy)
          await new Promise((r) => setTimeout(r, 100));
        expect(ready.test(out), out).toBe(true);
        const url = ready.exec(out)?.[1];
        if (unit === 'netrep.service') expect((await fetch(`${url}/healthz`)).status).toBe(200);
        else
          expect(await (await fetch(`${url}/metrics`)).text()).toContain('netrep_webhook_dead_letters_total');

        const stopAt = Date.now();
        child.kill('SIGTERM');
        const end = await Promise.race([
          exited,
          new Promise<null>((r) => setTimeout(() => r(null), timeoutStopMs)),
        ]);
        const tookMs = Date.now() - stopAt;
        expect(end, `no exit within TimeoutStopSec:\n${out}`).toEqual({ code: 0, signal: null });
        expect(tookMs).toBeLessThan(deadlineMs);
      },
    );
  });
});
