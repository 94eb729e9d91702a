/**
 * The IP page's severity (issue 36 item 4): each threat level in its own colour class AND words,
 * the warning signs (Tor exit, open proxy, DROP) as danger or warning items apart from neutral
 * facts such as "Datacenter or hosting: yes", RPKI and the country sources in plain words, and a
 * bogon's page saying why it is empty. The answers start from the API's documented example.
 */
import { describe, expect, it } from 'vitest';
import { lookupIpPublicExample } from '../http/examples/ip.ts';
import type { IpAnswerExtended } from '../intel/index.ts';
import { ipToolPage } from './ip-page.ts';

const base = lookupIpPublicExample.response as IpAnswerExtended;

function answer(changes: Partial<IpAnswerExtended>): IpAnswerExtended {
  return structuredClone({ ...base, ...changes });
}

const critical = answer({
  netrep: { ...base.netrep, is_tor_exit: true, is_proxy: true },
  proxy: { anonymity: 'elite' },
  threat: {
    score: 100,
    level: 'critical',
    explanation: [
      '+60 active blocklist listing (malware)',
      '+50 prefix on Spamhaus DROP',
      '+35 Tor exit relay',
      '+30 public proxy',
      '+20 pristine spam trap hit in the last 30 days',
    ],
  },
  asn_reputation: {
    ...(base.asn_reputation as NonNullable<IpAnswerExtended['asn_reputation']>),
    provider_drop: true,
  },
  rpki_status: 'invalid',
  country: 'DE',
  geo_consensus: {
    agreement: 0.333,
    primary_country: 'PL',
    providers: [
      { provider: 'dbip-city', country: 'PL', city: 'Warsaw' },
      { provider: 'geo-whois-asn-country', country: 'DE', city: null },
      { provider: 'asn-country', country: 'NL', city: null },
    ],
  },
  provenance: { country: { sources: ['geo-whois-asn-country'], dataset_version: 1 } },
});

const { cloud_provider: _cloud, ...plainFlags } = base.netrep;
const clean = answer({
  netrep: { ...plainFlags, is_datacenter: false },
  threat: { score: 0, level: 'low', explanation: [] },
  rpki_status: 'valid',
});

describe('IP page severity', () => {
  it('a critical address: the level in words and colour, each warning sign as danger or warning', () => {
    const html = ipToolPage({ ip: '8.8.8.8', answer: critical });
    expect(html).toContain('<span class="level level-critical">Threat level: Critical</span>');
    expect(html).toContain('<strong>100</strong>/100: strong evidence of abuse');
    for (const sign of [
      "Danger: On this instance's blocklist.",
      'Danger: Spam trap hit.',
      'Danger: Tor exit node.',
      'Danger: Open proxy (elite).',
      'Danger: On Spamhaus DROP.',
    ])
      expect(html).toContain(`<li class="danger"><strong>${sign.replace("'", '&#39;')}</strong>`);
    expect(html).toContain('<li class="warning"><strong>Warning: RPKI invalid.</strong>');
    // Datacenter is a neutral fact, not a warning sign.
    expect(html).toContain('<dt>Datacenter or hosting</dt><dd>yes (Google)</dd>');
    expect(html).not.toMatch(/class="(danger|warning)"><strong>[^<]*Datacenter/);
  });

  it('RPKI and the country sources in plain words', () => {
    const html = ipToolPage({ ip: '8.8.8.8', answer: critical });
    expect(html).toContain(
      'the announcing AS is not authorised by the prefix holder&#39;s ROA, or announces a longer prefix than the ROA allows: possible hijack or misconfiguration',
    );
    expect(html).toContain('<li>DB-IP city (where the address is used, estimated): <strong>PL</strong></li>');
    expect(html).toContain('<li>registry records (geo-whois-asn-country): <strong>DE</strong></li>');
    expect(html).toContain(
      "The answer's country, <strong>DE</strong>, is the country the network is registered to",
    );
    expect(html).toContain('(here: geo-whois-asn-country)');
    expect(html).toContain('1 of 3 sources say PL.');
    expect(html).not.toContain('agree');
    expect(ipToolPage({ answer: clean })).toContain('Valid: the AS announcing this network is the one');
    expect(ipToolPage({ answer: answer({ rpki_status: 'not-found' }) })).toContain(
      'Not found: no ROA covers',
    );
  });

  it('a clean address: level None in green, no warning signs', () => {
    const html = ipToolPage({ ip: '8.8.8.8', answer: clean });
    expect(html).toContain('<span class="level level-none">Threat level: None</span>');
    expect(html).toContain('<li class="clear"><strong>No warning signs.</strong>');
    expect(html).not.toContain('class="danger"');
  });

  it('every level has its own class and word', () => {
    const seen = new Set<string>();
    for (const [score, level] of [
      [90, 'critical'],
      [60, 'high'],
      [30, 'medium'],
      [5, 'low'],
      [0, 'low'],
    ] as const) {
      const html = ipToolPage({ answer: answer({ threat: { score, level, explanation: [] } }) });
      const badge = /<span class="level (level-[a-z]+)">Threat level: ([A-Za-z]+)<\/span>/.exec(html);
      seen.add(`${badge?.[1]} ${badge?.[2]}`);
    }
    expect([...seen]).toEqual([
      'level-critical Critical',
      'level-high High',
      'level-medium Medium',
      'level-low Low',
      'level-none None',
    ]);
  });

  it('a bogon says why there is nothing to show', () => {
    const html = ipToolPage({
      ip: '10.1.2.3',
      answer: answer({ ip: '10.1.2.3', prefix: '10.0.0.0/8', bogon: true, asn: null }),
    });
    expect(html).toContain('10.1.2.3 is not a public address');
    expect(html).toContain('not routed on the public internet');
    expect(html).not.toContain('id="signs-h"');
  });
});
