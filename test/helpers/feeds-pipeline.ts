/**
 * A small `--from` directory of real upstream files, copied from ../shared/data at test time
 * into a temp dir (never committed), so feeds are built by the real pipeline: importers →
 * dataset build (feed rows) → daily feed snapshots. The UCEPROTECT level 3 list is cut to its
 * first lines to keep the suite fast; one hand-made ASN-DROP line names AS64500, the ASN the
 * npm-a fixture announces 100.0.0.0/16 for, so ASN-DROP prefixes appear too.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../src/core/clock.ts';
import { type BuildResult, buildDataset } from '../../src/dataset/index.ts';
import { repoPath, sharedDataPath } from './shared-data.ts';

const COPIED = [
  'tor/exit-addresses',
  'tor/torbulkexitlist.txt',
  'bots/openai/gptbot.json',
  'bots/openai/searchbot.json',
  'bots/bing/bingbot.json',
  'bots/apple/applebot.json',
  'bots/perplexity/perplexitybot.json',
  'bots/duckduckgo/duckduckbot-ipv4.txt',
  'proxy/clarketm/proxy-list.txt',
  'vpn-datacenter/x4bnet/vpn-ipv6.txt',
  'vpn-datacenter/x4bnet/input-vpn-mullvadvpn.txt',
  'vpn-datacenter/x4bnet/datacenter-ipv6.txt',
  'cloud/cloudflare/ips-v4.txt',
  'cloud/cloudflare/ips-v6.txt',
  'cloud/fastly/public-ip-list.json',
  'spamhaus/drop.txt',
  'spamhaus/dropv6.txt',
  'spamhaus/edrop.txt',
];

export const UCE3_FILE = 'dnsbl/uceprotect/uceprotect-3-NetworkRanges.derived.txt';
export const UCE3_LINES = 1500;
export const FIXTURE_ASN_DROP = 64500;

/** Lays out the fixture under `from` (a fresh directory). */
export function writeFeedsFixture(from: string): void {
  for (const rel of COPIED) {
    mkdirSync(path.dirname(path.join(from, rel)), { recursive: true });
    copyFileSync(sharedDataPath(rel), path.join(from, rel));
  }
  const l3 = readFileSync(sharedDataPath(UCE3_FILE), 'utf8').split('\n').slice(0, UCE3_LINES);
  mkdirSync(path.dirname(path.join(from, UCE3_FILE)), { recursive: true });
  writeFileSync(path.join(from, UCE3_FILE), `${l3.join('\n')}\n`);
  const asndrop = readFileSync(sharedDataPath('spamhaus/asndrop.json'), 'utf8');
  const line = JSON.stringify({
    asn: FIXTURE_ASN_DROP,
    rir: 'ripencc',
    domain: 'example.test',
    cc: 'DE',
    asname: 'TEST',
  });
  writeFileSync(path.join(from, 'spamhaus/asndrop.json'), `${line}\n${asndrop}`);
}

/** Builds a dataset version from the fixture with the small npm-a ip-location-db fixture. */
export function buildFeedsDataset(dataDir: string, from: string, clock: Clock): Promise<BuildResult> {
  return buildDataset({ dataDir, from, clock, npmDir: repoPath('src/dataset/fixtures/npm-a') });
}
