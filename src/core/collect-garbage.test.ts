import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canCollectGarbage, collectGarbage } from './collect-garbage.ts';

const MODULE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'collect-garbage.ts');

/** Runs a script importing this module in a fresh Node with the given flags; prints JSON. */
function inChild(flags: string[]): { can: boolean; did: boolean; exposedAfter: boolean } {
  const script = `
    const m = await import(${JSON.stringify(MODULE)});
    const can = m.canCollectGarbage();
    const did = m.collectGarbage();
    console.log(JSON.stringify({ can, did, exposedAfter: typeof globalThis.gc === 'function' }));`;
  const res = spawnSync(
    process.execPath,
    [...flags, '--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout.trim()) as { can: boolean; did: boolean; exposedAfter: boolean };
}

describe('collectGarbage', () => {
  it('collects garbage (a full GC), again and again, in a process started with --expose-gc', () => {
    // vitest.config.ts starts the test processes with --expose-gc, as `npm start` starts serve.
    expect(canCollectGarbage()).toBe(true);
    let garbage: number[][] | null = Array.from({ length: 200 }, () => new Array<number>(50_000).fill(1.5));
    const before = process.memoryUsage().heapUsed;
    garbage = null;
    expect(collectGarbage()).toBe(true);
    const after = process.memoryUsage().heapUsed;
    expect(garbage).toBeNull();
    // 200 arrays of 50,000 doubles: about 80 MB gone.
    expect(before - after).toBeGreaterThan(40e6);
    expect(collectGarbage()).toBe(true);
  });

  it('does nothing, and sets no V8 flag, in a process started without it', () => {
    expect(inChild([])).toEqual({ can: false, did: false, exposedAfter: false });
    expect(inChild(['--expose-gc'])).toEqual({ can: true, did: true, exposedAfter: true });
  });
});
