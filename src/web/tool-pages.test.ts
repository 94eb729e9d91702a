/**
 * The tool page renderers on their own: every string (and every null, which a hostile upstream
 * could fill) of each answer replaced by markup comes out as text, and a geolocated answer shows
 * the place with the DB-IP attribution. The answers are the API's documented examples.
 */
import { describe, expect, it } from 'vitest';
import type { CheckAnswer } from '../blocklist/index.ts';
import type { DomainAuthResult } from '../emailauth/index.ts';
import type { HeaderAnalysis } from '../headers/index.ts';
import { checkBlocklistExample } from '../http/examples/blocklist.ts';
import { checkPublicBlocklistsExample } from '../http/examples/blocklists.ts';
import { lookupIpPublicExample } from '../http/examples/ip.ts';
import { analyzeHeadersExample, checkDomainExample } from '../http/examples/tools.ts';
import type { IpAnswerExtended } from '../intel/index.ts';
import type { BlocklistsAnswer } from '../listcheck/index.ts';
import { blocklistToolPage } from './blocklist-page.ts';
import { ipToolPage } from './ip-page.ts';
import { domainToolPage, headersToolPage, homePage } from './tool-pages.ts';

const XSS = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>';

/** A deep copy with every string and null replaced by the payload (numbers and booleans kept). */
function poison<T>(value: T): T {
  if (value === null || typeof value === 'string') return XSS as T;
  // A list of text gains one more entry (an empty list may hold objects, so it stays empty).
  if (Array.isArray(value))
    return [
      ...value.map(poison),
      ...(value.length > 0 && value.every((v) => typeof v === 'string') ? [XSS] : []),
    ] as T;
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v)])) as T;
  }
  return value;
}

const geolocation = {
  country_code: 'US',
  country_name: 'United States',
  region: 'California',
  region_code: 'CA',
  city: 'Mountain View',
  postal_code: '94043',
  latitude: 37.422,
  longitude: -122.085,
  accuracy_radius: 20,
  timezone: 'America/Los_Angeles',
  continent_code: 'NA',
  continent_name: 'North America',
};
const ip = { ...(lookupIpPublicExample.response as IpAnswerExtended), geolocation };
const domain: DomainAuthResult = {
  ...(checkDomainExample.response as DomainAuthResult),
  dkim: [
    {
      selector: 's1',
      record_domain: 's1._domainkey.example.com',
      found: true,
      raw: 'v=DKIM1; k=rsa; p=MIIB',
      version: 'DKIM1',
      key_type: 'rsa',
      key_bits: 1024,
      hash_algorithms: ['sha256'],
      service_type: null,
      flags: ['y'],
      testing: true,
      revoked: false,
      notes: null,
      is_valid: true,
      validation_errors: ['key shorter than 2048 bits'],
    },
  ],
};
const headers = {
  ...(analyzeHeadersExample.response as HeaderAnalysis),
  anomalies: ['Date is 3 hours after the first hop'],
};
// The many-lists example, this instance's zone listing the address as the single check's example does.
const blocklist: BlocklistsAnswer = {
  ...(checkPublicBlocklistsExample.response as BlocklistsAnswer),
  netrep: { zone: 'bl.netrep.test', ...(checkBlocklistExample.response as CheckAnswer) },
};

function expectInert(html: string) {
  expect(html).not.toMatch(/<script|<img/i);
  expect(html).toContain(
    '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;',
  );
}

describe('tool pages', () => {
  it('the IP page shows geolocation with the DB-IP attribution', () => {
    const html = ipToolPage({ ip: '8.8.8.8', answer: ip });
    expect(html).toContain('<dt>City</dt><dd>Mountain View</dd>');
    expect(html).toContain('<dt>Coordinates</dt><dd>37.422, -122.085</dd>');
    expect(html).toContain('<dt>Accuracy</dt><dd>20 km</dd>');
    expect(html).toContain('<a href="https://db-ip.com">IP Geolocation by DB-IP</a>');
  });

  it('every field of every answer is escaped', () => {
    expectInert(ipToolPage({ ip: XSS, answer: poison(ip), error: XSS }));
    expectInert(domainToolPage({ domain: XSS, answer: poison(domain), error: XSS }));
    expectInert(headersToolPage({ headers: XSS, answer: poison(headers), error: XSS }));
    expectInert(blocklistToolPage({ ip: XSS, answer: poison(blocklist), error: XSS }));
  });

  it('each page is a complete document with a form, a label for each field and one h1', () => {
    for (const html of [
      homePage({ datasetVersion: 3, perMinute: 60 }),
      ipToolPage({}),
      domainToolPage({}),
      headersToolPage({ answer: headers }),
      blocklistToolPage({ answer: blocklist }),
    ]) {
      expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
      expect(html.match(/<h1>/g)).toHaveLength(1);
      for (const id of html.matchAll(
        /<(?:input|textarea) type="text" id="([a-z]+)"|<textarea id="([a-z]+)"/g,
      )) {
        expect(html).toContain(`<label for="${id[1] ?? id[2]}">`);
      }
    }
    expect(headersToolPage({ answer: headers })).toContain('<li>Date is 3 hours after the first hop</li>');
    expect(blocklistToolPage({ answer: blocklist })).toContain('<strong>Listed</strong> for spam');
    const dkim = domainToolPage({ answer: domain });
    expect(dkim).toContain('<code>s1._domainkey.example.com</code>: rsa key, 1024 bits, testing');
    expect(dkim).toContain('<li>Error: s1: key shorter than 2048 bits</li>');
  });
});
