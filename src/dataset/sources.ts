/** Data table: the upstream files a build knows, laid out as in shared/data (`--from DIR`
 * reads them from there; `dataset update` downloads each `url` to the same relative path).
 * Every entry names the layer it feeds; see README.md beside it for the merge precedence.
 */
export type SourceKind =
  | 'tor-exit-addresses'
  | 'tor-list'
  | 'cloud'
  | 'ai-crawler'
  | 'datacenter-list'
  | 'vpn-list'
  | 'datacenter-asns'
  | 'vpn-asns'
  | 'drop'
  | 'edrop'
  | 'asn-drop'
  | 'uce1'
  | 'uce2'
  | 'uce3'
  | 'rir'
  | 'iana'
  | 'rpki'
  | 'geofeed'
  | 'proxy-list'
  | 'as-class';

export type SourceFormat =
  | 'plain'
  | 'tor-exit'
  | 'aws'
  | 'google'
  | 'azure'
  | 'oracle'
  | 'fastly'
  | 'github'
  | 'cloud-ips'
  | 'geofeed-csv'
  | 'vultr-json'
  | 'drop-text'
  | 'drop-json'
  | 'asndrop-json'
  | 'asndrop-text'
  | 'ip4set'
  | 'asn-list'
  | 'rir'
  | 'iana'
  | 'rpki-json'
  | 'spys-proxy'
  | 'ip-port'
  | 'netset'
  | 'caida-as2types';

/**
 * What a crawler's requests are for (docs/architecture.md "Crawlers"): `ai_training` gathers model training
 * data, `ai_assistant` fetches for an AI assistant, agent or AI answer engine, `search` indexes
 * for a search engine (or serves one of its non-AI services). Only the first two are AI crawlers.
 */
export type CrawlerPurpose = 'ai_training' | 'ai_assistant' | 'search';

export function isAiPurpose(p: CrawlerPurpose | null | undefined): boolean {
  return p === 'ai_training' || p === 'ai_assistant';
}

/** Proxy lists churn within days: a downloaded list older than this is left out of the build (docs/architecture.md). */
export const PROXY_MAX_AGE_DAYS = 3;

export interface SourceSpec {
  /** Stable name used in manifests, asn_reputation.sources and NETREP_DATASET_SOURCES. */
  id: string;
  path: string;
  url: string;
  kind: SourceKind;
  format: SourceFormat;
  /** cloud_provider or crawler operator this file names. */
  label?: string;
  /** ai-crawler sources: the crawler's name and what it crawls for. */
  crawler?: { name: string; purpose: CrawlerPurpose };
  /**
   * Age-out: in builds from the data dir's own downloads (`dataset update`), a file fetched more
   * than this many days before the build is left out (a failed download keeps the old copy).
   */
  maxAgeDays?: number;
}

const GH = 'https://raw.githubusercontent.com';

