import { afterAll, describe, expect, it } from 'vitest';
import { caddyNetworks } from '../../../test/helpers/feeds-parse.ts';
import {
  encodeToString,
  feedContext,
  realCanonicalRows,
  runTool,
  tempDir,
  writeText,
} from '../../../test/helpers/feeds-tools.ts';
import { FEED_NAMES } from '../types.ts';

const tmp = tempDir('caddy');
afterAll(tmp.cleanup);

interface Adapted {
  apps: { http: { servers: Record<string, { routes: unknown[] }> } };
}

/** `caddy adapt` on a Caddyfile whose site block imports the snippet; returns the JSON config. */
function caddyAdapt(snippets: string[]): { status: number | null; stderr: string; json: string } {
  const caddyfile = writeText(
    tmp.dir,
    'Caddyfile',
    `http://localhost:18081 {\n${snippets.map((s) => `\timport ${s}\n`).join('')}\trespond "ok"\n}\n`,
  );
  // --validate provisions every module, so a bad range fails here and not only at `caddy run`;
  // XDG dirs keep caddy's storage inside the test's temp dir.
  const r = runTool('caddy', ['adapt', '--config', caddyfile, '--adapter', 'caddyfile', '--validate'], {
    env: { XDG_DATA_HOME: tmp.dir, XDG_CONFIG_HOME: tmp.dir, HOME: tmp.dir },
  });
  return { status: r.status, stderr: r.stderr, json: r.stdout };
}

/** Every remote_ip range and every static 403 in the adapted config. */
function adaptedRanges(json: string): { ranges: string[]; forbidden: number } {
  const ranges: string[] = [];
  let forbidden = 0;
  JSON.parse(json, (key, value: unknown) => {
    if (key === 'remote_ip') ranges.push(...(value as { ranges: string[] }).ranges);
    if (key === 'status_code' && value === 403) forbidden++;
    return value;
  });
  return { ranges, forbidden };
}

describe('caddy encoder', () => {
  it.each(FEED_NAMES)(
    'caddy adapt accepts the real %s feed and matches exactly its networks',
    async (feed) => {
      const rows = await realCanonicalRows(feed);
      const text = await encodeToString('caddy', rows, feedContext(feed));
      const r = caddyAdapt([writeText(tmp.dir, `${feed}.caddy`, text)]);
      expect(r.status, r.stderr).toBe(0);
      const adapted = adaptedRanges(r.json);
      expect(adapted.forbidden).toBe(1);
      expect(adapted.ranges).toEqual(rows.map((c) => c.row.network));
      expect(caddyNetworks(text)).toEqual(rows.map((c) => `${c.address}/${c.prefixLength}`));
      expect((JSON.parse(r.json) as Adapted).apps.http.servers).toBeTruthy();
    },
  );

  it('two feeds imported into one site do not collide (matcher names differ)', async () => {
    const files = [];
    for (const feed of ['tor_exits', 'ai_crawlers'] as const) {
      const text = await encodeToString('caddy', await realCanonicalRows(feed), feedContext(feed));
      files.push(writeText(tmp.dir, `${feed}.caddy`, text));
    }
    const r = caddyAdapt(files);
    expect(r.status, r.stderr).toBe(0);
    expect(adaptedRanges(r.json).forbidden).toBe(2);
  });

  it('the caddy check is real: a bad range fails adapt; an empty feed adapts', async () => {
    const bad = writeText(tmp.dir, 'bad.caddy', '@x {\n\tremote_ip 10.0.0.0/33\n}\nrespond @x 403\n');
    expect(caddyAdapt([bad]).status).not.toBe(0);
    const empty = await encodeToString('caddy', [], feedContext('tor_exits'));
    const r = caddyAdapt([writeText(tmp.dir, 'empty.caddy', empty)]);
    expect(r.status, r.stderr).toBe(0);
    expect(adaptedRanges(r.json)).toEqual({ ranges: [], forbidden: 0 });
  });
});
