/** The route list is complete: every route file in this folder is registered through index.ts. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROUTE_MODULES } from './index.ts';

const DIR = path.dirname(fileURLToPath(import.meta.url));

describe('routes/index.ts', () => {
  it('lists each route file once, and nothing else', async () => {
    const files = fs
      .readdirSync(DIR)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts')
      .sort();
    const exported: unknown[] = [];
    for (const file of files) {
      const mod = (await import(path.join(DIR, file))) as Record<string, unknown>;
      const routes = Object.entries(mod).filter(
        ([name, v]) => name.endsWith('Routes') && typeof v === 'function',
      );
      expect(
        routes.map(([name]) => name),
        file,
      ).toHaveLength(1);
      exported.push(routes[0]?.[1]);
    }
    expect(new Set(ROUTE_MODULES)).toEqual(new Set(exported));
    expect(ROUTE_MODULES).toHaveLength(files.length);
  });
});
