/**
 * package.json's `engines` is a promise to whoever installs netrep: every Node it accepts runs
 * every package the lock file installs. Checked here over the lock, as npm reads each package's
 * own `engines` (semver's range algebra, not ours): a dependency whose new major asks for a later
 * Node fails this test until package.json either holds it back (`overrides`, see the README) or
 * raises its own floor.
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/process.ts';

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
}

const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  engines: { node: string };
  overrides?: Record<string, string>;
};
const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** The Node range a locked package declares, if any (an old array form names no range). */
const nodeRange = (entry: LockEntry): string | null =>
  entry.engines && !Array.isArray(entry.engines) && entry.engines.node ? entry.engines.node : null;

describe('engines', () => {
  const ours = manifest.engines.node;

  it('declares a valid range that includes the Node running the tests', () => {
    expect(semver.validRange(ours)).not.toBeNull();
    expect(semver.satisfies(process.versions.node, ours)).toBe(true);
  });

  it('every package in the lock file accepts every Node that package.json accepts', () => {
    const refusing: string[] = [];
    let checked = 0;
    for (const [where, entry] of Object.entries(lock.packages)) {
      const theirs = nodeRange(entry);
      if (where === '' || theirs === null) continue;
      checked++;
      if (!semver.subset(ours, theirs)) refusing.push(`${where}@${entry.version} wants node ${theirs}`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(refusing).toEqual([]);
  });

  it('each override names a package the lock holds, at a version inside the override', () => {
    // An override npm did not apply (a copy nested under a plugin at another version), or one
    // naming a package no longer installed, shows here.
    for (const [name, range] of Object.entries(manifest.overrides ?? {})) {
      const held = Object.entries(lock.packages).filter(([where]) => where.endsWith(`node_modules/${name}`));
      expect(held.length, name).toBeGreaterThan(0);
      for (const [where, entry] of held)
        expect(semver.satisfies(entry.version ?? '', range), `${where}@${entry.version}`).toBe(true);
    }
  });
});
