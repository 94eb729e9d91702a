import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { question, readFastQuestion } from './fast-question.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName, mappedIpv4 } from './query-name.ts';
import { createZoneContext } from './zone-context.ts';

const ZONE = 'bl.netrep.test';
const ctx = createZoneContext({ zone: ZONE, index: createListingIndex(), lookupUrl: (ip) => ip, now: 0 });
const query = (name: string, type: dnsPacket.RecordType = 'A') =>
  dnsPacket.encode({ type: 'query', id: 7, questions: [{ name, type }] });

describe('readFastQuestion', () => {
  it('reads an IPv4 name in place: address, type, zone offset, no EDNS', () => {
    expect(readFastQuestion(query(ipToQueryName('192.0.2.10', ZONE) as string, 'TXT'), ctx)).toBe(true);
    expect(question).toMatchObject({
      int: 0xc000020a,
      qtype: 16,
      ednsSize: null,
      zoneStart: 12 + 3 + 2 + 2 + 4,
    });
  });

  it('reads an IPv6 name as hex, and an IPv4-mapped one as its IPv4 address', () => {
    expect(readFastQuestion(query(ipToQueryName('2001:db8::25', ZONE) as string), ctx)).toBe(true);
    expect(question.int).toBe(-1);
    expect(question.hex).toBe('20010db8000000000000000000000025');
    expect(readFastQuestion(query(ipToQueryName('::ffff:7f00:2', ZONE) as string), ctx)).toBe(true);
    expect(question.int).toBe(0x7f000002);
  });

  it('declines names that are not addresses under the zone, and bad labels', () => {
    for (const name of [
      ZONE,
      `1.2.3.${ZONE}`,
      '4.3.2.1.example.com',
      `01.2.3.4.${ZONE}`,
      `256.2.3.4.${ZONE}`,
    ]) {
      expect(readFastQuestion(query(name), ctx)).toBe(false);
    }
  });
});

describe('mappedIpv4', () => {
  it('is the IPv4 address of ::ffff:0:0/96 and -1 for any other IPv6 address', () => {
    expect(mappedIpv4('00000000000000000000ffffc000020a')).toBe(0xc000020a);
    expect(mappedIpv4('20010db8000000000000000000000025')).toBe(-1);
    expect(mappedIpv4('00000000000000000000fffe00000001')).toBe(-1);
  });
});
