import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { datasetFixture } from '../../test/helpers/intel-app.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { tempDir } from '../../test/helpers/stores.ts';
import { startUpstreamServer, type UpstreamServer } from '../../test/helpers/upstream-server.ts';
import { createManualClock, type ManualClock } from '../core/clock.ts';
import { parseIp } from '../core/ip.ts';
import {
  acquireUpdateLock,
  buildDataset,
  datasetsDir,
  listDatasetVersions,
  readUpdateStatus,
  upstreamDir,
} from '../dataset/index.ts';
import { createIntelRuntime, type IntelRuntime } from '../intel/index.ts';
import {
  type DatasetUpdater,
  type DatasetUpdaterOptions,
  parseRetryDelay,
  parseUpdateInterval,
  retryDelay,
  startDatasetUpdater,
} from './dataset-update.ts';

const TOR = readFileSync(sharedDataPath('tor/exit-addresses'));
const DROP = readFileSync(sharedDataPath('spamhaus/drop.txt'));
/** An address of the fixture's Flokinet /24 that the real exit list names. */
const EXIT_IP = '185.241.208.232';
const HOUR = 3_600_000;

describe('parseUpdateInterval (NETREP_DATASET_UPDATE)', () => {
  it('reads off, daily and whole numbers of s, m, h, d', () => {
    expect(parseUpdateInterval('off')).toBeNull();
    expect(parseUpdateInterval('daily')).toBe(24 * HOUR);
    expect(parseUpdateInterval(' 6h ')).toBe(6 * HOUR);
    expect(parseUpdateInterval('30m')).toBe(30 * 60_000);
    expect(parseUpdateInterval('90s')).toBe(90_000);
    expect(parseUpdateInterval('2D')).toBe(48 * HOUR);
    for (const bad of ['', 'weekly', '0h', '1.5h', '-1h', '10', 'h', '6 hours'])
      expect(() => parseUpdateInterval(bad), bad).toThrow(/NETREP_DATASET_UPDATE must be off, daily or/);
  });

  it('NETREP_DATASET_UPDATE_RETRY reads intervals only; the delay doubles per failure up to its cap', () => {
    expect(parseRetryDelay('5m')).toBe(300_000);
    expect(parseRetryDelay('1s')).toBe(1000);
    for (const bad of ['off', 'daily', '0s', ''])
      expect(() => parseRetryDelay(bad), bad).toThrow(/NETREP_DATASET_UPDATE_RETRY must be an interval/);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelay(n, 5 * 60_000, HOUR) / 60_000)).toEqual([
      5, 10, 20, 40, 60, 60, 60, 60,
    ]);
    // A cap below the first delay does not shorten it.
    expect(retryDelay(3, HOUR, 60_000)).toBe(HOUR);
    expect(retryDelay(1000, 1000, HOUR)).toBe(HOUR);
  });
});

interface LogLine {
  level: 'info' | 'warn' | 'error';
  msg: string;
}

