import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { buildDataset } from './build.ts';
import {
  listDatasetVersions,
  loadHistory,
  loadLatestSnapshot,
  loadSnapshot,
  NO_RECORD,
  sweepStaleBuilds,
} from './snapshot.ts';
import { UPSTREAM_SOURCES } from './sources.ts';
import { FLAG } from './types.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const clock = createManualClock('2026-06-01T00:00:00Z');
let dataDir: string;

function recordAtV4(dir: string, ip: number): number {
  const s = loadSnapshot(dir);
  let lo = 0;
  for (let i = 0; i < s.v4.size; i++) if ((s.v4.starts[i] as number) <= ip) lo = i;
  return s.v4.recs[lo] as number;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'netrep-build-'));
  await buildDataset({ dataDir, clock, npmDir: path.join(fixtures, 'npm-a') });
  clock.advance(10 * DAY_MS);
  await buildDataset({ dataDir, clock, npmDir: path.join(fixtures, 'npm-b') });
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('buildDataset', () => {
  it('writes increasing immutable versions and leaves no temp dirs', () => {
    const versions = listDatasetVersions(dataDir);
    expect(versions.map((v) => v.version)).toEqual([1, 2]);
    expect(readdirSync(path.join(dataDir, 'datasets')).sort()).toEqual(['v1', 'v2']);
    expect(loadLatestSnapshot(dataDir)?.version).toBe(2);
    expect(versions[1]?.createdAt).toBe('2026-06-11T00:00:00.000Z');
  });

  it('records the per-prefix change between consecutive versions', () => {
    const history = loadHistory(dataDir);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      from_version: 1,
      to_version: 2,
      changed_at: '2026-06-11T00:00:00.000Z',
    });
    expect(history[0]?.changes).toEqual([
      [4, String(0x64000000), String(0x6400ffff), 64500, 64501, 'Old Org', 'New Org', 'DE', 'FR'],
    ]);
  });

  it('stores ASN, organization and country facts per record', () => {
    const s = loadSnapshot(path.join(dataDir, 'datasets', 'v1'));
    const rec = recordAtV4(s.dir, 0x08080808);
    expect(rec).not.toBe(NO_RECORD);
    expect(s.records.asn[rec]).toBe(15169);
    expect(s.strings[s.records.org[rec] as number]).toBe('Google LLC');
    expect(s.asns.find((a) => a.asn === 15169)).toMatchObject({
      name: 'Google LLC',
      country: 'US',
      rir: 'ARIN',
    });
    expect(s.manifest.sources.map((x) => x.id)).toEqual([
      'asn',
      'asn',
      'geo-whois-asn-country',
      'geo-whois-asn-country',
      'asn-country',
      'asn-country',
    ]);
  });

  it('a failed build leaves no version behind', async () => {
    const bad = mkdtempSync(path.join(tmpdir(), 'netrep-build-bad-'));
    try {
      await expect(
        buildDataset({
          dataDir: bad,
          clock,
          npmDir: path.join(fixtures, 'npm-a'),
          from: sharedDataPath(),
          sources: [
            {
              id: 'broken',
              path: 'tor/exit-addresses',
              url: 'http://127.0.0.1/',
              kind: 'cloud',
              format: 'aws',
            },
          ],
        }),
      ).rejects.toThrow(/AWS ip-ranges.json/);
      expect(listDatasetVersions(bad)).toEqual([]);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});

describe('killed builds', () => {
  it('sweeps the temp directories of builds whose process is gone, and does so at every build', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netrep-build-sweep-'));
    try {
      const root = path.join(dir, 'datasets');
      mkdirSync(root, { recursive: true });
      // A pid above Linux's pid_max (2^22) belongs to no process.
      const dead = path.join(root, '.tmp-v3-4194305');
      const live = path.join(root, `.tmp-v4-${process.pid}`);
      mkdirSync(dead);
      writeFileSync(path.join(dead, 'tables.bin'), 'half a snapshot');
      mkdirSync(live);
      expect(sweepStaleBuilds(dir)).toEqual(['.tmp-v3-4194305']);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
      mkdirSync(dead);
      const lines: string[] = [];
      await buildDataset({
        dataDir: dir,
        clock,
        npmDir: path.join(fixtures, 'npm-a'),
        onProgress: (e) => lines.push(e.message),
      });
      expect(existsSync(dead)).toBe(false);
      expect(lines).toContain('removed .tmp-v3-4194305 (a killed build)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('snapshot format', () => {
  it('does not list a snapshot of an older format, and numbers the next build past it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netrep-build-format-'));
    try {
      const old = path.join(dir, 'datasets', 'v7');
      mkdirSync(old, { recursive: true });
      writeFileSync(path.join(old, 'manifest.json'), JSON.stringify({ format: 1, version: 7, sources: [] }));
      expect(listDatasetVersions(dir)).toEqual([]);
      const built = await buildDataset({ dataDir: dir, clock, npmDir: path.join(fixtures, 'npm-a') });
      expect(built.version).toBe(8);
      expect(listDatasetVersions(dir).map((v) => v.version)).toEqual([8]);
      expect(() => loadSnapshot(old)).toThrow(/format 1, this netrep reads format 2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('buildDataset --from shared data', () => {
  it('flags Tor exits, DROP, UCE and crawler ranges from upstream files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netrep-build-from-'));
    try {
      const ids = new Set([
        'tor-exit-addresses',
        'tor-bulk-exit-list',
        'spamhaus-drop',
        'uceprotect-level1',
        'openai-gptbot',
        'rir-afrinic',
      ]);
      const { snapshot: s } = await buildDataset({
        dataDir: dir,
        clock,
        npmDir: path.join(fixtures, 'npm-a'),
        from: sharedDataPath(),
        sources: UPSTREAM_SOURCES.filter((x) => ids.has(x.id)),
      });
      expect(s.manifest.sources.map((x) => x.id)).toEqual(expect.arrayContaining([...ids]));
      const tor = recordAtV4(s.dir, 185 * 2 ** 24 + 241 * 65536 + 208 * 256 + 232);
      expect((s.records.flags[tor] as number) & FLAG.TOR_EXIT).toBe(FLAG.TOR_EXIT);
      expect(s.records.asn[tor]).toBe(200651);
      const drop = recordAtV4(s.dir, 1 * 2 ** 24 + 10 * 65536 + 16 * 256 + 1);
      expect((s.records.flags[drop] as number) & FLAG.DROP).toBe(FLAG.DROP);
      expect(existsSync(path.join(s.dir, 'history.json'))).toBe(false);
      // Provenance: the files that set each bit, the file behind a crawler label.
      const torProv = s.provenance[s.records.prov[tor] as number];
      expect(torProv?.flags).toContainEqual([FLAG.TOR_EXIT, ['tor-bulk-exit-list', 'tor-exit-addresses']]);
      expect(s.provenance[s.records.prov[drop] as number]?.flags).toContainEqual([
        FLAG.DROP,
        ['spamhaus-drop'],
      ]);
      const gpt = recordAtV4(s.dir, 132 * 2 ** 24 + 196 * 65536 + 86 * 256 + 1); // 132.196.86.0/24 (gptbot.json)
      expect(s.strings[s.records.ai[gpt] as number]).toBe('OpenAI');
      expect(s.provenance[s.records.prov[gpt] as number]).toMatchObject({
        ai: 'openai-gptbot',
        net: 'openai-gptbot',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
