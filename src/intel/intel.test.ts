import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { ipWords, type ParsedIp, parseIp, readIp } from '../core/ip.ts';
import { buildDataset, type Snapshot, UPSTREAM_SOURCES } from '../dataset/index.ts';
import { createIntel, type ThreatSignalSource } from './index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const npm = (name: string) => path.join(here, '../dataset/fixtures', name);
const clock = createManualClock('2026-06-01T00:00:00Z');
let dataDir: string;
let v3: Snapshot;
let withSources: Snapshot;
const ip = (text: string): ParsedIp => parseIp(text) as ParsedIp;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'netrep-intel-'));
  await buildDataset({ dataDir, clock, npmDir: npm('npm-a') });
  clock.advance(10 * DAY_MS);
  await buildDataset({ dataDir, clock, npmDir: npm('npm-b') });
  clock.advance(10 * DAY_MS);
  v3 = (await buildDataset({ dataDir, clock, npmDir: npm('npm-c') })).snapshot;
  const ids = new Set([
    'tor-exit-addresses',
    'spamhaus-drop',
    'uceprotect-level1',
    'uceprotect-level2',
    'openai-gptbot',
    'x4bnet-vpn-v4',
    'google-cloud',
  ]);
  withSources = (
    await buildDataset({
      dataDir: mkdtempSync(path.join(tmpdir(), 'netrep-intel-from-')),
      clock,
      npmDir: npm('npm-a'),
      from: sharedDataPath(),
      sources: [
        ...UPSTREAM_SOURCES.filter((s) => ids.has(s.id)),
        {
          id: 'rpki',
          path: path.relative(sharedDataPath(), path.join(here, 'fixtures/rpki/roas.json')),
          url: 'http://127.0.0.1/',
          kind: 'rpki',
          format: 'rpki-json',
        },
      ],
    })
  ).snapshot;
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(path.dirname(path.dirname(withSources.dir)), { recursive: true, force: true });
});

describe('lookup', () => {
  it('answers from the snapshot with the netrep flags and a threat score', () => {
    const intel = createIntel({ snapshot: v3 });
    expect(intel.datasetVersion).toBe(3);
    expect(intel.lookup(ip('8.8.8.8'))).toEqual({
      ip: '8.8.8.8',
      prefix: '8.8.8.0/24',
      asn: 15169,
      asn_name: 'Google LLC',
      country: 'US',
      rir: 'ARIN',
      connection_type: 'datacenter',
      bogon: false,
      netrep: {
        is_datacenter: true,
        is_tor_exit: false,
        is_proxy: false,
        is_vpn: false,
        is_residential: false,
        is_mobile: false,
        is_ai_crawler: false,
        cloud_provider: 'Google',
      },
      threat: { score: 5, level: 'low', explanation: ['+5 datacenter network'] },
    });
    expect(intel.lookup(ip('2a00:1450:4001::1'))).toMatchObject({
      asn: 15169,
      asn_name: 'Google LLC',
      prefix: '2a00:1450::/32',
      country: 'IE',
      rir: 'RIPE',
    });
  });

  it('overlapping rows: the most specific range wins (214.95.0.0-215.0.255.255 vs 215.0.0.0-215.1.3.255)', () => {
    const intel = createIntel({ snapshot: v3 });
    expect(intel.lookup(ip('214.95.0.1'))).toMatchObject({ asn: 749, prefix: '214.95.0.0/16' });
    expect(intel.lookup(ip('214.255.255.255'))).toMatchObject({ asn: 749, prefix: '214.128.0.0/9' });
    expect(intel.lookup(ip('215.0.0.1'))).toMatchObject({
      asn: 721,
      asn_name: 'DoD Network Information Center',
      prefix: '215.0.0.0/16',
    });
    expect(intel.lookup(ip('215.1.3.255'))).toMatchObject({ asn: 721, prefix: '215.1.0.0/22' });
    expect(intel.lookup(ip('215.1.4.0'))?.asn ?? null).toBeNull();
  });

  it('IPv4-mapped IPv6 answers as the IPv4 address', () => {
    const intel = createIntel({ snapshot: v3 });
    expect(intel.lookup(ip('::ffff:8.8.8.8'))).toEqual(intel.lookup(ip('8.8.8.8')));
    expect(intel.lookup(ip('::ffff:808:808'))?.ip).toBe('8.8.8.8');
  });

  it('lookupWords (text read with readIp) answers exactly as lookup, in every written form', () => {
    const intel = createIntel({ snapshot: v3 });
    const w = ipWords();
    for (const text of [
      '8.8.8.8',
      ' 8.8.8.8\t',
      '::ffff:8.8.8.8',
      '::FFFF:808:808',
      '2a00:1450:4001::1',
      '2A00:1450:4001:0:0:0:0:1',
      '2a00:1450:4001:0000::0001',
      '::1.2.3.4',
      '10.0.0.1',
      'fe80::1',
      '9.9.9.9',
      '215.1.4.0',
    ]) {
      expect(readIp(text, w), text).toBe(true);
      expect(intel.lookupWords(w), text).toEqual(intel.lookup(ip(text)));
    }
    expect(readIp('1.2.3', w)).toBe(false);
  });

  it('private, loopback and reserved addresses answer as bogons; unrouted public space is null', () => {
    const intel = createIntel({ snapshot: v3 });
    const cases: [string, string][] = [
      ['10.1.2.3', '10.0.0.0/8'],
      ['127.0.0.1', '127.0.0.0/8'],
      ['192.168.1.1', '192.168.0.0/16'],
      ['0.0.0.0', '0.0.0.0/8'],
      ['255.255.255.255', '240.0.0.0/4'],
      ['100.64.0.1', '100.64.0.0/10'],
      ['::1', '::1/128'],
      ['::', '::/128'],
      ['fe80::1', 'fe80::/10'],
      ['fd00::1', 'fc00::/7'],
      ['2001:db8::1', '2001:db8::/32'],
      ['ff02::1', 'ff00::/8'],
      ['4000::1', '4000::/3'],
    ];
    for (const [text, prefix] of cases) {
      expect(intel.lookup(ip(text)), text).toMatchObject({
        bogon: true,
        prefix,
        asn: null,
        connection_type: null,
        threat: { score: 0 },
      });
    }
    expect(intel.lookup(ip('9.9.9.9'))).toBeNull();
    expect(intel.lookup(ip('2c0f::1'))).toBeNull();
  });
});

