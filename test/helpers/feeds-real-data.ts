/**
 * Real-sized feed rows built from ../shared/data (see its SOURCES.md), the way the dataset will
 * feed the feeds module: Tor exits, AI crawler ranges with brands, X4BNet VPN and datacenter
 * lists, PSBL trap hits and Spamhaus DROP/EDROP prefixes.
 */
import { readFileSync } from 'node:fs';
import type { FeedName, FeedRow } from '../../src/feeds/index.ts';
import { sharedDataPath } from './shared-data.ts';

const SEEN = '2026-01-01T00:00:00Z';

function lines(...parts: string[]): string[] {
  return readFileSync(sharedDataPath(...parts), 'utf8')
    .split('\n')
    .map((l) => l.replace(/[;#].*$/, '').trim())
    .filter((l) => l.length > 0);
}

function listRows(kind: string, source: string, networks: string[]): FeedRow[] {
  return networks.map((network) => ({ network, kind, source, first_seen: SEEN, last_seen: SEEN }));
}

function torRows(): FeedRow[] {
  const rows: FeedRow[] = [];
  let published = SEEN;
  for (const line of readFileSync(sharedDataPath('tor/exit-addresses'), 'utf8').split('\n')) {
    const [word, a, b, c] = line.split(' ');
    if (word === 'Published') published = `${a}T${b}Z`;
    if (word === 'ExitAddress' && a) {
      rows.push({
        network: a,
        kind: 'tor_exit',
        source: 'torproject',
        first_seen: published,
        last_seen: `${b}T${c}Z`,
      });
    }
  }
  // The SecOps list adds IPv6 exits.
  return rows.concat(listRows('tor_exit', 'secops-institute', lines('tor/secops-tor-exit-nodes.lst')));
}

const CRAWLERS: [string, string, string][] = [
  ['Apple', 'applebot', 'bots/apple/applebot.json'],
  ['Microsoft', 'bingbot', 'bots/bing/bingbot.json'],
  ['Google', 'googlebot', 'bots/google/googlebot.json'],
  ['Google', 'google-special-crawlers', 'bots/google/special-crawlers.json'],
  ['Google', 'google-user-triggered', 'bots/google/user-triggered-fetchers.json'],
  ['OpenAI', 'gptbot', 'bots/openai/gptbot.json'],
  ['OpenAI', 'chatgpt-user', 'bots/openai/chatgpt-user.json'],
  ['OpenAI', 'oai-searchbot', 'bots/openai/searchbot.json'],
  ['Perplexity', 'perplexitybot', 'bots/perplexity/perplexitybot.json'],
  ['Perplexity', 'perplexity-user', 'bots/perplexity/perplexity-user.json'],
];

function crawlerRows(): FeedRow[] {
  const rows: FeedRow[] = [];
  for (const [brand, source, file] of CRAWLERS) {
    const doc = JSON.parse(readFileSync(sharedDataPath(file), 'utf8')) as {
      prefixes: { ipv4Prefix?: string; ipv6Prefix?: string }[];
    };
    for (const p of doc.prefixes) {
      const network = p.ipv4Prefix ?? p.ipv6Prefix;
      if (network)
        rows.push({ network, kind: 'ai_crawler', source, first_seen: SEEN, last_seen: SEEN, brand });
    }
  }
  for (const network of lines('bots/duckduckgo/duckduckbot-ipv4.txt')) {
    rows.push({
      network,
      kind: 'ai_crawler',
      source: 'duckduckbot',
      first_seen: SEEN,
      last_seen: SEEN,
      brand: 'DuckDuckGo',
    });
  }
  return rows;
}

function dropRows(): FeedRow[] {
  const rows: FeedRow[] = [];
  for (const line of readFileSync(sharedDataPath('spamhaus/drop_v4.json'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line) as { cidr?: string };
    if (rec.cidr)
      rows.push({
        network: rec.cidr,
        kind: 'drop',
        source: 'spamhaus-drop',
        first_seen: SEEN,
        last_seen: SEEN,
      });
  }
  return rows
    .concat(listRows('drop', 'spamhaus-dropv6', lines('spamhaus/dropv6.txt')))
    .concat(listRows('edrop', 'spamhaus-edrop', lines('spamhaus/edrop.txt')));
}

const x4b = (file: string) => lines('vpn-datacenter/x4bnet', file);

/** Rows of each feed from real public data; datacenter_ranges alone has about 51k networks. */
export function realFeedRows(feed: FeedName): FeedRow[] {
  switch (feed) {
    case 'tor_exits':
      return torRows();
    case 'ai_crawlers':
      return crawlerRows();
    case 'vpn_proxy':
      return listRows('vpn', 'x4bnet', [...x4b('vpn-ipv4.txt'), ...x4b('vpn-ipv6.txt')]);
    case 'datacenter_ranges':
      return listRows('datacenter', 'x4bnet', [...x4b('datacenter-ipv4.txt'), ...x4b('datacenter-ipv6.txt')]);
    case 'trap_confirmed':
      // PSBL is itself built from spam-trap hits: the closest public stand-in for trap evidence.
      return listRows('trap_hit', 'psbl', lines('dnsbl/psbl/psbl.txt'));
    case 'asn_wide_blocked':
      return dropRows();
  }
}
