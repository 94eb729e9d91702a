/**
 * Snapshots that prove themselves (#32 item 2): the manifest's file sizes and SHA-256 written at
 * build, and what every load refuses, on a snapshot built from the fixture packages.
 */
import { cpSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFixture } from '../../test/helpers/intel-app.ts';
import { tempDir } from '../../test/helpers/stores.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from './build.ts';
import {
  datasetsDir,
  loadLatestSnapshot,
  loadSnapshot,
  loadSnapshotAsync,
  type RefusedSnapshot,
  SnapshotError,
  verifySnapshot,
} from './snapshot.ts';
import type { Manifest } from './types.ts';

describe('snapshot checks', () => {
  const dataDir = tempDir('netrep-snapcheck-');
  let v1 = '';
  let work = '';
  beforeAll(async () => {
    v1 = (await buildDataset({ dataDir, clock: systemClock, npmDir: datasetFixture('npm-a') })).dir;
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** A fresh copy of v1 as v2, optionally edited. */
  const copy = (edit: (dir: string, manifest: Manifest) => void = () => undefined): string => {
    work = path.join(datasetsDir(dataDir), 'v2');
    rmSync(work, { recursive: true, force: true });
    cpSync(v1, work, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(work, 'manifest.json'), 'utf8')) as Manifest;
    manifest.version = 2;
    edit(work, manifest);
    writeFileSync(path.join(work, 'manifest.json'), JSON.stringify(manifest));
    return work;
  };
  const reasonOf = (dir: string): string => {
    try {
      loadSnapshot(dir);
    } catch (err) {
      expect(err).toBeInstanceOf(SnapshotError);
      return (err as SnapshotError).reason;
    }
    return 'loaded';
  };

  it('lists every file but the manifest with its size and SHA-256; sync and async loads agree', async () => {
    const m = loadSnapshot(v1).manifest;
    expect(Object.keys(m.files ?? {}).sort()).toEqual(
      ['asns.json', 'provenance.json', 'strings.json', 'tables.bin'].sort(),
    );
    const a = loadSnapshot(v1);
    const b = await loadSnapshotAsync(v1);
    expect(isDeepStrictEqual(a.asns, b.asns) && isDeepStrictEqual(a.strings, b.strings)).toBe(true);
    expect(isDeepStrictEqual(a.provenance, b.provenance)).toBe(true);
    expect(verifySnapshot(v1)).toMatchObject({ version: 1, verified: true, problem: null });
  });

  it('refuses a truncated, missing or altered file, naming it', async () => {
    const size = readFileSync(path.join(v1, 'tables.bin')).byteLength;
    copy((dir) => truncateSync(path.join(dir, 'tables.bin'), 64));
    expect(reasonOf(work)).toBe(`tables.bin is 64 bytes, the manifest says ${size}`);
    copy((dir) => rmSync(path.join(dir, 'strings.json')));
    expect(reasonOf(work)).toBe('strings.json is missing');
    copy((dir) => {
      const f = path.join(dir, 'asns.json');
      const text = readFileSync(f);
      text[5] = text[5] === 0x30 ? 0x31 : 0x30;
      writeFileSync(f, text);
    });
    expect(reasonOf(work)).toBe('asns.json does not match its SHA-256 in the manifest');
    await expect(loadSnapshotAsync(work)).rejects.toThrow(/dataset v2 is broken: asns.json does not match/);
    expect(verifySnapshot(work)).toMatchObject({ version: 2, verified: false, problem: expect.any(String) });
  });

  it('without hashes (a snapshot built before them): sizes, sections, JSON and indexes are still checked', async () => {
    const legacy = (edit: (dir: string, m: Manifest) => void) =>
      copy((dir, m) => {
        delete m.files;
        edit(dir, m);
      });
    legacy(() => undefined);
    expect(verifySnapshot(work)).toMatchObject({ verified: false, problem: null });
    legacy((dir) => writeFileSync(path.join(dir, 'asns.json'), '[{"asn":1},]'));
    expect(reasonOf(work)).toMatch(/^asns\.json does not parse/);
    await expect(loadSnapshotAsync(work)).rejects.toThrow(/asns\.json does not parse/);
    legacy((_dir, m) => {
      const s = m.sections.find((x) => x.name === 'v4.recs');
      if (s) s.length = 2 ** 40;
    });
    expect(reasonOf(work)).toMatch(/^tables\.bin is \d+ bytes, its sections take \d+/);
    // Random bytes over the record ids of the intervals: an index past the records is refused.
    legacy((dir, m) => {
      const s = m.sections.find((x) => x.name === 'v4.recs');
      const f = path.join(dir, 'tables.bin');
      const bin = readFileSync(f);
      if (s) bin.fill(0x7f, s.offset, s.offset + s.length * 4);
      writeFileSync(f, bin);
    });
    expect(reasonOf(work)).toMatch(/^v4\.recs\[0\] = 2139062143 is past the \d+ records$/);
  });

  it('the newest intact snapshot loads and broken newer ones are reported', () => {
    copy((dir) => rmSync(path.join(dir, 'tables.bin')));
    const refused: RefusedSnapshot[] = [];
    expect(loadLatestSnapshot(dataDir, (r) => refused.push(r))?.version).toBe(1);
    expect(refused).toEqual([{ version: 2, reason: 'tables.bin is missing' }]);
  });

  it('parses JSON lists over 256 KB in slices exactly as JSON.parse does', async () => {
    const names = Array.from({ length: 60_000 }, (_, i) => `name, "quoted" ],{ ${i} \u00e9\u4e2d`);
    copy((dir, m) => {
      delete m.files;
      writeFileSync(path.join(dir, 'strings.json'), JSON.stringify(names));
    });
    expect((await loadSnapshotAsync(work)).strings).toEqual(names);
    copy((dir, m) => {
      delete m.files;
      writeFileSync(path.join(dir, 'strings.json'), `${JSON.stringify(names).slice(0, -1)},]`);
    });
    await expect(loadSnapshotAsync(work)).rejects.toThrow(/strings\.json does not parse/);
  });
});