describe('threat score (CONTRACT §6)', () => {
  it('adds imported signals and the blocklist/trap seam, one line each, clamped at 100', () => {
    const tor = '185.241.208.232';
    const plain = createIntel({ snapshot: withSources }).lookup(ip(tor));
    expect(plain?.netrep.is_tor_exit).toBe(true);
    expect(plain?.threat.explanation).toContain('+35 Tor exit relay');
    const signals: ThreatSignalSource = {
      listingFor: (x) => (x === tor ? { type: 'malware' } : x === '8.8.8.8' ? { type: 'spam' } : null),
      pristineTrapHitRecent: (x) => x === tor,
    };
    const intel = createIntel({ snapshot: withSources, signals });
    const a = intel.lookup(ip(tor));
    expect(a?.threat.explanation[0]).toBe('+60 active blocklist listing (malware)');
    expect(a?.threat.explanation.at(-1)).toBe('+20 pristine spam trap hit in the last 30 days');
    expect(a?.threat).toMatchObject({ score: 100, level: 'critical' });
    expect(intel.lookup(ip('8.8.8.8'))?.threat).toEqual({
      score: 50,
      level: 'high',
      explanation: ['+45 active blocklist listing (spam)', '+5 datacenter network'],
    });
  });

  it('DROP prefixes score +50 and AI crawlers of a known company skip the datacenter point', () => {
    const intel = createIntel({ snapshot: withSources });
    const drop = intel.lookup(ip('1.10.16.1'));
    expect(drop?.threat.explanation).toContain('+50 prefix on Spamhaus DROP');
    const gpt = intel.lookup(ip('132.196.86.1'));
    expect(gpt?.netrep).toMatchObject({ is_ai_crawler: true, ai_company: 'OpenAI' });
    expect(gpt?.threat.explanation).not.toContain('+5 datacenter network');
  });
});

