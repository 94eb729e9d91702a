import { describe, expect, it } from 'vitest';
import type { DatasetStatus } from '../dataset/index.ts';
import { serveBanner } from './serve.ts';

const status: DatasetStatus = {
  version: 3,
  built_at: '2026-11-27T10:00:00Z',
  age_seconds: 60,
  upstream: false,
  summary: 'v3 holds the bundled npm packages only',
  families: [{ family: 'bundled', sources: 2, rows: 10, built_at: '2026-11-27T10:00:00Z', age_seconds: 60 }],
  update: {
    schedule: 'daily',
    last_attempt_at: '2026-11-27T09:00:00Z',
    last_result: 'failed',
    last_error: 'no network',
    last_success_at: null,
    consecutive_failures: 1,
    next_attempt_at: null,
  },
  sources: [
    {
      id: 'tor/exits.txt',
      family: 'tor',
      in_snapshot: false,
      rows: null,
      attempted_at: '2026-11-27T09:00:00Z',
      ok: false,
      error: 'HTTP 503',
      last_ok_at: null,
      failures: 1,
    },
  ],
};

// serveBanner reads the store's dialect and location only; the rest of the app is not needed.
const app = (version: number | null) =>
  ({
    store: { dialect: 'sqlite', location: '/var/lib/netrep/netrep.db' },
    metricsUrl: null,
    dnsbl: null,
    dnsblError: null,
    services: {
      datasetVersion: () => version,
      datasetStatus: () => status,
      intel: { failure: () => 'ipv4.bin missing' },
    },
  }) as unknown as Parameters<typeof serveBanner>[0];

const config = { datasetUpdate: 'daily', workers: true, dnsblZone: 'bl.example', adminPassword: '' };
const noStart = { progress: null, text: null };

describe('serveBanner', () => {
  it('says what the serving dataset holds, its updates and the failed downloads', () => {
    const facts = serveBanner(app(3), config, 'http://127.0.0.1:8080', null, noStart);
    expect(facts.map((f) => f.text)).toEqual([
      'netrep sqlite store: /var/lib/netrep/netrep.db',
      'netrep listening on http://127.0.0.1:8080 (dashboard: http://127.0.0.1:8080/dashboard, docs: http://127.0.0.1:8080/docs)',
      'netrep dataset v3 holds the bundled npm packages only; the first dataset update runs now',
      'netrep dataset families (age): bundled 60 s',
      'netrep dataset update: daily, built here; last attempt 2026-11-27T09:00:00Z failed (no network); 1 failed attempt in a row',
      'netrep dataset: the last download failed for tor/exits.txt (HTTP 503)',
    ]);
    expect(facts[4]?.fields).toEqual({
      dataset_update: 'daily',
      builds_here: true,
      last_result: 'failed',
      failed_sources: ['tor/exits.txt'],
    });
  });

  it('says why no dataset serves and how to bring one, and leaves updates out when they are off', () => {
    const facts = serveBanner(app(null), { ...config, datasetUpdate: 'off' }, 'http://x', null, noStart);
    expect(facts.slice(2).map((f) => f.text)).toEqual([
      'netrep dataset: none is serving (ipv4.bin missing); the IP and ASN routes answer 503 NOT_READY until `netrep dataset build` and POST /v1/admin/datasets/reload bring one',
      'netrep dataset: the last download failed for tor/exits.txt (HTTP 503)',
    ]);
  });
});
