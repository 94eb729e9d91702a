import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Schema, valuesOf } from '../../test/helpers/schema-values.ts';
import { ReputationData, reputationDataJson } from '../reputation/index.ts';
import { KNOWN } from './openapi-schemas.ts';
import { envelope } from './schemas.ts';
import { buildSerializer, serializableSchema } from './serializer.ts';

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });
const asWritten = (schema: unknown) => SerializerSelector()({}, {})(route(schema));
const rewritten = (schema: unknown) => buildSerializer({}, {})(route(schema));

const unions = (schema: unknown): number =>
  Array.isArray(schema)
    ? schema.reduce((n: number, s) => n + unions(s), 0)
    : typeof schema === 'object' && schema !== null
      ? Object.entries(schema).reduce(
          (n, [k, v]) => n + (k === 'anyOf' ? 1 : 0) + (k === 'const' || k === 'enum' ? 0 : unions(v)),
          0,
        )
      : 0;

describe('response serializer (serializer.ts)', () => {
  it.each(KNOWN.map(([name, schema]) => [name, schema] as const))(
    '%s: the same bytes as fast-json-stringify over the schema as written, for every admitted value',
    (_name, schema) => {
      const before = asWritten(schema);
      const after = rewritten(schema);
      fc.assert(
        fc.property(valuesOf(schema as unknown as Schema), (value) => {
          const text = after(value);
          expect(text).toBe(before(value));
          expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        }),
        { numRuns: 150 },
      );
    },
  );

  it('an envelope with a data writer: the bytes of the envelope schema as written, meta included', () => {
    const bySchema = asWritten(envelope(ReputationData));
    const byWriter = rewritten(envelope(ReputationData, reputationDataJson));
    const payloads = fc.record({
      data: valuesOf(ReputationData as unknown as Schema),
      meta: fc.record(
        {
          processing_time_ms: fc.integer({ min: 0, max: 60_000 }),
          request_id: fc.uuid(),
          cache_status: fc.constantFrom('HIT', 'MISS'),
          extra: fc.string(),
        },
        { requiredKeys: ['processing_time_ms'] },
      ),
    });
    fc.assert(
      fc.property(payloads, (payload) => {
        expect(byWriter(payload)).toBe(bySchema(payload));
      }),
      { numRuns: 200 },
    );
    // Not an envelope: the schema's own serializer decides (as without a writer).
    expect(() => byWriter({ nope: 1 })).toThrow();
    expect(() => bySchema({ nope: 1 })).toThrow();
  });

  it('a record of nullable items (the batch lookup answer) keeps its nulls', () => {
    const schema = Type.Record(Type.String(), Type.Union([Type.Object({ a: Type.Integer() }), Type.Null()]));
    const value = { '1.1.1.1': { a: 1 }, 'x"y': null };
    expect(rewritten(schema)(value)).toBe(asWritten(schema)(value));
    expect(rewritten(schema)(value)).toBe('{"1.1.1.1":{"a":1},"x\\"y":null}');
  });

  it('the reputation answer keeps no union to validate per value, and the input schema is unchanged', () => {
    const copy = JSON.stringify(ReputationData);
    const out = serializableSchema(ReputationData);
    expect(unions(ReputationData)).toBeGreaterThan(0);
    expect(unions(out)).toBe(0);
    expect(JSON.stringify(ReputationData)).toBe(copy);
  });

  it('leaves unions it cannot write without validation as they are', () => {
    const twoObjects = Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Integer() })]);
    const mixedLiterals = Type.Union([Type.Literal('a'), Type.Literal(1)]);
    expect(serializableSchema(twoObjects)).toEqual(JSON.parse(JSON.stringify(twoObjects)));
    expect(serializableSchema(mixedLiterals)).toEqual(JSON.parse(JSON.stringify(mixedLiterals)));
  });
});
