import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { FromDirError, scanFromDir } from './from-dir.ts';
import { UPSTREAM_SOURCES } from './sources.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-from-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function put(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
}

function failure(target: string): string {
  try {
    scanFromDir(target);
  } catch (err) {
    expect(err).toBeInstanceOf(FromDirError);
    return (err as Error).message;
  }
  throw new Error(`scanFromDir(${target}) did not throw`);
}

describe('scanFromDir refuses what cannot be built from', () => {
  it('a missing directory, a file, an empty directory, an empty path', () => {
    expect(failure(path.join(dir, 'nope'))).toBe(
      `cannot build from ${path.join(dir, 'nope')}: no such directory`,
    );
    put('a.txt', 'x');
    expect(failure(path.join(dir, 'a.txt'))).toMatch(/: it is a file, not a directory$/);
    mkdirSync(path.join(dir, 'empty', 'sub'), { recursive: true });
    // Empty subdirectories hold no file either.
    expect(failure(path.join(dir, 'empty'))).toBe(
      `cannot build from ${path.join(dir, 'empty')}: the directory is empty`,
    );
    expect(failure('')).toMatch(/empty path/);
  });

  it('a directory with files of which none is recognised, with a hint for a misplaced one', () => {
    put('notes.md', '# notes');
    put('cloud/foo/bar.json', '{}');
    expect(failure(dir)).toMatch(
      /none of its 2 files is a recognised upstream file \(expected paths such as/,
    );
    // The tor/ folder itself passed instead of its parent.
    put('torbulkexitlist.txt', '192.0.2.1\n');
    expect(failure(dir)).toMatch(
      /found torbulkexitlist\.txt, but tor-bulk-exit-list is read from tor\/torbulkexitlist\.txt relative/,
    );
  });
});

describe('scanFromDir sorts files into recognised and unrecognised', () => {
  it('names each recognised file with its source, lists every other file', () => {
    put('tor/torbulkexitlist.txt', '192.0.2.1\n192.0.2.2\n');
    put('spamhaus/drop.txt', '192.0.2.0/24 ; SBL1\n');
    put('SOURCES.md', '# sources\n');
    put('cloud/foo/bar.json', '{}');
    put('tor/torbulkexitlist.txt.download', 'partial');
    const scan = scanFromDir(dir);
    expect(scan.recognised.map((r) => [r.path, r.spec.id, r.bytes])).toEqual([
      ['tor/torbulkexitlist.txt', 'tor-bulk-exit-list', 20],
      ['spamhaus/drop.txt', 'spamhaus-drop-text', 20],
    ]);
    expect(scan.unrecognised).toEqual([
      'SOURCES.md',
      'cloud/foo/bar.json',
      'tor/torbulkexitlist.txt.download',
    ]);
  });

  it('follows a symlinked directory once, so a loop ends', () => {
    put('tor/torbulkexitlist.txt', '192.0.2.1\n');
    symlinkSync(dir, path.join(dir, 'tor', 'loop'));
    const scan = scanFromDir(dir);
    expect(scan.recognised.map((r) => r.spec.id)).toEqual(['tor-bulk-exit-list']);
    expect(scan.unrecognised).toEqual([]);
  });

  it('on the real shared/data: every source file present is recognised, every other file is listed', () => {
    const root = sharedDataPath();
    const scan = scanFromDir(root);
    const present = UPSTREAM_SOURCES.filter((s) => existsSync(path.join(root, s.path)));
    expect(scan.recognised.map((r) => r.spec.id)).toEqual(present.map((s) => s.id));
    for (const r of scan.recognised) expect(r.bytes).toBe(statSync(path.join(root, r.path)).size);
    const all = (readdirSync(root, { recursive: true }) as string[])
      .map((p) => p.split(path.sep).join('/'))
      .filter((p) => statSync(path.join(root, p)).isFile());
    expect(scan.recognised.length + scan.unrecognised.length).toBe(all.length);
    expect(new Set([...scan.recognised.map((r) => r.path), ...scan.unrecognised])).toEqual(new Set(all));
    expect(scan.unrecognised).toContain('SOURCES.md');
    expect(scan.unrecognised).toContain('spamhaus/edrop-2024-10-18-merged-notice.txt');
  });
});
