/**
 * Byte-identity of the feed builder (issue #35 item 2): a seeded, mixed row set (IPv4 and IPv6
 * hosts and networks in many spellings, duplicates, csv-quoted and non-ASCII sources, brands,
 * ASNs, search-crawler rows, invalid rows) is built into every feed, and the SHA-256 of every file
 * must equal what the builder wrote at commit 1f7eeeb (2026-11-27), before the builder was made
 * fast. The on-the-fly downloads (brand filter, include=search) are held to the same.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { collect, tempDir } from '../../test/helpers/feeds-tools.ts';
import { seededRandom } from '../core/random.ts';
import { openFeedFile } from './download.ts';
import { writeFeedSnapshot } from './snapshot.ts';
import { FEED_FORMATS, FEED_NAMES, type FeedName } from './types.ts';

const tmp = tempDir('byte-identity');
afterAll(tmp.cleanup);

const SOURCES = ['x4bnet', 'spamhaus-drop', 'cloud,"quoted"', 'héberge', 'line\nbreak', 'Ünïcode 🛰'];
const KINDS = ['datacenter', 'vpn', 'proxy', 'tor_exit', 'drop'];

type Draw = { int: (n: number) => number; hex: () => string; day: () => string; rnd: () => number };

/** The network forms, by the share of rows each takes (cumulative thresholds of one draw). */
const NETWORK_FORMS: readonly [number, (d: Draw, v4: string) => string][] = [
  [0.3, (_d, v4) => v4],
  [0.5, (d, v4) => `${v4}/${d.int(33)}`],
  [0.55, (d) => `${d.int(4)}.0.0.0/${4 + d.int(6)}`],
  [0.65, (d) => `2001:db8:${d.hex()}::${d.hex()}`],
  [
    0.75,
    (d) =>
      `2${d.hex().padStart(3, '0').slice(0, 3)}:${d.hex()}:${d.hex()}:${d.hex()}:0:0:${d.hex()}:${d.hex()}/${d.int(129)}`,
  ],
  [0.8, (d) => `2A00:0${d.hex().toUpperCase()}:0000:0000:0000:0000:0000:000${d.int(10)}`],
  [0.83, (_d, v4) => `::ffff:${v4}`],
  [0.86, (d) => `::${d.hex()}/${96 + d.int(33)}`],
  [0.9, (d) => `fe80::${d.hex()}:${d.hex()}/${48 + d.int(81)}`],
  [1, (d) => `${1 + d.int(9)}.${d.int(4)}.0.0/16`], // few distinct: duplicates
];

function network(d: Draw): string {
  const r = d.rnd();
  const v4 = `${d.int(256)}.${d.int(256)}.${d.int(256)}.${d.int(256)}`;
  const form = NETWORK_FORMS.find(([limit]) => r < limit) ?? NETWORK_FORMS[NETWORK_FORMS.length - 1];
  return (form as (typeof NETWORK_FORMS)[number])[1](d, v4);
}

function validRow(feed: FeedName, d: Draw, pick: <T>(xs: readonly T[]) => T): Record<string, unknown> {
  const row: Record<string, unknown> = {
    network: network(d),
    kind: feed === 'ai_crawlers' ? (d.rnd() < 0.25 ? 'search_crawler' : 'ai_crawler') : pick(KINDS),
    source: pick(SOURCES),
    first_seen: d.day(),
    last_seen: d.day(),
  };
  if (feed === 'ai_crawlers' || d.rnd() < 0.1) row.brand = pick(['OpenAI', 'Google', 'Anthropic, PBC']);
  if (d.rnd() < 0.5) row.asn = pick([0, 4294967295, 1 + d.int(400000)]);
  return row;
}

/** 50,000 rows over the six feeds; about 1 in 50 is not a valid row. */
function mixedRows(feed: FeedName, count: number, seed: number): unknown[] {
  const rnd = seededRandom(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)] as T;
  const hex = () => int(65536).toString(16);
  const day = () => `2026-0${1 + int(9)}-1${int(10)}T0${int(10)}:00:00Z`;
  const draw: Draw = { int, hex, day, rnd };
  const rows: unknown[] = [];
  for (let i = 0; i < count; i++) {
    if (rnd() >= 0.02) {
      rows.push(validRow(feed, draw, pick));
      continue;
    }
    rows.push(
      pick([
        { network: 'not-an-ip', kind: 'x', source: 's', first_seen: day(), last_seen: day() },
        { network: '1.2.3.4' },
        null,
      ]),
    );
  }
  return rows;
}

