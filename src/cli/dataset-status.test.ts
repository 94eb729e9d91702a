import { describe, expect, it } from 'vitest';
import type { DatasetStatus } from '../dataset/index.ts';
import { formatAge, formatDatasetStatus, lastDownloadCell } from './dataset-status.ts';

const source = (over: Partial<DatasetStatus['sources'][number]>): DatasetStatus['sources'][number] => ({
  id: 'tor/exits.txt',
  family: 'tor',
  in_snapshot: true,
  rows: 12,
  attempted_at: '2026-11-27T10:00:00Z',
  ok: true,
  error: null,
  last_ok_at: '2026-11-27T10:00:00Z',
  failures: 0,
  ...over,
});

const status: DatasetStatus = {
  version: 7,
  built_at: '2026-11-27T10:00:00Z',
  age_seconds: 7200,
  upstream: true,
  summary: 'Built from 2 sources.',
  verified: false,
  refused: [{ version: 8, reason: 'ipv4.bin: size differs' }],
  families: [
    { family: 'bundled', sources: 1, rows: 1000, built_at: '2026-11-27T10:00:00Z', age_seconds: 7200 },
    { family: 'tor', sources: 1, rows: 12, built_at: '2026-11-26T10:00:00Z', age_seconds: 93_600 },
  ],
  update: {
    schedule: 'daily',
    last_attempt_at: '2026-11-27T10:00:00Z',
    last_result: 'ok',
    last_error: null,
    last_success_at: '2026-11-27T10:00:00Z',
    consecutive_failures: 0,
    next_attempt_at: '2026-11-28T10:00:00Z',
  },
  sources: [
    source({}),
    source({ id: 'cloud/aws.json', family: 'cloud', in_snapshot: false, rows: null, ok: null }),
  ],
};

describe('formatDatasetStatus', () => {
  it('prints refusals, the snapshot with its families, the update line and the sources', () => {
    expect(formatDatasetStatus(status)).toBe(
      [
        'dataset v8 refused: ipv4.bin: size differs',
        'dataset v7, built 2026-11-27T10:00:00Z (2 h ago)',
        'Built from 2 sources.',
        'unverified: built before file hashes (2026-11-27); sizes checked only',
        '',
        'family   sources  rows  age',
        'bundled  1        1000  2 h',
        'tor      1        12    26 h',
        '',
        'update: daily; last attempt 2026-11-27T10:00:00Z ok; last full update 2026-11-27T10:00:00Z; next attempt 2026-11-28T10:00:00Z',
        '',
        'source          family  in snapshot    last download',
        'tor/exits.txt   tor     yes (12 rows)  ok 2026-11-27T10:00:00Z',
        'cloud/aws.json  cloud   no             not downloaded',
        '',
      ].join('\n'),
    );
  });

  it('says how to get a snapshot when there is none', () => {
    const none = { ...status, version: null, refused: [], sources: [] };
    expect(formatDatasetStatus(none).split('\n')[0]).toBe(
      'no dataset snapshot yet; run `netrep dataset build` or `netrep dataset update`',
    );
  });
});

describe('lastDownloadCell', () => {
  it('says never, ok when, or failed when and why, counting failures in a row past one', () => {
    expect(lastDownloadCell(source({ ok: null }))).toBe('not downloaded');
    expect(lastDownloadCell(source({}))).toBe('ok 2026-11-27T10:00:00Z');
    expect(lastDownloadCell(source({ ok: false, error: 'HTTP 503', failures: 1 }))).toBe(
      'failed 2026-11-27T10:00:00Z: HTTP 503',
    );
    expect(lastDownloadCell(source({ ok: false, error: 'HTTP 503', failures: 3 }))).toBe(
      'failed 2026-11-27T10:00:00Z: HTTP 503 (3 in a row)',
    );
  });
});

describe('formatAge', () => {
  it('uses the largest whole unit', () => {
    expect([40, 600, 18_000, 259_200].map(formatAge)).toEqual(['40 s', '10 min', '5 h', '3 d']);
  });
});
