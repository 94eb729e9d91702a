/** The dashboard's dataset section: families with their age, the npm-only warning, failed sources escaped. */
import { describe, expect, it } from 'vitest';
import type { DatasetStatus } from '../dataset/index.ts';
import { datasetSection } from './dataset-status.ts';

const base: DatasetStatus = {
  version: 3,
  built_at: '2026-11-27T12:00:00.000Z',
  age_seconds: 7300,
  upstream: true,
  summary: 'v3 holds 1 upstream source family (tor) and the bundled npm packages',
  families: [
    { family: 'bundled', sources: 6, rows: 2000, built_at: '2026-11-27T12:00:00.000Z', age_seconds: 7300 },
    { family: 'tor', sources: 1, rows: 1174, built_at: '2026-11-27T12:00:00.000Z', age_seconds: 7300 },
  ],
  update: {
    schedule: 'daily',
    last_attempt_at: '2026-11-27T14:00:00.000Z',
    last_result: 'failed',
    last_error: '1 of 2 downloads failed (aws)',
    last_success_at: '2026-11-27T12:00:00.000Z',
    consecutive_failures: 2,
    next_attempt_at: '2026-11-27T14:10:00.000Z',
  },
  sources: [
    {
      id: 'tor-exit-addresses',
      family: 'tor',
      in_snapshot: true,
      rows: 1174,
      attempted_at: '2026-11-27T14:00:00.000Z',
      ok: true,
      error: null,
      last_ok_at: '2026-11-27T14:00:00.000Z',
      failures: 0,
    },
    {
      id: 'aws',
      family: 'cloud',
      in_snapshot: false,
      rows: null,
      attempted_at: '2026-11-27T14:00:00.000Z',
      ok: false,
      error: 'HTTP 500 <b>',
      last_ok_at: null,
      failures: 2,
    },
  ],
};

describe('datasetSection', () => {
  it('lists the families with their age, the last update and each failed source with its error', () => {
    const html = datasetSection(base);
    expect(html).toContain('v3 holds 1 upstream source family (tor)');
    expect(html).toContain(
      '<td data-label="Source family">tor</td><td data-label="Files">1</td><td data-label="Rows">1174</td><td data-label="Age">2 h</td>',
    );
    expect(html).toContain(
      'Last dataset update 2026-11-27 14:00 UTC: <strong>failed</strong> (1 of 2 downloads failed (aws)); 2 failed in a row; next attempt 2026-11-27 14:10 UTC',
    );
    expect(html).toContain('<td data-label="Source">aws</td>');
    expect(html).toContain('HTTP 500 &lt;b&gt; (2 in a row)');
    expect(html).not.toContain('<td data-label="Source">tor-exit-addresses</td>');
    expect(html).not.toContain('class="error"');
  });

  it('names a snapshot built only from the npm packages as a warning', () => {
    const html = datasetSection({
      ...base,
      upstream: false,
      summary:
        'v1 is built only from the bundled npm packages (ASN, country, geolocation): no upstream source yet',
      families: [base.families[0] as DatasetStatus['families'][number]],
      update: {
        ...base.update,
        last_attempt_at: null,
        last_result: null,
        last_error: null,
        consecutive_failures: 0,
      },
      sources: [],
    });
    expect(html).toContain('<p class="error">v1 is built only from the bundled npm packages');
    expect(html).toContain('no update recorded yet, the next is due 2026-11-27 14:10 UTC');
    expect(html).not.toContain('dataset-failed-sources');
  });
});
