/**
 * `netrep audit run` and `netrep audit show` on a SQLite store holding the run's shared fixture
 * snapshot, probing through a real DNS server on 127.0.0.1. Commands that end normally run in
 * process (test/helpers/cli.ts: the same commands, settings read from process.env, exit code from
 * process.exitCode); refusals, which exit the process, run through the real binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { runCliAsBinary } from '../../test/helpers/cli.ts';
import { seedDataset } from '../../test/helpers/datasets.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { runNetrepAsync } from '../../test/helpers/process.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { dnsblQueryName } from '../audit/index.ts';
import { EXIT_GATE_FAILED, jobBody, registerAuditCommands } from './audit.ts';

const OWN = 'bl.netrep.test';

describe('netrep audit', () => {
  let handle: TestStoreHandle;
  let t: TestApp;
  let dns: ZoneServer;
  let env: Record<string, string>;

  /** `netrep audit …` in process, answering as runNetrepAsync does. */
  const run = (args: string[]) => runCliAsBinary([registerAuditCommands], args);

  beforeAll(async () => {
    dns = await startZoneServer({
      [dnsblQueryName('127.0.0.2', OWN) as string]: [{ type: 'A', data: '127.0.0.2' }],
      [dnsblQueryName('127.0.0.2', 'other.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
      [dnsblQueryName('192.0.2.2', 'other.test') as string]: [{ type: 'A', data: '127.0.0.3' }],
    });
    handle = await createTestStore('sqlite');
    await seedDataset(handle.dataDir, 'fixture-a');
    t = await createTestApp('sqlite', { config: { workers: false }, handle });
    env = {
      NETREP_DATA_DIR: t.handle.dataDir,
      NETREP_DATABASE_URL: '',
      NETREP_DNS_SERVERS: dns.servers.join(','),
      NETREP_DNSBL_ZONE: OWN,
      NETREP_AUDIT_ZONES: 'other.test',
      NETREP_AUDIT_DNS_TIMEOUT_MS: '300',
    };
    // The in-process commands read the same settings (test/helpers/file-setup.ts puts the
    // environment back after the file).
    Object.assign(process.env, env);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await handle?.cleanup();
    await dns?.close();
  });

  it('runs a job here and prints the result as JSON, then shows it as a table', async () => {
    const r = await run([
      'audit',
      'run',
      '--cidr',
      '192.0.2.0/30',
      '--seed',
      'cli',
      '--acceptance',
      '--format',
      'json',
    ]);
    expect(r.stderr).not.toMatch(/Error/);
    const { data } = JSON.parse(r.stdout);
    expect(data.job.status).toBe('succeeded');
    expect(data.observations).toHaveLength(4 * 3);
    expect(data.job.final_interpretation.zones['other.test'].listed).toBe(1);
    expect(data.job.final_interpretation.acceptance.gate).toBe('fail');
    // The gate failed: a pipeline stops here (issue 31).
    expect(r.status).toBe(EXIT_GATE_FAILED);
    expect(r.stderr).toContain(`audit job ${data.job.id}: acceptance gate fail (`);

    const show = await run(['audit', 'show', String(data.job.id), '--format', 'table']);
    expect(show.status).toBe(EXIT_GATE_FAILED);
    expect(show.stdout).toContain(`job ${data.job.id}  succeeded`);
    expect(show.stdout).toMatch(/other\.test\s+1\s+3\s+0\s+0/);
    expect(show.stdout).toContain('gate: fail');
  });

  it('exits 0 when the gate does not fail, or when there is no gate', async () => {
    // 198.51.100.0/30 is listed nowhere in the zone server: the gate is pass or review.
    const clean = await run([
      'audit',
      'run',
      '--cidr',
      '198.51.100.0/30',
      '--seed',
      'clean',
      '--acceptance',
      '--format',
      'json',
    ]);
    const { data } = JSON.parse(clean.stdout);
    expect(data.job.status).toBe('succeeded');
    expect(['pass', 'review']).toContain(data.job.final_interpretation.acceptance.gate);
    expect(clean.status).toBe(0);
    const shown = await run(['audit', 'show', String(data.job.id), '--format', 'json']);
    expect(shown.status).toBe(0);
    // The listed range without --acceptance: no gate, nothing to fail.
    const ungated = await run([
      'audit',
      'run',
      '--cidr',
      '192.0.2.0/30',
      '--seed',
      'no-gate',
      '--format',
      'json',
    ]);
    expect(JSON.parse(ungated.stdout).data.job.final_interpretation.zones['other.test'].listed).toBe(1);
    expect(ungated.status).toBe(0);
  });

  it('refuses what the route refuses, with its code', async () => {
    // Four refusals that change nothing: the processes run side by side.
    const [bad, version, big, missing] = await Promise.all([
      runNetrepAsync(['audit', 'run', '--ip', '192.0.2.1', '--seed', 's', '--max-samples', '0'], env),
      runNetrepAsync(['audit', 'run', '--ip', '192.0.2.1', '--seed', 's', '--dataset-version', '99'], env),
      runNetrepAsync(['audit', 'run', '--cidr', '10.0.0.0/8', '--seed', 's'], env),
      runNetrepAsync(['audit', 'show', '424242'], env),
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('INVALID_BODY');
    expect(version.stderr).toContain('DATASET_VERSION_UNAVAILABLE');
    expect(big.stderr).toContain('POPULATION_TOO_LARGE');
    expect(missing.status).toBe(1);
  });
});

describe('jobBody', () => {
  it('carries only the options given, ASNs as numbers, limits as whole numbers', () => {
    const none = { target: [], ip: [], cidr: [], asn: [], seed: 's' };
    expect(jobBody(none, 4)).toEqual({ dataset_version: 4, seed: 's' });
    expect(
      jobBody(
        {
          ...none,
          target: ['192.0.2.0/30'],
          ip: ['192.0.2.9'],
          cidr: ['198.51.100.0/30'],
          asn: ['AS64500', 'x'],
          maxSamples: '16',
          maxPopulation: '1000',
          freshnessSeconds: '60',
          acceptance: true,
        },
        4,
      ),
    ).toEqual({
      targets: ['192.0.2.0/30'],
      ips: ['192.0.2.9'],
      cidrs: ['198.51.100.0/30'],
      asns: [64500, -1],
      dataset_version: 4,
      seed: 's',
      max_samples: 16,
      max_population: 1000,
      freshness_seconds: 60,
      acceptance: true,
    });
  });
});
