import dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerGeneral } from './answer.ts';
import { answerFast, answerFastInto } from './fast-path.ts';
import { createListingIndex } from './listing-index.ts';
import { ipToQueryName } from './query-name.ts';
import { createZoneContext } from './zone-context.ts';

const ZONE = 'bl.netrep.test';
const index = createListingIndex([
  { ip: '192.0.2.10', returnCode: '127.0.0.3', reason: 'malware' },
  { ip: '2001:db8::25', returnCode: '127.0.0.4', reason: 'x'.repeat(700) },
]);
const ctx = createZoneContext({ zone: ZONE, index, lookupUrl: (ip) => `http://h/ip/${ip}`, now: 1e12 });

describe('fast answer path', () => {
  it('gives byte-for-byte the same meaning as the dns-packet path for address queries', () => {
    const ip = fc.constantFrom(
      '192.0.2.10',
      '192.0.2.11',
      '127.0.0.2',
      '127.0.0.1',
      '2001:db8::25',
      '2001:db8::26',
      '::ffff:7f00:2',
    );
    const query = fc.record({
      ip,
      type: fc.constantFrom('A', 'TXT', 'MX', 'AAAA') as fc.Arbitrary<dnsPacket.RecordType>,
      edns: fc.option(fc.integer({ min: 0, max: 65535 })),
      upper: fc.boolean(),
      tcp: fc.boolean(),
      rd: fc.boolean(),
    });
    fc.assert(
      fc.property(query, (q) => {
        const name = ipToQueryName(q.ip, ZONE) as string;
        const buf = dnsPacket.encode({
          type: 'query',
          id: 4242,
          flags: q.rd ? dnsPacket.RECURSION_DESIRED : 0,
          questions: [{ name: q.upper ? name.toUpperCase() : name, type: q.type }],
          additionals:
            q.edns === null
              ? []
              : [
                  {
                    name: '.',
                    type: 'OPT',
                    udpPayloadSize: q.edns,
                    extendedRcode: 0,
                    ednsVersion: 0,
                    flags: 0,
                    flag_do: false,
                    options: [],
                  },
                ],
        });
        const fast = answerFast(buf, ctx, q.tcp);
        const general = answerGeneral(buf, ctx, q.tcp);
        expect(fast).toBeDefined();
        if (!q.tcp) {
          // Written in place (the batched UDP path): the same bytes, read from a slot with stale
          // bytes after the message and written over a slot's old contents.
          const slot = Buffer.alloc(65_536, 0xa5);
          buf.copy(slot);
          const out = Buffer.alloc(65_536, 0x5a);
          const n = answerFastInto(slot, buf.length, ctx, out);
          expect(out.subarray(0, n).equals(fast as Buffer)).toBe(true);
        }
        const a = dnsPacket.decode(fast as Buffer);
        const b = dnsPacket.decode(general as Buffer);
        expect(a.flags).toBe(b.flags);
        expect(a.questions).toEqual(b.questions);
        expect(a.answers).toEqual(b.answers);
        expect(a.authorities?.map((r) => r.type)).toEqual(b.authorities?.map((r) => r.type));
        expect(a.additionals).toEqual(b.additionals);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  it('declines what it does not handle, leaving it to the general path', () => {
    const apex = dnsPacket.encode({ type: 'query', id: 1, questions: [{ name: ZONE, type: 'SOA' }] });
    expect(answerFast(apex, ctx, false)).toBeUndefined();
    const outside = dnsPacket.encode({
      type: 'query',
      id: 1,
      questions: [{ name: '1.2.3.4.example.com', type: 'A' }],
    });
    expect(answerFast(outside, ctx, false)).toBeUndefined();
    expect(answerFast(Buffer.alloc(11), ctx, false)).toBeUndefined();
    // In place: a message shorter than its slot is read to its own length, not the slot's.
    const listed = dnsPacket.encode({
      type: 'query',
      id: 1,
      questions: [{ name: ipToQueryName('192.0.2.10', ZONE) as string, type: 'A' }],
    });
    const slot = Buffer.alloc(65_536);
    listed.copy(slot);
    expect(answerFastInto(slot, listed.length, ctx, Buffer.alloc(65_536))).toBeGreaterThan(0);
    expect(answerFastInto(slot, listed.length - 1, ctx, Buffer.alloc(65_536))).toBe(-1);
    expect(answerFastInto(slot, 11, ctx, Buffer.alloc(65_536))).toBe(-1);
  });
});
