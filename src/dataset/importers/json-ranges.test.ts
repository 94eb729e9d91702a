import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseAwsIpRanges } from './aws-ip-ranges.ts';
import { parseAzureServiceTags } from './azure-service-tags.ts';
import { ImportFormatError } from './cidr-rows.ts';
import { parseCloudIpsJson } from './cloud-ips-json.ts';
import { parseFastlyRanges } from './fastly-ranges.ts';
import { parseGithubMeta } from './github-meta.ts';
import { parseGoogleStyleRanges } from './google-ranges.ts';
import { parseOracleRanges } from './oracle-ranges.ts';

const read = (p: string) => readFileSync(sharedDataPath(p));

describe('cloud and crawler JSON range formats', () => {
  it('AWS: v4 and v6, duplicates across services merged', () => {
    const r = parseAwsIpRanges(read('cloud/aws/ip-ranges.json'));
    expect(r.rejected).toEqual([]);
    expect(r.createDate).toBe('2026-08-21-07-37-05');
    expect(r.rows.some((x) => x.family === 6)).toBe(true);
    expect(new Set(r.rows.map((x) => `${x.family}:${x.start}:${x.end}`)).size).toBe(r.rows.length);
  });

  it('Google cloud.json, goog.json and crawler files', () => {
    const cloud = parseGoogleStyleRanges(read('cloud/google/cloud.json'));
    expect(cloud.rows.length).toBe(1092);
    expect(cloud.rows[0]).toMatchObject({
      service: 'Google Cloud',
      region: 'africa-south1',
      prefixLength: 20,
    });
    for (const f of [
      'cloud/google/goog.json',
      'bots/google/googlebot.json',
      'bots/openai/gptbot.json',
      'bots/bing/bingbot.json',
      'bots/apple/applebot.json',
      'bots/perplexity/perplexitybot.json',
    ]) {
      const r = parseGoogleStyleRanges(read(f));
      expect(r.rejected, f).toEqual([]);
      expect(r.rows.length, f).toBeGreaterThan(3);
      expect(r.creationTime, f).toMatch(/^20\d\d-/);
    }
  });

  it('Azure, Oracle, Fastly, GitHub, Hetzner, OVH', () => {
    const az = parseAzureServiceTags(read('cloud/azure/ServiceTags_Public.json'));
    expect(az.changeNumber).toBe(363);
    expect(az.rejected).toEqual([]);
    expect(az.rows.length).toBeGreaterThan(10_000);
    expect(parseOracleRanges(read('cloud/oracle/public_ip_ranges.json')).rows.length).toBeGreaterThan(1000);
    expect(parseFastlyRanges(read('cloud/fastly/public-ip-list.json')).rows.length).toBe(19 + 2);
    const gh = parseGithubMeta(read('cloud/github/meta.json'));
    expect(gh.rejected).toEqual([]);
    expect(gh.rows.length).toBeGreaterThan(100);
    expect(parseCloudIpsJson(read('cloud/hetzner/hetzner.cloud-ips.json')).rows.length).toBe(774);
    expect(parseCloudIpsJson(read('cloud/ovh/ovh.cloud-ips.json')).rows.length).toBe(765);
  });

  it('hostile JSON: truncated document, wrong shape, bad prefixes', () => {
    const text = readFileSync(sharedDataPath('bots/openai/gptbot.json'), 'utf8');
    expect(() => parseGoogleStyleRanges(text.slice(0, text.length / 2))).toThrow(ImportFormatError);
    expect(() => parseGoogleStyleRanges('{"prefixes": 5}')).toThrow(/missing array "prefixes"/);
    const r = parseGoogleStyleRanges(
      JSON.stringify({
        prefixes: [
          { ipv4Prefix: '1.2.3.0/24' },
          { ipv4Prefix: '1.2.3.0/33' },
          { ipv6Prefix: 7 },
          'x',
          { ipv4Prefix: '1.2.3.0/24' },
        ],
      }),
    );
    expect(r.rows).toHaveLength(1);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'invalid CIDR',
      'prefix is not a string',
      'invalid CIDR',
    ]);
  });
});
