/**
 * The hand-written reputation answer (answer-json.ts) against fast-json-stringify over the
 * `ReputationData` schema as written: the same bytes for random values the schema admits, and
 * again when the same objects are written a second time (their texts are kept).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Schema, valuesOf } from '../../test/helpers/schema-values.ts';
import { reputationDataJson } from './answer-json.ts';
import { ReputationData } from './types.ts';

const bySchema = SerializerSelector()({}, {})({
  schema: ReputationData,
  method: 'GET',
  url: '/x',
  httpStatus: '200',
}) as (value: unknown) => string;

describe('reputationDataJson', () => {
  it('writes the bytes fast-json-stringify writes over the schema, for every admitted value', () => {
    fc.assert(
      fc.property(valuesOf(ReputationData as unknown as Schema), (value) => {
        const data = value as ReputationData;
        const expected = bySchema(data);
        expect(reputationDataJson(data)).toBe(expected);
        // The second time from the kept texts of the same objects.
        expect(reputationDataJson(data)).toBe(expected);
        expect(JSON.parse(expected)).toEqual(JSON.parse(JSON.stringify(data)));
      }),
      { numRuns: 500 },
    );
  });

  it('writes text that needs escapes as JSON.stringify does', () => {
    const data: ReputationData = {
      ip: '192.0.2.1',
      score: 0,
      level: 'bad',
      factors: [{ name: 'fcrdns', impact: -15, detail: 'a "quoted" \\ name\n\u0001 \ud800' }],
      history: [],
      subnet: null,
      blocklist: { listed: true },
      fcrdns: {
        ip: '192.0.2.1',
        ptr_hostname: 'mx"1\\.example',
        forward_match: false,
        forward_ips: ['192.0.2.1', '2001:db8::1'],
        last_checked_at: '2026-06-15T12:00:00.000Z',
        last_observed_at: null,
      },
    };
    expect(reputationDataJson(data)).toBe(bySchema(data));
    expect(JSON.parse(reputationDataJson(data))).toEqual(data);
  });
});