export const UPSTREAM_SOURCES: readonly SourceSpec[] = [
  {
    id: 'tor-exit-addresses',
    path: 'tor/exit-addresses',
    url: 'https://check.torproject.org/exit-addresses',
    kind: 'tor-exit-addresses',
    format: 'tor-exit',
  },
  {
    id: 'tor-bulk-exit-list',
    path: 'tor/torbulkexitlist.txt',
    url: 'https://check.torproject.org/torbulkexitlist',
    kind: 'tor-list',
    format: 'plain',
  },
  {
    id: 'aws',
    path: 'cloud/aws/ip-ranges.json',
    url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
    kind: 'cloud',
    format: 'aws',
    label: 'AWS',
  },
  {
    id: 'google-cloud',
    path: 'cloud/google/cloud.json',
    url: 'https://www.gstatic.com/ipranges/cloud.json',
    kind: 'cloud',
    format: 'google',
    label: 'Google Cloud',
  },
  {
    id: 'google',
    path: 'cloud/google/goog.json',
    url: 'https://www.gstatic.com/ipranges/goog.json',
    kind: 'cloud',
    format: 'google',
    label: 'Google',
  },
  {
    id: 'azure',
    path: 'cloud/azure/ServiceTags_Public.json',
    url: 'https://download.microsoft.com/download/7/1/D/71D86715-5596-4529-9B13-DA13A5DE5B63/ServiceTags_Public.json',
    kind: 'cloud',
    format: 'azure',
    label: 'Microsoft Azure',
  },
  {
    id: 'oracle',
    path: 'cloud/oracle/public_ip_ranges.json',
    url: 'https://docs.oracle.com/iaas/tools/public_ip_ranges.json',
    kind: 'cloud',
    format: 'oracle',
    label: 'Oracle Cloud',
  },
  {
    id: 'cloudflare-v4',
    path: 'cloud/cloudflare/ips-v4.txt',
    url: 'https://www.cloudflare.com/ips-v4',
    kind: 'cloud',
    format: 'plain',
    label: 'Cloudflare',
  },
  {
    id: 'cloudflare-v6',
    path: 'cloud/cloudflare/ips-v6.txt',
    url: 'https://www.cloudflare.com/ips-v6',
    kind: 'cloud',
    format: 'plain',
    label: 'Cloudflare',
  },
  {
    id: 'digitalocean',
    path: 'cloud/digitalocean/google.csv',
    url: 'https://digitalocean.com/geo/google.csv',
    kind: 'cloud',
    format: 'geofeed-csv',
    label: 'DigitalOcean',
  },
  {
    id: 'fastly',
    path: 'cloud/fastly/public-ip-list.json',
    url: 'https://api.fastly.com/public-ip-list',
    kind: 'cloud',
    format: 'fastly',
    label: 'Fastly',
  },
  {
    id: 'github',
    path: 'cloud/github/meta.json',
    url: 'https://api.github.com/meta',
    kind: 'cloud',
    format: 'github',
    label: 'GitHub',
  },
  {
    id: 'hetzner',
    path: 'cloud/hetzner/hetzner.cloud-ips.json',
    url: `${GH}/jonhadfield/cloud-ips/main/hetzner.json`,
    kind: 'cloud',
    format: 'cloud-ips',
    label: 'Hetzner',
  },
  {
    id: 'ovh',
    path: 'cloud/ovh/ovh.cloud-ips.json',
    url: `${GH}/jonhadfield/cloud-ips/main/ovh.json`,
    kind: 'cloud',
    format: 'cloud-ips',
    label: 'OVHcloud',
  },
  {
    id: 'akamai-v4',
    path: 'cloud/akamai/akamai_ipv4_CIDRs.txt',
    url: `${GH}/femueller/cloud-ip-ranges/master/akamai-v4-ip-ranges.txt`,
    kind: 'cloud',
    format: 'plain',
    label: 'Akamai',
  },
  {
    id: 'akamai-v6',
    path: 'cloud/akamai/akamai_ipv6_CIDRs.txt',
    url: `${GH}/femueller/cloud-ip-ranges/master/akamai-v6-ip-ranges.txt`,
    kind: 'cloud',
    format: 'plain',
    label: 'Akamai',
  },
  {
    id: 'linode-geofeed',
    path: 'geofeed/linode-geofeed.csv',
    url: 'https://geoip.linode.com/',
    kind: 'geofeed',
    format: 'geofeed-csv',
    label: 'Linode',
  },
  {
    id: 'vultr-geofeed',
    path: 'geofeed/vultr-geofeed.json',
    url: 'https://geofeed.constant.com/?json',
    kind: 'geofeed',
    format: 'vultr-json',
    label: 'Vultr',
  },
  {
    id: 'starlink-geofeed',
    path: 'geofeed/starlink-geofeed.csv',
    url: 'https://geoip.starlinkisp.net/feed.csv',
    kind: 'geofeed',
    format: 'geofeed-csv',
  },
  {
    id: 'googlebot',
    path: 'bots/google/googlebot.json',
    url: 'https://developers.google.com/static/search/apis/ipranges/googlebot.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Google',
    crawler: { name: 'Googlebot', purpose: 'search' },
  },
  {
    id: 'google-special-crawlers',
    path: 'bots/google/special-crawlers.json',
    url: 'https://developers.google.com/static/search/apis/ipranges/special-crawlers.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Google',
    crawler: { name: 'Google special-case crawlers (AdsBot and others)', purpose: 'search' },
  },
  {
    id: 'google-user-triggered-fetchers',
    path: 'bots/google/user-triggered-fetchers.json',
    url: 'https://developers.google.com/static/search/apis/ipranges/user-triggered-fetchers.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Google',
    crawler: { name: 'Google user-triggered fetchers', purpose: 'search' },
  },
  {
    id: 'openai-gptbot',
    path: 'bots/openai/gptbot.json',
    url: 'https://openai.com/gptbot.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'OpenAI',
    crawler: { name: 'GPTBot', purpose: 'ai_training' },
  },
  {
    id: 'openai-searchbot',
    path: 'bots/openai/searchbot.json',
    url: 'https://openai.com/searchbot.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'OpenAI',
    crawler: { name: 'OAI-SearchBot', purpose: 'ai_assistant' },
  },
  {
    id: 'openai-chatgpt-user',
    path: 'bots/openai/chatgpt-user.json',
    url: 'https://openai.com/chatgpt-user.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'OpenAI',
    crawler: { name: 'ChatGPT-User', purpose: 'ai_assistant' },
  },
  {
    id: 'bingbot',
    path: 'bots/bing/bingbot.json',
    url: 'https://www.bing.com/toolbox/bingbot.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Microsoft',
    crawler: { name: 'Bingbot', purpose: 'search' },
  },
  {
    id: 'perplexitybot',
    path: 'bots/perplexity/perplexitybot.json',
    url: 'https://www.perplexity.ai/perplexitybot.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Perplexity',
    crawler: { name: 'PerplexityBot', purpose: 'ai_assistant' },
  },
  {
    id: 'perplexity-user',
    path: 'bots/perplexity/perplexity-user.json',
    url: 'https://www.perplexity.ai/perplexity-user.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Perplexity',
    crawler: { name: 'Perplexity-User', purpose: 'ai_assistant' },
  },
  {
    id: 'applebot',
    path: 'bots/apple/applebot.json',
    url: 'https://search.developer.apple.com/applebot.json',
    kind: 'ai-crawler',
    format: 'google',
    label: 'Apple',
    crawler: { name: 'Applebot', purpose: 'search' },
  },
  {
    id: 'duckduckbot',
    path: 'bots/duckduckgo/duckduckbot-ipv4.txt',
    url: `${GH}/lord-alfred/ipranges/main/duckduckbot/ipv4.txt`,
    kind: 'ai-crawler',
    format: 'plain',
    label: 'DuckDuckGo',
    crawler: { name: 'DuckDuckBot', purpose: 'search' },
  },
  {
    id: 'x4bnet-datacenter-v4',
    path: 'vpn-datacenter/x4bnet/datacenter-ipv4.txt',
    url: `${GH}/X4BNet/lists_vpn/main/output/datacenter/ipv4.txt`,
    kind: 'datacenter-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-datacenter-v6',
    path: 'vpn-datacenter/x4bnet/datacenter-ipv6.txt',
    url: `${GH}/X4BNet/lists_vpn/main/output/datacenter/ipv6.txt`,
    kind: 'datacenter-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-vpn-v4',
    path: 'vpn-datacenter/x4bnet/vpn-ipv4.txt',
    url: `${GH}/X4BNet/lists_vpn/main/output/vpn/ipv4.txt`,
    kind: 'vpn-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-vpn-v6',
    path: 'vpn-datacenter/x4bnet/vpn-ipv6.txt',
    url: `${GH}/X4BNet/lists_vpn/main/output/vpn/ipv6.txt`,
    kind: 'vpn-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-vpn-mullvad',
    path: 'vpn-datacenter/x4bnet/input-vpn-mullvadvpn.txt',
    url: `${GH}/X4BNet/lists_vpn/main/input/vpn/ips/mullvadvpn.txt`,
    kind: 'vpn-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-vpn-pia',
    path: 'vpn-datacenter/x4bnet/input-vpn-pia.txt',
    url: `${GH}/X4BNet/lists_vpn/main/input/vpn/ips/pia.txt`,
    kind: 'vpn-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-vpn-protonvpn',
    path: 'vpn-datacenter/x4bnet/input-vpn-protonvpn.txt',
    url: `${GH}/X4BNet/lists_vpn/main/input/vpn/ips/protonvpn.txt`,
    kind: 'vpn-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-vpn-apple-private-relay',
    path: 'vpn-datacenter/x4bnet/input-vpn-apple-private-relay.txt',
    url: `${GH}/X4BNet/lists_vpn/main/input/vpn/ips/apple.txt`,
    kind: 'vpn-list',
    format: 'plain',
  },
  {
    id: 'x4bnet-datacenter-asns',
    path: 'vpn-datacenter/x4bnet/input-datacenter-ASN.txt',
    url: `${GH}/X4BNet/lists_vpn/main/input/datacenter/ASN.txt`,
    kind: 'datacenter-asns',
    format: 'asn-list',
  },
  {
    id: 'x4bnet-vpn-asns',
    path: 'vpn-datacenter/x4bnet/input-vpn-ASN.txt',
    url: `${GH}/X4BNet/lists_vpn/main/input/vpn/ASN.txt`,
    kind: 'vpn-asns',
    format: 'asn-list',
  },
  {
    id: 'spys-me-proxies',
    path: 'proxy/clarketm/proxy-list.txt',
    url: 'https://spys.me/proxy.txt',
    kind: 'proxy-list',
    format: 'spys-proxy',
    maxAgeDays: PROXY_MAX_AGE_DAYS,
  },
  {
    id: 'clarketm-proxies',
    path: 'proxy/clarketm/proxy-list-raw.txt',
    url: `${GH}/clarketm/proxy-list/master/proxy-list-raw.txt`,
    kind: 'proxy-list',
    format: 'ip-port',
    maxAgeDays: PROXY_MAX_AGE_DAYS,
  },
  {
    id: 'thespeedx-http-proxies',
    path: 'proxy/thespeedx/http.txt',
    url: `${GH}/TheSpeedX/PROXY-List/master/http.txt`,
    kind: 'proxy-list',
    format: 'ip-port',
    maxAgeDays: PROXY_MAX_AGE_DAYS,
  },
  {
    id: 'firehol-proxies',
    path: 'proxy/firehol/firehol_proxies.netset',
    url: 'https://iplists.firehol.org/files/firehol_proxies.netset',
    kind: 'proxy-list',
    format: 'netset',
    maxAgeDays: PROXY_MAX_AGE_DAYS,
  },
  {
    id: 'caida-as-classification',
    path: 'asn-class/caida/20210401.as2types.txt',
    // CAIDA's latest release (2021-04-01); the files are dated, there is no "latest" name.
    url: 'https://publicdata.caida.org/datasets/as-classification/20210401.as2types.txt.gz',
    kind: 'as-class',
    format: 'caida-as2types',
  },
  {
    id: 'spamhaus-drop',
    path: 'spamhaus/drop_v4.json',
    url: 'https://www.spamhaus.org/drop/drop_v4.json',
    kind: 'drop',
    format: 'drop-json',
  },
  {
    id: 'spamhaus-drop-text',
    path: 'spamhaus/drop.txt',
    url: 'https://www.spamhaus.org/drop/drop.txt',
    kind: 'drop',
    format: 'drop-text',
  },
  {
    id: 'spamhaus-dropv6',
    path: 'spamhaus/dropv6.txt',
    url: 'https://www.spamhaus.org/drop/dropv6.txt',
    kind: 'drop',
    format: 'drop-text',
  },
  {
    id: 'spamhaus-edrop',
    path: 'spamhaus/edrop.txt',
    url: 'https://www.spamhaus.org/drop/edrop.txt',
    kind: 'edrop',
    format: 'drop-text',
  },
  {
    id: 'spamhaus-asndrop',
    path: 'spamhaus/asndrop.json',
    url: 'https://www.spamhaus.org/drop/asndrop.json',
    kind: 'asn-drop',
    format: 'asndrop-json',
  },
  {
    id: 'uceprotect-level1',
    path: 'dnsbl/uceprotect/dnsbl-1.uceprotect.net',
    url: `${GH}/UninvitedActivity/UninvitedActivity/main/dnsbl-1.uceprotect.net`,
    kind: 'uce1',
    format: 'ip4set',
  },
  {
    id: 'uceprotect-level2',
    path: 'dnsbl/uceprotect/dnsbl-2.uceprotect.net',
    url: `${GH}/UninvitedActivity/UninvitedActivity/main/dnsbl-2.uceprotect.net`,
    kind: 'uce2',
    format: 'ip4set',
  },
  {
    id: 'uceprotect-level3',
    path: 'dnsbl/uceprotect/uceprotect-3-NetworkRanges.derived.txt',
    url: `${GH}/UninvitedActivity/UninvitedActivity/main/SpamMailServerLists/uceprotect-3-NetworkRanges.txt`,
    kind: 'uce3',
    format: 'plain',
  },
  {
    id: 'rir-afrinic',
    path: 'rir/delegated-afrinic-extended-20260505',
    url: 'https://ftp.afrinic.net/stats/afrinic/delegated-afrinic-extended-latest',
    kind: 'rir',
    format: 'rir',
  },
  {
    id: 'rir-apnic',
    path: 'rir/delegated-apnic-20210715',
    url: 'https://ftp.apnic.net/stats/apnic/delegated-apnic-extended-latest',
    kind: 'rir',
    format: 'rir',
  },
  {
    id: 'rir-lacnic',
    path: 'rir/delegated-lacnic-extended-20181012',
    url: 'https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-extended-latest',
    kind: 'rir',
    format: 'rir',
  },
  {
    id: 'rir-arin',
    path: 'rir/subsets-2019/delegated-arin-extended-subset',
    url: 'https://ftp.arin.net/pub/stats/arin/delegated-arin-extended-latest',
    kind: 'rir',
    format: 'rir',
  },
  {
    id: 'rir-ripencc',
    path: 'rir/subsets-2019/delegated-ripencc-extended-subset',
    url: 'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
    kind: 'rir',
    format: 'rir',
  },
  {
    id: 'iana-ipv4',
    path: 'iana/ipv4-address-space.csv',
    url: 'https://www.iana.org/assignments/ipv4-address-space/ipv4-address-space.csv',
    kind: 'iana',
    format: 'iana',
  },
  {
    id: 'iana-ipv6',
    path: 'iana/ipv6-unicast-address-assignments.csv',
    url: 'https://www.iana.org/assignments/ipv6-unicast-address-assignments/ipv6-unicast-address-assignments.csv',
    kind: 'iana',
    format: 'iana',
  },
  {
    id: 'rpki',
    path: 'rpki/rpki-client-output-2023-05-04.json.gz',
    url: 'https://console.rpki-client.org/vrps.json',
    kind: 'rpki',
    format: 'rpki-json',
  },
];