describe('extended answer', () => {
  it('ownership_timeline and geo_stability from two shifted versions', async () => {
    const intel = createIntel({
      snapshot: v3,
      clock,
      reverseDns: async (x) => (x === '100.0.0.5' ? 'host.example.net' : null),
    });
    const a = await intel.lookupExtended(ip('100.0.0.5'));
    expect(a?.hostname).toBe('host.example.net');
    expect(a?.ownership_timeline).toEqual([
      {
        change_kind: 'asn',
        previous_country: 'DE',
        current_country: 'FR',
        previous_asn: 64500,
        current_asn: 64501,
        previous_org: 'Old Org',
        current_org: 'New Org',
        changed_at: '2026-06-11T00:00:00.000Z',
      },
      {
        change_kind: 'country',
        previous_country: 'FR',
        current_country: 'BE',
        previous_asn: 64501,
        current_asn: 64501,
        previous_org: 'New Org',
        current_org: 'New Org',
        changed_at: '2026-06-21T00:00:00.000Z',
      },
    ]);
    expect(a?.geo_stability).toEqual({
      change_count: 2,
      level: 'moderate',
      last_change: '2026-06-21T00:00:00.000Z',
    });
    expect((await intel.lookupExtended(ip('8.8.8.8')))?.ownership_timeline).toEqual([]);
    const later = createIntel({ snapshot: v3, clock: () => clock() + 85 * DAY_MS });
    expect((await later.lookupExtended(ip('100.0.0.5')))?.geo_stability).toMatchObject({
      change_count: 1,
      level: 'moderate',
    });
  });

  it('geo_consensus, rpki_status, asn_reputation; a failing reverse DNS is no hostname', async () => {
    const intel = createIntel({
      snapshot: withSources,
      reverseDns: () => Promise.reject(new Error('timeout')),
    });
    const g = await intel.lookupExtended(ip('8.8.8.8'));
    expect(g?.hostname).toBeUndefined();
    expect(g?.rpki_status).toBe('valid');
    expect(g?.geo_consensus).toEqual({
      agreement: 1,
      primary_country: 'US',
      providers: [
        { provider: 'geo-whois-asn-country', country: 'US', city: null },
        { provider: 'asn-country', country: 'US', city: null },
      ],
    });
    expect((await intel.lookupExtended(ip('100.0.0.5')))?.rpki_status).toBe('invalid');
    expect((await intel.lookupExtended(ip('1.0.0.1')))?.rpki_status).toBe('not-found');
    expect((await intel.lookupExtended(ip('1.0.0.1')))?.geo_consensus).toMatchObject({
      agreement: 0.5,
      primary_country: 'AU',
    });
    expect((await intel.lookupExtended(ip('2a00:1450:4001::1')))?.rpki_status).toBe('valid');
    const d = await intel.lookupExtended(ip('1.10.16.1'));
    expect(d?.asn_reputation).toMatchObject({
      provider_drop: true,
      uce_level1: false,
      last_checked: withSources.createdAt,
    });
    expect(d?.asn_reputation?.sources).toEqual(
      expect.arrayContaining(['spamhaus-drop', 'uceprotect-level1']),
    );
    expect(d?.asn_reputation?.dataset_versions['spamhaus-drop']).toBe(withSources.version);
    expect(await intel.lookupExtended(ip('10.0.0.1'))).toMatchObject({ bogon: true });
    expect(await intel.lookupExtended(ip('9.9.9.9'))).toBeNull();
  });
});

describe('ASN answers', () => {
  it('info with prefixes, search, stats and reputation', () => {
    const intel = createIntel({ snapshot: v3 });
    expect(intel.asn(15169)).toEqual({
      asn: 15169,
      name: 'Google LLC',
      country: 'US',
      rir: 'ARIN',
      allocation_date: null,
    });
    const withPrefixes = intel.asn(721, { includePrefixes: true, prefixLimit: 1 });
    expect(withPrefixes?.total_prefixes).toBe(2);
    expect(withPrefixes?.prefixes).toEqual([
      { prefix: '215.0.0.0/16', country: 'US', is_datacenter: false, threat_score: 0 },
    ]);
    expect(intel.asn(4242424242)).toBeNull();
    expect(intel.searchAsn('AS15169')).toEqual({
      results: [{ asn: 15169, name: 'Google LLC', country: 'US', rir: 'ARIN' }],
      count: 1,
    });
    expect(intel.searchAsn('dod', 1)).toMatchObject({ count: 2, results: [{ asn: 721 }] });
    expect(intel.searchAsn('   ')).toEqual({ results: [], count: 0 });
    expect(intel.searchAsn('telefônica')).toMatchObject({
      count: 1,
      results: [{ asn: 26599, country: 'BR' }],
    });
    expect(intel.asnStats()).toEqual({
      total_asns: 7,
      by_rir: { ARIN: 3, RIPE: 2, APNIC: 1, LACNIC: 1, AFRINIC: 0 },
    });
    expect(intel.asnReputation(15169)).toMatchObject({ uce_level3: false, provider_drop: false });
    expect(intel.asnReputation(4242424242)).toBeNull();
  });
});
