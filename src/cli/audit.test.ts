/**
 * `netrep audit run` and `netrep audit show` (the real binary) on a SQLite store with a built
 * dataset, probing through a real DNS server on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { runNetrepAsync } from '../../test/helpers/process.ts';
import { dnsblQueryName } from '../audit/index.ts';
import { EXIT_GATE_FAILED, jobBody } from './audit.ts';

const OWN = 'bl.netrep.test';

describe('netrep audit', () => {
  let t: IntelTestApp;
  let dns: ZoneServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    dns = await startZoneServer({
      [dnsblQueryName('127.0.0.2', OWN) as string]: [{ type: 'A', data: '127.0.0.2' }],
      [dnsblQueryName('127.0.0.2', 'other.test') as string]: [{ type: 'A', data: '127.0.0.2' }],
      [dnsblQueryName('192.0.2.2', 'other.test') as string]: [{ type: 'A', data: '127.0.0.3' }],
    });
    t = await createIntelTestApp('sqlite', { config: { workers: false } });
    env = {
      NETREP_DATA_DIR: t.handle.dataDir,
      NETREP_DATABASE_URL: '',
      NETREP_DNS_SERVERS: dns.servers.join(','),
      NETREP_DNSBL_ZONE: OWN,
      NETREP_AUDIT_ZONES: 'other.test',
      NETREP_AUDIT_DNS_TIMEOUT_MS: '300',
    };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('runs a job here and prints the result as JSON, then shows it as a table', async () => {
    const r = await runNetrepAsync(
      ['audit', 'run', '--cidr', '192.0.2.0/30', '--seed', 'cli', '--acceptance', '--format', 'json'],
      env,
    );
    expect(r.stderr).not.toMatch(/Error/);
    const { data } = JSON.parse(r.stdout);
    expect(data.job.status).toBe('succeeded');
    expect(data.observations).toHaveLength(4 * 3);
    expect(data.job.final_interpretation.zones['other.test'].listed).toBe(1);
    expect(data.job.final_interpretation.acceptance.gate).toBe('fail');
    // The gate failed: a pipeline stops here (issue 31).
    expect(r.status).toBe(EXIT_GATE_FAILED);
    expect(r.stderr).toContain(`audit job ${data.job.id}: acceptance gate fail (`);

    const show = await runNetrepAsync(['audit', 'show', String(data.job.id), '--format', 'table'], env);
    expect(show.status).toBe(EXIT_GATE_FAILED);
    expect(show.stdout).toContain(`job ${data.job.id}  succeeded`);
    expect(show.stdout).toMatch(/other\.test\s+1\s+3\s+0\s+0/);
    expect(show.stdout).toContain('gate: fail');
  });

  it('exits 0 when the gate does not fail, or when there is no gate', async () => {
    // 198.51.100.0/30 is listed nowhere in the zone server: the gate is pass or review.
    const clean = await runNetrepAsync(
      ['audit', 'run', '--cidr', '198.51.100.0/30', '--seed', 'clean', '--acceptance', '--format', 'json'],
      env,
    );
    const { data } = JSON.parse(clean.stdout);
    expect(data.job.status).toBe('succeeded');
    expect(['pass', 'review']).toContain(data.job.final_interpretation.acceptance.gate);
    expect(clean.status).toBe(0);
    const shown = await runNetrepAsync(['audit', 'show', String(data.job.id), '--format', 'json'], env);
    expect(shown.status).toBe(0);
    // The listed range without --acceptance: no gate, nothing to fail.
    const ungated = await runNetrepAsync(
      ['audit', 'run', '--cidr', '192.0.2.0/30', '--seed', 'no-gate', '--format', 'json'],
      env,
    );
    expect(JSON.parse(ungated.stdout).data.job.final_interpretation.zones['other.test'].listed).toBe(1);
    expect(ungated.status).toBe(0);
  });

  it('refuses what the route refuses, with its code', async () => {
    const bad = await runNetrepAsync(
      ['audit', 'run', '--ip', '192.0.2.1', '--seed', 's', '--max-samples', '0'],
      env,
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('INVALID_BODY');
    const version = await runNetrepAsync(
      ['audit', 'run', '--ip', '192.0.2.1', '--seed', 's', '--dataset-version', '99'],
      env,
    );
    expect(version.stderr).toContain('DATASET_VERSION_UNAVAILABLE');
    const big = await runNetrepAsync(['audit', 'run', '--cidr', '10.0.0.0/8', '--seed', 's'], env);
    expect(big.stderr).toContain('POPULATION_TOO_LARGE');
    const missing = await runNetrepAsync(['audit', 'show', '424242'], env);
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
