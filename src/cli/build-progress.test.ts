import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../dataset/index.ts';
import { createBuildEta, createBuildProgress, formatEta } from './build-progress.ts';

/** The events buildDataset emits, in its order, for a build reading `ids` from --from. */
function events(ids: string[], history: boolean): ProgressEvent[] {
  return [
    { phase: 'read', message: 'reading sources' },
    ...ids.map((id) => ({ phase: 'read', message: `reading ${id}`, source: id })),
    { phase: 'read', message: 'asn: 10 rows, 0 rejected' },
    { phase: 'merge', message: 'merging IPv4' },
    { phase: 'merge', message: 'IPv4: 9 intervals; merging IPv6' },
    { phase: 'merge', message: 'IPv6: 9 intervals, 3 records' },
    { phase: 'write', message: 'writing v2' },
    ...(history ? [{ phase: 'history', message: 'comparing with v1' }] : []),
    { phase: 'done', message: 'dataset v2 written' },
  ];
}

describe('createBuildEta', () => {
  it('starts at 0, never falls, ends at 1, for builds with and without --from', () => {
    for (const [files, history] of [
      [[], false],
      [[{ id: 'rpki', bytes: 2_400_000, gzip: true }], true],
    ] as const) {
      const eta = createBuildEta({ files, hasPrevious: history });
      const shares = events(
        files.map((f) => f.id),
        history,
      ).map((e) => eta.observe(e));
      expect(shares[0]).toBe(0);
      expect(shares.at(-1)).toBe(1);
      for (let i = 1; i < shares.length; i++)
        expect(shares[i]).toBeGreaterThanOrEqual(shares[i - 1] as number);
      // Merge and write steps take most of a build: the read steps end well before half-way.
      expect(shares[files.length + 2]).toBeLessThan(0.5);
    }
  });

  it('weighs upstream files by size, a gzipped one by its inflated size', () => {
    const eta = createBuildEta({
      files: [
        { id: 'small', bytes: 10_000, gzip: false },
        { id: 'big', bytes: 3_000_000, gzip: false },
        { id: 'packed', bytes: 3_000_000, gzip: true },
      ],
      hasPrevious: false,
    });
    const [, small, big, packed, readEnd] = events(['small', 'big', 'packed'], false).map((e) =>
      eta.observe(e),
    );
    expect((big as number) - (small as number)).toBeLessThan(0.01);
    expect((readEnd as number) - (packed as number)).toBeGreaterThan(
      5 * ((packed as number) - (big as number)),
    );
  });

  it('extrapolates the time left from the share done, once there is enough to go on', () => {
    const eta = createBuildEta({ files: [], hasPrevious: false });
    eta.observe({ phase: 'read', message: 'reading sources' });
    expect(eta.remainingMs(5000)).toBeNull();
    const share = eta.observe({ phase: 'merge', message: 'merging IPv4' });
    expect(eta.remainingMs(4000)).toBeCloseTo((4000 * (1 - share)) / share);
    eta.observe({ phase: 'done', message: '' });
    expect(eta.remainingMs(9000)).toBe(0);
    expect([formatEta(null), formatEta(900), formatEta(59_000), formatEta(125_000)]).toEqual([
      '--',
      '1s',
      '59s',
      '2m05s',
    ]);
  });
});

describe('createBuildProgress', () => {
  it('writes one plain line per event when the stream is not a terminal', () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let out = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => {
      out += d.toString();
    });
    const progress = createBuildProgress(stream, { files: [], hasPrevious: false });
    for (const e of events(['tor-bulk-exit-list'], false)) progress.event(e);
    progress.stop();
    expect(out.split('\n')).toEqual([
      '[dataset] read: reading sources',
      '[dataset] read: reading tor-bulk-exit-list',
      '[dataset] read: asn: 10 rows, 0 rejected',
      '[dataset] merge: merging IPv4',
      '[dataset] merge: IPv4: 9 intervals; merging IPv6',
      '[dataset] merge: IPv6: 9 intervals, 3 records',
      '[dataset] write: writing v2',
      '[dataset] done: dataset v2 written',
      '',
    ]);
  });

  it('redraws one line with bar, share, ETA and step on a terminal', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
    let out = '';
    stream.on('data', (d: Buffer) => {
      out += d.toString();
    });
    let clock = 0;
    const progress = createBuildProgress(
      stream as unknown as NodeJS.WriteStream,
      { files: [{ id: 'tor-bulk-exit-list', bytes: 16_932, gzip: false }], hasPrevious: false },
      () => clock,
    );
    for (const e of events(['tor-bulk-exit-list'], false)) {
      clock += 2000;
      progress.event(e);
    }
    progress.stop();
    // Each redraw returns to column 1 and clears the rest: no newline until the bar stops.
    const draws = out.split('\x1b[1G').slice(1);
    expect(draws.length).toBeGreaterThanOrEqual(events(['x'], false).length);
    expect(out.slice(0, out.lastIndexOf('\x1b[1G'))).not.toContain('\n');
    expect(
      draws.some((d) => /^dataset \[=*-*\] \d+% ETA \d+s \| merge: IPv4: 9 intervals; merging IPv6/.test(d)),
    ).toBe(true);
    expect(draws.at(-1)).toMatch(/^dataset \[=+\] 100% ETA 0s \| done: dataset v2 written/);
  });
});
