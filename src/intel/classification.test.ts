/**
 * Connection type, proxies and crawler purpose from real sources: the ASN rows of chosen networks
 * are taken from the installed ip-location-db package (so the answers speak of real networks),
 * CAIDA's AS classification, the spys.me proxy list and the crawler range files from
 * ../shared/data. Expected classes are read from the CAIDA file here, not from the importer.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoPath, sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock } from '../core/clock.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { buildDataset, formatAddr, parseGoogleStyleRanges, UPSTREAM_SOURCES } from '../dataset/index.ts';
import { createIntel, type Intel } from './index.ts';

const clock = createManualClock('2026-11-27T00:00:00Z');
let root: string;
let intel: Intel;
const ip = (text: string): ParsedIp => parseIp(text) as ParsedIp;

/** The real networks the fixture announces (none of them in the curated table). */
const ASNS = [54815, 17350, 395612, 749, 26496, 9009, 56120, 61137, 216127];
const firstAddress = new Map<number, string>();
const caida = new Map<number, string>();

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'netrep-classify-'));
  for (const line of readFileSync(sharedDataPath('asn-class/caida/20210401.as2types.txt'), 'utf8').split(
    '\n',
  )) {
    const [as, , type] = line.split('|');
    if (as && type) caida.set(Number(as), type);
  }
  const npm = path.join(root, 'npm');
  mkdirSync(path.join(npm, 'asn'), { recursive: true });
  const rows = readFileSync(repoPath('node_modules/@ip-location-db/asn/asn-ipv4.csv'), 'utf8')
    .split('\n')
    .filter((l) => {
      const asn = Number(l.split(',')[2]);
      if (!ASNS.includes(asn) || firstAddress.has(asn)) return false;
      firstAddress.set(asn, l.split(',')[0] as string);
      return true;
    });
  writeFileSync(path.join(npm, 'asn/asn-ipv4.csv'), `${rows.join('\n')}\n`);
  const from = path.join(root, 'from');
  const ids = new Set([
    'caida-as-classification',
    'spys-me-proxies',
    'googlebot',
    'bingbot',
    'openai-gptbot',
    'openai-chatgpt-user',
    'perplexitybot',
  ]);
  const sources = UPSTREAM_SOURCES.filter((s) => ids.has(s.id));
  for (const s of sources) {
    mkdirSync(path.dirname(path.join(from, s.path)), { recursive: true });
    copyFileSync(sharedDataPath(s.path), path.join(from, s.path));
  }
  const built = await buildDataset({ dataDir: path.join(root, 'data'), from, clock, npmDir: npm, sources });
  intel = createIntel({ snapshot: built.snapshot, clock });
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('connection type from evidence', () => {
  it('maps each CAIDA class as README.md says; nothing is residential without evidence', async () => {
    const expected: Record<number, [string | null, string[]]> = {
      54815: ['business', ['caida-as-classification', 'netrep-as-class-map']],
      17350: ['business', ['caida-as-classification', 'netrep-as-class-map']],
      395612: ['business', ['caida-as-classification', 'netrep-as-class-map']],
      26496: ['datacenter', ['caida-as-classification', 'netrep-as-class-map']],
      9009: ['residential', ['caida-as-classification', 'netrep-as-class-map']],
      // Transit/Access refined by the name: a mobile carrier.
      56120: ['mobile', ['caida-as-classification', 'netrep-as-class-map', 'netrep-asn-name-words']],
      // Enterprise refined by the name: a university.
      61137: ['education', ['caida-as-classification', 'netrep-as-class-map', 'netrep-asn-name-words']],
      // No class: the name words decide.
      216127: ['datacenter', ['netrep-asn-name-words']],
      // No class, no telling name (US DoD): no connection type at all.
      749: [null, ['netrep-unclassified']],
    };
    expect(caida.get(54815)).toBe('Enterprise');
    expect(caida.get(26496)).toBe('Content');
    expect(caida.get(749)).toBeUndefined();
    for (const asn of ASNS) {
      const address = firstAddress.get(asn) as string;
      const a = await intel.lookupExtended(ip(address));
      const [type, sources] = expected[asn] as [string | null, string[]];
      expect([asn, a?.connection_type], address).toEqual([asn, type]);
      expect(a?.netrep.is_residential).toBe(type === 'residential');
      expect(a?.netrep.is_datacenter).toBe(type === 'datacenter');
      expect(a?.netrep.is_mobile).toBe(type === 'mobile');
      expect(a?.provenance?.connection_type?.sources).toEqual(sources);
      expect(a?.provenance?.['netrep.is_residential']?.sources).toEqual(sources);
      // Content and Enterprise are never residential.
      if (caida.get(asn) === 'Enterprise' || caida.get(asn) === 'Content')
        expect(a?.connection_type).not.toBe('residential');
    }
  });
});