const COUNTS: Record<FeedName, number> = {
  tor_exits: 5000,
  ai_crawlers: 8000,
  vpn_proxy: 9000,
  datacenter_ranges: 15000,
  trap_confirmed: 8000,
  asn_wide_blocked: 5000,
};

function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// Computed with the builder of commit 1f7eeeb.
const EXPECTED: Record<string, string> = {
  'tor_exits rows': '3774 valid, 296 invalid',
  'tor_exits/manifest.json': '75a61629470195ecbdef112fe18dfde30664e93b64f73a93206ce5cd7f7f53ae',
  'tor_exits/tor_exits.caddy': 'e7baa03ed43d3846e3a29a55f567d44b447b2e9b699065d2e6d4c79f702ded08',
  'tor_exits/tor_exits.cloudflare.txt': 'ad0865e35141fe29c8554e596344e2bb5f1eacaf813802582f192cbf85da66be',
  'tor_exits/tor_exits.csv': '574f20c4384c22749aee535059b0063a6d49d582b7c07c48e25534208583fcb1',
  'tor_exits/tor_exits.iptables.sh': '0e98ef3cd90c610b3fc38b7870939bfa0d7b81748ad4266b49a24fcec1b00354',
  'tor_exits/tor_exits.json': 'c930c5c951ba7c1344f96eef3f9fe86cce8c291e6201f733449809518f3aa115',
  'tor_exits/tor_exits.nginx.conf': '99086b1e47e3fc6367fd86ecd3b7d50fd7643985befbc3cd139913ec0c335446',
  'tor_exits/tor_exits.rpz.zone': '423242b853748268abf1d0fb8aaed7451ecfdc7a97c086c8aa256d0469b51bf7',
  'tor_exits/tor_exits.txt': '0f8221f62b6e3ac8b3f23cc7d9fe7fa3283072f50315c2f0d61744d22cf19de4',
  'ai_crawlers rows': '4339 valid, 505 invalid',
  'ai_crawlers/ai_crawlers.caddy': '93fa7c48c71d37d2e74e5d7c6ddf150a3e924e15c2ecedff0bb3cac70eeeb0f2',
  'ai_crawlers/ai_crawlers.cloudflare.txt':
    'dcfcdde31b504e536be27de0814de2e8d3bfc24f11f142529ccc22f506a6c0ac',
  'ai_crawlers/ai_crawlers.csv': 'a7560a4bb02487256dbd190b2568b5423e1a09623a6abfc89ce5707140685364',
  'ai_crawlers/ai_crawlers.include-search.csv':
    '139a5bf63dc6142b5303f318d32ba5dda1ca792a777116841ab4dcf52c007ed7',
  'ai_crawlers/ai_crawlers.iptables.sh': 'def80904d75000d26e4024c920a17dd7daceccd0ed30025c157a84cba1a8019f',
  'ai_crawlers/ai_crawlers.json': '678d8de37325663d2a4469e7b3e1db1ee1c809f1a02146fb135e175842ed86ed',
  'ai_crawlers/ai_crawlers.nginx.conf': 'de44a43295a2beb76c86188915aca917604f2866dc2e4ad1c27f19e2794d489b',
  'ai_crawlers/ai_crawlers.rpz.zone': 'f27b5e83401a3fb9ba068ef42abeb61c68035f93f664405dee58d6a1dfebe0ae',
  'ai_crawlers/ai_crawlers.txt': '82b20a5a354e0bf5e486a013fbf3437b72530d14598082d46e85432568221206',
  'ai_crawlers/manifest.json': '7bbeb957beaa99f093a69a7ac8bc17932c28bfe476ddcb6ec23376c0c74af0b1',
  'vpn_proxy rows': '6393 valid, 600 invalid',
  'vpn_proxy/manifest.json': '53567b7a71da7bb87f8bb1ad0ca8977fab1033faccde7d982a95e38021497147',
  'vpn_proxy/vpn_proxy.caddy': '47b1bff4df49687a24a4073c58266a057213bd55db82d97573c7a1d7f2dea047',
  'vpn_proxy/vpn_proxy.cloudflare.txt': 'd9bf711230888f39b20cb3147a639687f071d7852a54eb96d6b1e479e1faead4',
  'vpn_proxy/vpn_proxy.csv': '2643aeb57a30901a6ce0f865ff7d9fffa5813ffe2e26e3fe3a2e051f36ff9acc',
  'vpn_proxy/vpn_proxy.iptables.sh': 'ccdd36305addd64388de4b7e6245066163b07b2246a9fc789ace2b66ea255add',
  'vpn_proxy/vpn_proxy.json': '8eac944bce642c1bc01748f65bb11b4d19f7d60ac45a33ca75272e1b6fd4b6d3',
  'vpn_proxy/vpn_proxy.nginx.conf': '0a5fb2146a080f1f4c8e16e91508b358559dc9a0c36376e8835d86c4ef9b6d7f',
  'vpn_proxy/vpn_proxy.rpz.zone': 'fc797432ad28759ad4c18013253e76e59fe5b904d808df625c2ce48db670aa5c',
  'vpn_proxy/vpn_proxy.txt': '187f57f45b61603f53c1cd5fb9fff8d0c424af4cbdd3cde2f35f2b5f1225ef8f',
  'datacenter_ranges rows': '10635 valid, 1011 invalid',
  'datacenter_ranges/datacenter_ranges.caddy':
    '35d18d7e3f44985f3db9fa915ab840b90e1a70716f0301a4db2fe7cac3293cf8',
  'datacenter_ranges/datacenter_ranges.cloudflare.txt':
    '1afbeab56fa6218ee65f257abae42f9e141d1853b818765d04cc87f6a120e2a4',
  'datacenter_ranges/datacenter_ranges.csv':
    'be0f85c53c9a0f65931d0c90dbefbd36bf2f6867af0f77875e0676d22a789c2e',
  'datacenter_ranges/datacenter_ranges.iptables.sh':
    '1a1f2fe4bd099411c5c95901a2bcf07867c60c148a7c0ab9e4a5da55edff88a8',
  'datacenter_ranges/datacenter_ranges.json':
    'a355b3eb092e3e5d562164ae8323108a02a3692bf2d94b65b2cf4b31b822a726',
  'datacenter_ranges/datacenter_ranges.nginx.conf':
    '64f18e501d61c2776c580a5f29a8f733082406f902194658b69fc03c5c33ab9d',
  'datacenter_ranges/datacenter_ranges.rpz.zone':
    '98ddfc048e69a4b9a8485aea8f203b13a5704715f9bfb9a4ec888326c1deb5ef',
  'datacenter_ranges/datacenter_ranges.txt':
    '50bed20c09a41ab7cce339b4e82db4ca1f38b2f832fbd2103fca98d33b7b96cc',
  'datacenter_ranges/manifest.json': '68e741d5b5c26a11ed453e8a7bf1ede3a4b76004dd1bf35ade3aea3fe75a42d1',
  'trap_confirmed rows': '5753 valid, 547 invalid',
  'trap_confirmed/manifest.json': 'ebee09f97406021a1c4e26942d9d6af946fc7d920b176438c5d6cc4b6d64a0be',
  'trap_confirmed/trap_confirmed.caddy': 'ce8f87e7c21df96d3134e6f5d215b035e6a3d24f6946f46c1b623d013ee3f4c1',
  'trap_confirmed/trap_confirmed.cloudflare.txt':
    '7cfeac35995a79fa1831e16aafeb6e24b27d9623c16efeca1ddb68b14f65cc2b',
  'trap_confirmed/trap_confirmed.csv': 'f4ef49a94194dc622d6ff03c65e598d2405efe5389f4bba623af6a54ee6ded04',
  'trap_confirmed/trap_confirmed.iptables.sh':
    '21d60c7c725bfbcaedda69d7ffe8742e86aaa57f0020faa43d21951291419351',
  'trap_confirmed/trap_confirmed.json': '37278cac0bff4d457e70a0c0201f9a9393254dd5db5bdcd1c0650dd5d0d58272',
  'trap_confirmed/trap_confirmed.nginx.conf':
    '13c16d05d21f7c9896c04e4598890ec501407bffced81cb77d5a4a19ac488e1c',
  'trap_confirmed/trap_confirmed.rpz.zone':
    '37b07c7d5fa4a94f01657769f48afafeffecac0147105be5b5aad668897ac429',
  'trap_confirmed/trap_confirmed.txt': '0f574bd74405d0992e1854d5d4cc3d91300e428749d56beed3aaee3d7abebaca',
  'asn_wide_blocked rows': '3634 valid, 347 invalid',
  'asn_wide_blocked/asn_wide_blocked.caddy':
    'bf7b137f4d32e40e0bf9f5913523474d4f584620efb64fc7f443d4485bf21939',
  'asn_wide_blocked/asn_wide_blocked.cloudflare.txt':
    '30d4544e9f34a8e235bbc9e540b95e261d7f3210ef93d9eaec74adb763034eb0',
  'asn_wide_blocked/asn_wide_blocked.csv': '1e3b84022ca558b89a2c461c50363f6ad40b0e9a50f9be3f04c3bcc10209eb28',
  'asn_wide_blocked/asn_wide_blocked.iptables.sh':
    '56c195a110bb09279d16a784e9d54db8c808c613512717bb43780a91c8041702',
  'asn_wide_blocked/asn_wide_blocked.json':
    '3416b0b95a20783866cd25b0947c55405b991d97a6af5a8ba57f080a2c30f2a3',
  'asn_wide_blocked/asn_wide_blocked.nginx.conf':
    '424ea56bf9aba253c4152f24e1271eb7639323f755d15a0a68215cf3731fe0b7',
  'asn_wide_blocked/asn_wide_blocked.rpz.zone':
    '7ffd139fb57119eb2747ec9349ae246a6d27017d9c728d7439ff3af46336f0bb',
  'asn_wide_blocked/asn_wide_blocked.txt': '073d8436f805e10204f9687d596893a1d3fa022e57e91868ff1525827c69106f',
  'asn_wide_blocked/manifest.json': 'a3808a62aca22a3447b58198bddc5bc72d36c9084a7c60b0ef513e91d9fdd1ad',
  'ai_crawlers csv brand=openai': 'b1a207ed1387c0b9cebc54cbb056c74e69cc245ef77863c6fdf756675ca3d85b',
  'ai_crawlers csv include=search': 'ad09f68405c0302b08a12ef0514614d656403051dba2ad1d185ae97166e4e288',
  'ai_crawlers csv brand=Google&include=search':
    '5a2c130b98b1c18b57a3f5d17656a1ff2c246bc0c9697deca4bca2f8f79f2728',
  'ai_crawlers json brand=openai': 'c6b6108bec41e655ba175289c96dc53a8fd6664dbbf1b1b4eff3d30369eb7145',
  'ai_crawlers json include=search': '2b092aab273c59a09ae6e024f8fdee3885f59333e45dbdc3cad2b1b3b7a37f10',
  'ai_crawlers json brand=Google&include=search':
    'c1a1bae09cbb23ce4ad638d57acab9bd23844c1556147780f3425a7fdceb2350',
  'ai_crawlers plain brand=openai': 'd416d4889829c4616d33b0dba8d966989b551fce71b93e7f90e021995a0dc424',
  'ai_crawlers plain include=search': '6a995682d43b46a4ab05ca26aae5f7fc959ae42b5eb4a0d3480059451fef18c8',
  'ai_crawlers plain brand=Google&include=search':
    '8e12afbf85b342a5b7b19ef71cda62b1c29102abe2e05c1a5b413712fb20cbf5',
  'ai_crawlers bind brand=openai': '36cc95280bea0b98694317a736ffa493bb82728df3fe808d08890efc129cde50',
  'ai_crawlers bind include=search': '93bb05aa0d2c7371daa9fce6b31a5a3c3aa6037696d3b9763c7d666aa150dbc8',
  'ai_crawlers bind brand=Google&include=search':
    'fee980d51ef316c4073b3e3cb44fa5d39f3d064ebd86f40ab0d3ee12b2544c08',
  'ai_crawlers nginx brand=openai': '3925be602e63ced6f9ac597d4d6aee53b6daeb0f2b191a80102f57a0b94c4ca5',
  'ai_crawlers nginx include=search': '24fa9f969d518b6e8103207f8612959b15a6a75a6571f25b429953f15e130874',
  'ai_crawlers nginx brand=Google&include=search':
    'f1b6646ef0ec12de4fa8e475b49733c2d442027658f9ff792c4ce9565b20199e',
  'ai_crawlers caddy brand=openai': '47f4002ce4abc84eba5e6305071c47fa7c5f0fcc38e271457af061754f91f2d6',
  'ai_crawlers caddy include=search': 'da134f7b60de5ade00e05cb154742827e4870e39dd77037642658d59a44acdd9',
  'ai_crawlers caddy brand=Google&include=search':
    '4910ff8b351fa8b64ac9aeacfaad841eaef90bf9031239d50019d8f34f0f877c',
  'ai_crawlers iptables brand=openai': '473c15fd8efd4352d72f5b1c10e5ffe81453c67be41f2ecc0bb89d293e548714',
  'ai_crawlers iptables include=search': 'c8a0e9f700fe3275ad635e49e00322e2c50efa218eec1548cf7285f05c51d9fa',
  'ai_crawlers iptables brand=Google&include=search':
    'f02da3f2f2be1087608d625aa1e586dbc5fcc2876b6391480321c8cdba5d0612',
  'ai_crawlers cloudflare brand=openai': '6a429b4656e586c8261ca202acffeea4abcec66d8a22980c4fd8d59bba3d9419',
  'ai_crawlers cloudflare include=search': '1e673cd708e8ecf6e6a657ca1d92fd8b663464945d9c2b071b48da71c6a901ef',
  'ai_crawlers cloudflare brand=Google&include=search':
    'cfa91610805da9cbfc6a0616cb2e6440878d5f62de3674d649b2d7af53634925',
};

