import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFeedsDataset,
  FIXTURE_ASN_DROP,
  UCE3_FILE,
  UCE3_LINES,
  writeFeedsFixture,
} from '../../test/helpers/feeds-pipeline.ts';
import { repoPath, sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { buildDataset } from './build.ts';
import { type DatasetFeed, type DatasetFeedRow, hasFeedRows, readFeedRows } from './feed-rows.ts';
import {
  parseGoogleStyleRanges,
  parsePlainList,
  parseSpysProxyList,
  parseTorExitAddresses,
  rangeToCidrs,
} from './importers/index.ts';

const root = mkdtempSync(path.join(tmpdir(), 'netrep-feed-rows-'));
const from = path.join(root, 'from');
const dataDir = path.join(root, 'data');
const clock = createManualClock('2026-06-01T00:00:00Z');
let v1 = '';
let v2 = '';

async function rows(dir: string, feed: DatasetFeed): Promise<DatasetFeedRow[]> {
  const out: DatasetFeedRow[] = [];
  for await (const r of readFeedRows(dir, feed)) out.push(r);
  return out;
}

const byNetwork = (list: DatasetFeedRow[]) => new Map(list.map((r) => [r.network, r]));

beforeAll(async () => {
  mkdirSync(from);
  writeFeedsFixture(from);
  v1 = (await buildFeedsDataset(dataDir, from, clock)).dir;
  clock.advance(10 * DAY_MS);
  // The next upstream day: one more Tor exit appears in the bulk list.
  const bulk = path.join(from, 'tor/torbulkexitlist.txt');
  writeFileSync(bulk, `${readFileSync(bulk, 'utf8').trimEnd()}\n198.51.100.77\n`);
  v2 = (await buildFeedsDataset(dataDir, from, clock)).dir;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('dataset feed rows', () => {
  it('tor_exits: every exit-addresses sighting with its own date, bulk-list-only exits at build time', async () => {
    const tor = byNetwork(await rows(v1, 'tor_exits'));
    const sightings = parseTorExitAddresses(readFileSync(sharedDataPath('tor/exit-addresses'))).rows;
    expect(sightings.length).toBeGreaterThan(1000);
    for (const s of sightings) {
      const [network] = rangeToCidrs(s.family, s.start, s.end);
      const row = tor.get(network as string);
      expect(row, network).toMatchObject({ kind: 'tor_exit', source: 'tor-exit-addresses' });
      expect(row?.last_seen).toBe(new Date(s.seenAt).toISOString());
      expect(row?.first_seen).toBe(row?.last_seen);
    }
    const bulkOnly = [...tor.values()].filter((r) => r.source === 'tor-bulk-exit-list');
    for (const r of bulkOnly)
      expect([r.first_seen, r.last_seen]).toEqual(
        [clock() - 10 * DAY_MS, clock() - 10 * DAY_MS].map((t) => new Date(t).toISOString()),
      );
    expect(tor.size).toBe(new Set([...tor.keys()]).size);
  });

  it('ai_crawlers: each published range once, branded with the operator; search engines as search_crawler', async () => {
    const ai = byNetwork(await rows(v1, 'ai_crawlers'));
    const kinds = new Map<string, Set<string>>();
    for (const r of ai.values()) kinds.set(r.source, (kinds.get(r.source) ?? new Set()).add(r.kind));
    expect(Object.fromEntries([...kinds].map(([k, v]) => [k, [...v]]))).toEqual({
      'openai-gptbot': ['ai_crawler'],
      'openai-searchbot': ['ai_crawler'],
      perplexitybot: ['ai_crawler'],
      bingbot: ['search_crawler'],
      applebot: ['search_crawler'],
      duckduckbot: ['search_crawler'],
    });
    const gptbot = parseGoogleStyleRanges(readFileSync(sharedDataPath('bots/openai/gptbot.json'))).rows;
    for (const r of gptbot) {
      const [network] = rangeToCidrs(r.family, r.start, r.end);
      expect(ai.get(network as string)).toMatchObject({
        brand: 'OpenAI',
        kind: 'ai_crawler',
        source: 'openai-gptbot',
      });
    }
    const brands = new Set([...ai.values()].map((r) => r.brand));
    expect(brands).toEqual(new Set(['OpenAI', 'Microsoft', 'Apple', 'Perplexity', 'DuckDuckGo']));
  });

  it('asn_wide_blocked: DROP/EDROP prefixes, ASN-DROP ASNs’ prefixes with their ASN, UCEPROTECT level 3', async () => {
    const blocked = await rows(v1, 'asn_wide_blocked');
    const kinds = new Map<string, number>();
    for (const r of blocked) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
    expect(kinds.get('drop')).toBeGreaterThan(1000);
    expect(kinds.get('edrop')).toBeGreaterThan(100);
    expect(blocked.filter((r) => r.kind === 'asn_drop')).toEqual([
      expect.objectContaining({ network: '100.0.0.0/16', asn: FIXTURE_ASN_DROP, source: 'spamhaus-asndrop' }),
    ]);
    const l3 = parsePlainList(readFileSync(path.join(from, UCE3_FILE))).rows;
    expect(l3.length).toBeGreaterThan(UCE3_LINES - 10);
    const map = byNetwork(blocked);
    for (const r of l3)
      for (const n of rangeToCidrs(r.family, r.start, r.end)) expect(map.has(n), n).toBe(true);
  });

  it('vpn_proxy and datacenter_ranges list their X4BNet, proxy-list and provider sources', async () => {
    const vpn = await rows(v1, 'vpn_proxy');
    expect(new Set(vpn.map((r) => r.source))).toEqual(
      new Set(['x4bnet-vpn-v6', 'x4bnet-vpn-mullvad', 'spys-me-proxies']),
    );
    // Each row says whether it is a VPN or a proxy; every proxy of the list is there.
    expect(new Set(vpn.map((r) => `${r.source} ${r.kind}`))).toEqual(
      new Set(['x4bnet-vpn-v6 vpn', 'x4bnet-vpn-mullvad vpn', 'spys-me-proxies proxy']),
    );
    const proxies = parseSpysProxyList(readFileSync(sharedDataPath('proxy/clarketm/proxy-list.txt'))).rows;
    const listed = new Set(vpn.map((r) => r.network));
    for (const p of proxies)
      expect(listed.has(rangeToCidrs(p.family, p.start, p.end)[0] as string)).toBe(true);
    const dc = await rows(v1, 'datacenter_ranges');
    expect(new Set(dc.map((r) => r.source))).toEqual(
      new Set(['x4bnet-datacenter-v6', 'cloudflare-v4', 'cloudflare-v6', 'fastly']),
    );
    expect(dc.find((r) => r.network === '173.245.48.0/20')).toMatchObject({
      kind: 'cloud',
      source: 'cloudflare-v4',
    });
  });

  it('a later version keeps first_seen, moves last_seen to its build time, and adds new networks', async () => {
    const before = byNetwork(await rows(v1, 'datacenter_ranges'));
    const after = byNetwork(await rows(v2, 'datacenter_ranges'));
    expect(after.size).toBe(before.size);
    for (const [network, r] of after) {
      expect(r.first_seen).toBe(before.get(network)?.first_seen);
      expect(r.last_seen).toBe('2026-06-11T00:00:00.000Z');
    }
    const tor = byNetwork(await rows(v2, 'tor_exits'));
    expect(tor.get('198.51.100.77/32')).toMatchObject({
      first_seen: '2026-06-11T00:00:00.000Z',
      source: 'tor-bulk-exit-list',
    });
  });

  it('proxy lists age out of builds from the data dir downloads: fetched over 3 days before the build', async () => {
    const ageDir = path.join(root, 'age');
    const upstream = path.join(ageDir, 'upstream');
    mkdirSync(path.join(upstream, 'proxy/clarketm'), { recursive: true });
    const file = path.join(upstream, 'proxy/clarketm/proxy-list.txt');
    writeFileSync(file, readFileSync(sharedDataPath('proxy/clarketm/proxy-list.txt')));
    const at = createManualClock('2026-06-01T00:00:00Z');
    const fetched = new Date(at());
    utimesSync(file, fetched, fetched);
    at.advance(3 * DAY_MS);
    const fresh = await buildDataset({
      dataDir: ageDir,
      from: upstream,
      clock: at,
      npmDir: repoPath('src/dataset/fixtures/npm-a'),
    });
    const freshInfo = fresh.snapshot.manifest.sources.find((x) => x.id === 'spys-me-proxies');
    expect(freshInfo).toMatchObject({ rows: 400, listed_at: '2023-03-24T04:58:01.000Z' });
    // One row per address: two proxies of the list share an address (other ports).
    const listed = parseSpysProxyList(readFileSync(file)).rows.map((x) => x.start);
    expect((await rows(fresh.dir, 'vpn_proxy')).length).toBe(new Set(listed).size);
    at.advance(1);
    const stale = await buildDataset({
      dataDir: ageDir,
      from: upstream,
      clock: at,
      npmDir: repoPath('src/dataset/fixtures/npm-a'),
    });
    expect(stale.snapshot.manifest.sources.find((x) => x.id === 'spys-me-proxies')).toMatchObject({
      rows: 0,
      skipped: expect.stringMatching(/^aged out: fetched 2026-06-01T00:00:00.000Z, more than 3 days/),
    });
    expect(await rows(stale.dir, 'vpn_proxy')).toEqual([]);
    // A build from any other directory (`--from DIR`) takes the files as given.
    const given = await buildDataset({
      dataDir: path.join(root, 'age-other'),
      from: upstream,
      clock: at,
      npmDir: repoPath('src/dataset/fixtures/npm-a'),
    });
    expect(given.snapshot.manifest.sources.find((x) => x.id === 'spys-me-proxies')?.rows).toBe(400);
  });

  it('a build from the npm packages alone writes no feed rows (the feeds wait for upstream data)', async () => {
    const npmOnly = await buildDataset({
      dataDir: path.join(root, 'npm-only'),
      clock,
      npmDir: repoPath('src/dataset/fixtures/npm-a'),
    });
    expect(hasFeedRows(npmOnly.dir)).toBe(false);
  });

  it('hasFeedRows is false for a snapshot without the files; a damaged file is refused', async () => {
    expect(hasFeedRows(v1)).toBe(true);
    const bare = path.join(root, 'bare');
    mkdirSync(path.join(bare, 'feed-rows'), { recursive: true });
    expect(hasFeedRows(bare)).toBe(false);
    writeFileSync(path.join(bare, 'feed-rows', 'tor_exits.tsv'), 'ip\tstuff\n1.2.3.4\tx\n');
    await expect(rows(bare, 'tor_exits')).rejects.toThrow(/unexpected header/);
  });
});