describe('scheduled dataset update', () => {
  let upstream: UpstreamServer;
  let dataDir: string;
  let clock: ManualClock;
  let runtime: IntelRuntime;
  let logs: LogLine[];
  const updaters: DatasetUpdater[] = [];

  beforeEach(async () => {
    upstream = await startUpstreamServer();
    upstream.set('/tor', { kind: 'file', body: TOR });
    upstream.set('/drop', { kind: 'file', body: DROP });
    dataDir = tempDir('netrep-update-');
    writeFileSync(
      path.join(dataDir, 'sources.json'),
      JSON.stringify({
        'tor-exit-addresses': upstream.url('/tor'),
        'spamhaus-drop-text': upstream.url('/drop'),
      }),
    );
    clock = createManualClock('2026-06-01T00:00:00Z');
    runtime = createIntelRuntime({ dataDir, clock });
    logs = [];
  });
  afterEach(async () => {
    for (const u of updaters.splice(0)) await u.stop();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function updater(overrides: Partial<DatasetUpdaterOptions> = {}): DatasetUpdater {
    const push = (level: LogLine['level']) => (_obj: object, msg?: string) =>
      logs.push({ level, msg: msg ?? '' });
    const u = startDatasetUpdater({
      dataDir,
      clock,
      intervalMs: 6 * HOUR,
      sourcesFile: path.join(dataDir, 'sources.json'),
      builder: true,
      runtime,
      scheduled: false,
      npmDir: datasetFixture('npm-a'),
      logger: { info: push('info'), warn: push('warn'), error: push('error') },
      ...overrides,
    });
    updaters.push(u);
    return u;
  }

  const isTorExit = (rt: IntelRuntime) => rt.current()?.lookup(parseIp(EXIT_IP)!)?.netrep.is_tor_exit;
  const upstreamCopy = (rel: string) => readFileSync(path.join(upstreamDir(dataDir), rel));
  const leftovers = () => [
    ...readdirSync(datasetsDir(dataDir)).filter((n) => n.startsWith('.tmp')),
    ...readdirSync(path.join(upstreamDir(dataDir), 'spamhaus')).filter((n) => n.endsWith('.download')),
  ];

  it('downloads from the configured URLs, builds in a child process and swaps the snapshot in', async () => {
    const u = updater();
    expect(runtime.current()).toBeNull();
    const r = await u.runOnce();
    expect(r).toMatchObject({ result: 'ok', version: 1 });
    expect(upstream.requests.sort()).toEqual(['/drop', '/tor']);
    expect(runtime.snapshotInfo()).toEqual({ version: 1, createdAt: '2026-06-01T00:00:00.000Z' });
    expect(isTorExit(runtime)).toBe(true);
    expect(upstreamCopy('tor/exit-addresses').equals(TOR)).toBe(true);
    expect(u.counts()).toMatchObject({ ok: 1, failed: 0, skipped: 0, lastSuccessAt: clock() });
    expect(logs.at(-1)).toEqual({ level: 'info', msg: 'dataset update: v1 built and swapped in' });
  }, 60_000);

  it('a download cut off half-way keeps the previous upstream copy and the served snapshot; it is logged and counted', async () => {
    const u = updater();
    expect((await u.runOnce()).result).toBe('ok');
    upstream.set('/drop', { kind: 'halfway', body: DROP });
    upstream.set('/tor', { kind: 'file', body: 'ExitNode X\nExitAddress 203.0.113.9 2026-06-01 00:00:00\n' });
    clock.advance(7 * HOUR);
    const r = await u.runOnce();
    expect(r).toMatchObject({ result: 'failed', stage: 'download' });
    if (r.result !== 'failed') return;
    expect(r.downloads.find((d) => d.id === 'spamhaus-drop-text')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/previous copy kept/),
    });
    // The good copy of the cut-off file is untouched and no temp file is left behind.
    expect(upstreamCopy('spamhaus/drop.txt').equals(DROP)).toBe(true);
    expect(leftovers()).toEqual([]);
    // No build happened: v1 is the only snapshot, and it is still served.
    expect(listDatasetVersions(dataDir).map((v) => v.version)).toEqual([1]);
    expect(runtime.current()?.datasetVersion).toBe(1);
    expect(isTorExit(runtime)).toBe(true);
    expect(u.counts()).toMatchObject({ ok: 1, failed: 1 });
    expect([...u.counts().downloadFailures]).toEqual([['spamhaus-drop-text', 1]]);
    expect(logs).toContainEqual({
      level: 'warn',
      msg: expect.stringMatching(/^dataset download spamhaus-drop-text failed: /),
    });
    expect(logs.at(-1)).toEqual({
      level: 'error',
      msg: 'dataset update failed at download: 1 of 2 downloads failed (spamhaus-drop-text); v1 stays served; next try in 300 s',
    });
    // The next try waits for the first retry delay (five minutes by default), not a whole interval.
    expect(u.nextDueAt()).toBe(clock() + 5 * 60_000);
  }, 60_000);

  it('a build that fails after writing leaves no temp directory and no new snapshot; v1 stays served', async () => {
    const u = updater();
    expect((await u.runOnce()).result).toBe('ok');
    // v1 is served from memory. On disk it becomes a snapshot without file hashes (as built
    // before 2026-11-27) whose Tor feed rows file is a directory, so the build of v2 fails at its
    // feed rows step, after it has written the tables of v2 into its temp directory. (A v1 with
    // a broken data file no longer fails the build: it is left out of the history.)
    const v1 = path.join(datasetsDir(dataDir), 'v1');
    const manifest = JSON.parse(readFileSync(path.join(v1, 'manifest.json'), 'utf8')) as { files?: unknown };
    delete manifest.files;
    writeFileSync(path.join(v1, 'manifest.json'), JSON.stringify(manifest));
    rmSync(path.join(v1, 'feed-rows', 'tor_exits.tsv'));
    mkdirSync(path.join(v1, 'feed-rows', 'tor_exits.tsv'));
    const r = await u.runOnce();
    expect(r).toMatchObject({
      result: 'failed',
      stage: 'build',
      error: expect.stringMatching(/^dataset build failed after "history: comparing with v1": .*EISDIR/),
    });
    expect(leftovers()).toEqual([]);
    expect(
      readdirSync(datasetsDir(dataDir)).filter((n) => n !== '.update.lock' && n !== 'update-status.json'),
    ).toEqual(['v1']);
    expect(runtime.current()?.datasetVersion).toBe(1);
    expect(isTorExit(runtime)).toBe(true);
    expect(u.counts()).toMatchObject({ ok: 1, failed: 1 });
    expect(logs.at(-1)).toEqual({
      level: 'error',
      msg: `dataset update failed at build: ${r.result === 'failed' ? r.error : ''}; v1 stays served; next try in 300 s`,
    });
  }, 60_000);

  it('the schedule builds when the newest snapshot is older than the interval; other instances only swap it in', async () => {
    const builder = updater();
    const other = createIntelRuntime({ dataDir, clock });
    const reader = updater({ builder: false, runtime: other });
    // Nothing on disk: the builder is due at once, the reader never builds.
    expect(reader.nextDueAt()).toBeNull();
    await builder.tick();
    expect(runtime.current()?.datasetVersion).toBe(1);
    await reader.tick();
    expect(other.current()?.datasetVersion).toBe(1);

    // Due six hours after v1 was built, by the injected clock.
    expect(builder.nextDueAt()).toBe(Date.parse('2026-06-01T06:00:00Z'));
    clock.advance(6 * HOUR - 1);
    await builder.tick();
    expect(listDatasetVersions(dataDir)).toHaveLength(1);
    upstream.set('/tor', {
      kind: 'file',
      body: TOR.toString().replace(/^ExitAddress 185\.241\.208\..*\n/gm, ''),
    });
    clock.advance(1);
    await builder.tick();
    expect(runtime.current()?.datasetVersion).toBe(2);
    expect(isTorExit(runtime)).toBe(false);
    // The reader swaps v2 in on its next tick, without downloading anything itself.
    const requests = upstream.requests.length;
    expect(other.current()?.datasetVersion).toBe(1);
    await reader.tick();
    expect(other.current()?.datasetVersion).toBe(2);
    expect(isTorExit(other)).toBe(false);
    expect(upstream.requests).toHaveLength(requests);
    expect(reader.counts()).toMatchObject({ ok: 0, failed: 0, skipped: 0 });
  }, 60_000);

  it('one updater per data dir: another holding the lock makes the run a counted skip', async () => {
    const release = acquireUpdateLock(dataDir, { now: Date.now() });
    expect(release).not.toBeNull();
    // The same process holds it: a second acquire fails until it is released.
    expect(acquireUpdateLock(dataDir, { now: Date.now() })).toBeNull();
    const u = updater();
    expect(await u.runOnce()).toEqual({ result: 'skipped', reason: 'another process holds the update lock' });
    expect(upstream.requests).toEqual([]);
    release?.();
    expect((await u.runOnce()).result).toBe('ok');
    expect(existsSync(path.join(datasetsDir(dataDir), '.update.lock'))).toBe(false);
    expect(u.counts()).toMatchObject({ ok: 1, skipped: 1 });
  }, 60_000);

  it('on its schedule, an update locked out by another process waits for the next check, not a busy loop', async () => {
    const release = acquireUpdateLock(dataDir, { now: Date.now() });
    const u = updater({ scheduled: true, checkIntervalMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(u.counts().skipped).toBe(1);
    expect(upstream.requests).toEqual([]);
    release?.();
  });

  it('a lock left by a process that is gone is taken over', () => {
    mkdirSync(datasetsDir(dataDir), { recursive: true });
    // pid 2^22 + 1 is above Linux's pid_max: no such process.
    const file = path.join(datasetsDir(dataDir), '.update.lock');
    writeFileSync(
      file,
      JSON.stringify({ host: hostname(), pid: 4_194_305, since: new Date().toISOString() }),
    );
    const release = acquireUpdateLock(dataDir, { now: Date.now() });
    expect(release).not.toBeNull();
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(process.pid);
    release?.();
  });
});

describe('first start and retries', () => {
  let upstream: UpstreamServer;
  let dataDir: string;
  let clock: ManualClock;
  let runtime: IntelRuntime;
  const updaters: DatasetUpdater[] = [];

  beforeEach(async () => {
    upstream = await startUpstreamServer();
    upstream.set('/tor', { kind: 'file', body: TOR });
    upstream.set('/drop', { kind: 'status', status: 500 });
    dataDir = tempDir('netrep-first-');
    clock = createManualClock('2026-06-01T00:00:00Z');
    runtime = createIntelRuntime({ dataDir, clock });
  });
  afterEach(async () => {
    for (const u of updaters.splice(0)) await u.stop();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sourcesFile = (urls: Record<string, string>) => {
    const file = path.join(dataDir, 'sources.json');
    writeFileSync(file, JSON.stringify(urls));
    return file;
  };
  function updater(file: string): DatasetUpdater {
    const u = startDatasetUpdater({
      dataDir,
      clock,
      intervalMs: 6 * HOUR,
      sourcesFile: file,
      builder: true,
      runtime,
      scheduled: false,
      npmDir: datasetFixture('npm-a'),
    });
    updaters.push(u);
    return u;
  }
  /** v1 from the npm packages only, as `serve` builds it on an empty data dir. */
  const npmOnly = async () => {
    await buildDataset({ dataDir, clock, npmDir: datasetFixture('npm-a') });
    expect(runtime.loadLatest()).toBe(true);
  };
  const isTorExit = () => runtime.current()?.lookup(parseIp(EXIT_IP)!)?.netrep.is_tor_exit;
  const MIN = 60_000;

  it('a snapshot from the npm packages only is due at once; the first update builds from the downloads that worked and retries the rest on a back-off', async () => {
    await npmOnly();
    const file = sourcesFile({
      'tor-exit-addresses': upstream.url('/tor'),
      'spamhaus-drop-text': upstream.url('/drop'),
    });
    const u = updater(file);
    expect(u.nextDueAt()).toBe(Number.NEGATIVE_INFINITY);
    expect(isTorExit()).toBe(false);

    const first = await u.runOnce();
    expect(first).toMatchObject({ result: 'partial', version: 2 });
    expect(runtime.current()?.datasetVersion).toBe(2);
    expect(isTorExit()).toBe(true);
    let status = readUpdateStatus(dataDir);
    expect(status).toMatchObject({
      last_attempt: { result: 'partial', version: 2, at: '2026-06-01T00:00:00.000Z' },
      consecutive_failures: 1,
      last_success_at: null,
      next_attempt_at: '2026-06-01T00:05:00.000Z',
      sources: {
        'tor-exit-addresses': { ok: true, error: null, failures: 0, last_ok_at: '2026-06-01T00:00:00.000Z' },
        'spamhaus-drop-text': { ok: false, error: 'HTTP 500', failures: 1, last_ok_at: null },
      },
    });
    // The snapshot now holds upstream data, yet the missing source is tried again in 5 minutes.
    expect(u.nextDueAt()).toBe(clock() + 5 * MIN);

    // Still failing: no build from an incomplete set any more, and the wait doubles.
    clock.advance(5 * MIN);
    expect(await u.runOnce()).toMatchObject({ result: 'failed', stage: 'download' });
    expect(listDatasetVersions(dataDir).map((v) => v.version)).toEqual([1, 2]);
    expect(u.nextDueAt()).toBe(clock() + 10 * MIN);
    status = readUpdateStatus(dataDir);
    expect(status.consecutive_failures).toBe(2);
    expect(status.sources['spamhaus-drop-text']).toMatchObject({ ok: false, failures: 2 });

    // The upstream is back: a full update, the back-off is over, the next one is due in 6 h.
    upstream.set('/drop', { kind: 'file', body: DROP });
    clock.advance(10 * MIN);
    expect(await u.runOnce()).toMatchObject({ result: 'ok', version: 3 });
    expect(u.counts()).toMatchObject({ ok: 1, partial: 1, failed: 1, consecutiveFailures: 0 });
    expect(u.nextDueAt()).toBe(clock() + 6 * HOUR);
    status = readUpdateStatus(dataDir);
    expect(status).toMatchObject({
      last_attempt: { result: 'ok', version: 3 },
      consecutive_failures: 0,
      last_success_at: '2026-06-01T00:15:00.000Z',
    });
    expect(status.sources['spamhaus-drop-text']).toMatchObject({ ok: true, failures: 0 });
  }, 60_000);

  it('a refusing upstream builds nothing, keeps serving, backs off 5, 10, 20 min and is picked up after a restart', async () => {
    await npmOnly();
    const closed = await startUpstreamServer();
    const refused = closed.url('/tor');
    await closed.close();
    const file = sourcesFile({ 'tor-exit-addresses': refused, 'spamhaus-drop-text': upstream.url('/drop') });
    const u = updater(file);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await u.runOnce();
      expect(r).toMatchObject({ result: 'failed', stage: 'download' });
      const due = u.nextDueAt() ?? 0;
      waits.push((due - clock()) / MIN);
      clock.advance(due - clock());
    }
    expect(waits).toEqual([5, 10, 20]);
    expect(listDatasetVersions(dataDir).map((v) => v.version)).toEqual([1]);
    expect(runtime.current()?.datasetVersion).toBe(1);
    const status = readUpdateStatus(dataDir);
    expect(status.consecutive_failures).toBe(3);
    expect(status.sources['tor-exit-addresses']).toMatchObject({
      ok: false,
      failures: 3,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(status.sources['spamhaus-drop-text']).toMatchObject({ ok: false, error: 'HTTP 500' });
    // A restarted process keeps the back-off instead of trying at once.
    await u.stop();
    const again = updater(file);
    expect(again.nextDueAt()).toBe(Date.parse(status.last_attempt?.at ?? '') + 20 * MIN);
  }, 60_000);

  it('with no upstream source configured, the npm-only snapshot an update built is not rebuilt on every check', async () => {
    await npmOnly();
    const u = updater(sourcesFile({}));
    expect(u.nextDueAt()).toBe(Number.NEGATIVE_INFINITY);
    expect(await u.runOnce()).toMatchObject({ result: 'ok', version: 2 });
    expect(u.nextDueAt()).toBe(clock() + 6 * HOUR);
  }, 60_000);
});
