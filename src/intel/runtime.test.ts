import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIntelRuntime } from './runtime.ts';

describe('intel runtime start', () => {
  it('removes the temp directory a killed build left, and keeps a live one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netrep-runtime-'));
    try {
      const root = path.join(dir, 'datasets');
      // A pid above Linux's pid_max (2^22) belongs to no process.
      const dead = path.join(root, '.tmp-v2-4194305');
      const live = path.join(root, `.tmp-v3-${process.pid}`);
      mkdirSync(dead, { recursive: true });
      mkdirSync(live);
      const logged: string[] = [];
      const runtime = createIntelRuntime({ dataDir: dir, log: (m) => logged.push(m) });
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(logged).toContain('removed .tmp-v2-4194305: a build that did not finish');
      expect(runtime.state()).toBe('empty');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