/** Writes each feed's snapshot from its seeded rows; records row counts and each file's SHA-256. */
async function writeAllFeeds(actual: Record<string, string>): Promise<void> {
  let seed = 35;
  for (const feed of FEED_NAMES) {
    let invalid = 0;
    const rows = mixedRows(feed, COUNTS[feed], seed++);
    const { manifest } = await writeFeedSnapshot({
      dir: tmp.dir,
      feed,
      date: '2026-03-04',
      rows,
      generatedAt: '2026-03-04T00:05:00.000Z',
      datasetVersion: 7,
      // The two largest feeds take the external merge sort path (spilled runs).
      ...(COUNTS[feed] >= 9000 ? { runSize: 2500 } : {}),
      onInvalidRow: () => invalid++,
    });
    actual[`${feed} rows`] = `${manifest.row_count} valid, ${invalid} invalid`;
    const d = path.join(tmp.dir, feed, '2026-03-04');
    for (const name of readdirSync(d).sort())
      actual[`${feed}/${name}`] = sha256(readFileSync(path.join(d, name)));
  }
}

/** The brand-filtered and include=search downloads of ai_crawlers in every format. */
async function hashDownloads(actual: Record<string, string>): Promise<void> {
  for (const format of FEED_FORMATS) {
    for (const options of [
      { brand: 'openai' },
      { include: 'search' },
      { brand: 'Google', include: 'search' },
    ] as Record<string, string>[]) {
      const d = await openFeedFile(tmp.dir, 'ai_crawlers', '2026-03-04', format, options);
      if (!d) throw new Error('snapshot missing');
      const bytes = Buffer.concat((await collect(d.stream as Readable)) as Buffer[]);
      actual[`ai_crawlers ${format} ${new URLSearchParams(options)}`] = sha256(bytes);
    }
  }
}

describe('feed builder byte-identity (seeded 50,000 mixed rows)', () => {
  it('writes every feed, format, include file and manifest as the builder of 1f7eeeb did', async () => {
    const actual: Record<string, string> = {};
    await writeAllFeeds(actual);
    await hashDownloads(actual);
    expect(actual).toEqual(EXPECTED);
  }, 120_000);
});