describe('open proxies', () => {
  it('every address of the spys.me list answers is_proxy with the +30 line, anonymity and provenance', async () => {
    const lines = readFileSync(sharedDataPath('proxy/clarketm/proxy-list.txt'), 'utf8')
      .split('\n')
      .filter((l) => /^\d+\.\d+\.\d+\.\d+:\d+ /.test(l));
    expect(lines).toHaveLength(400);
    const level: Record<string, string> = { N: 'transparent', A: 'anonymous', H: 'elite' };
    const byAddress = new Map<string, Set<string>>();
    for (const l of lines) {
      const [hostPort = '', flags = ''] = l.split(' ');
      const address = hostPort.split(':')[0] as string;
      const set = byAddress.get(address) ?? new Set();
      set.add(level[flags.split('-')[1]?.[0] ?? ''] as string);
      byAddress.set(address, set);
    }
    for (const [address, levels] of byAddress) {
      const base = intel.lookup(ip(address));
      expect(base?.netrep.is_proxy, address).toBe(true);
      expect(base?.threat.explanation).toContain('+30 public proxy');
      const a = await intel.lookupExtended(ip(address));
      // One address listed twice at two levels answers the most anonymous one.
      const want = ['elite', 'anonymous', 'transparent'].find((x) => levels.has(x));
      expect(a?.proxy).toEqual({ anonymity: want });
      expect(a?.provenance?.['netrep.is_proxy']?.sources).toEqual(['spys-me-proxies']);
      expect(a?.provenance?.['threat.public_proxy']?.sources).toEqual(['spys-me-proxies']);
    }
    // An address on no list is not a proxy.
    expect(intel.lookup(ip(firstAddress.get(54815) as string))?.netrep.is_proxy).toBe(false);
  });
});

describe('crawler purpose', () => {
  const first = (rel: string): string => {
    const r = parseGoogleStyleRanges(readFileSync(sharedDataPath(rel))).rows.find((x) => x.family === 4);
    if (!r) throw new Error(`no IPv4 range in ${rel}`);
    return formatAddr(4, r.start);
  };
  it('search engines are crawlers but not AI crawlers; GPTBot, ChatGPT-User and PerplexityBot are', async () => {
    const cases: [string, string, string, string, boolean][] = [
      ['bots/google/googlebot.json', 'Googlebot', 'Google', 'search', false],
      ['bots/bing/bingbot.json', 'Bingbot', 'Microsoft', 'search', false],
      ['bots/openai/gptbot.json', 'GPTBot', 'OpenAI', 'ai_training', true],
      ['bots/openai/chatgpt-user.json', 'ChatGPT-User', 'OpenAI', 'ai_assistant', true],
      ['bots/perplexity/perplexitybot.json', 'PerplexityBot', 'Perplexity', 'ai_assistant', true],
    ];
    for (const [rel, name, operator, purpose, ai] of cases) {
      const address = first(rel);
      const a = await intel.lookupExtended(ip(address));
      expect(a?.crawler, `${rel} ${address}`).toEqual({ name, operator, purpose });
      expect(a?.netrep.is_ai_crawler).toBe(ai);
      expect(a?.netrep.ai_company).toBe(ai ? operator : undefined);
      expect(a?.provenance?.crawler?.sources).toHaveLength(1);
      expect(a?.provenance?.['netrep.is_ai_crawler'] !== undefined).toBe(ai);
    }
  });
});
