import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReputationData } from '../reputation/index.ts';
import { KNOWN } from './openapi-schemas.ts';
import { buildSerializer, serializableSchema } from './serializer.ts';

type Schema = Record<string, unknown>;

/**
 * Values a JSON schema admits, for the keywords the domains' answer schemas use (TypeBox's
 * output): objects (required and optional properties, records), arrays, strings (date-time
 * or date formatted, or any text), integers, numbers, booleans, null, const, enum, anyOf.
 */
function valuesOf(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema['anyOf'])) return fc.oneof(...(schema['anyOf'] as Schema[]).map(valuesOf));
  if (schema['const'] !== undefined) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  switch (schema['type']) {
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((schema['required'] ?? []) as string[]);
      const pattern = schema['patternProperties'] as Record<string, Schema> | undefined;
      if (pattern) {
        const [, item] = Object.entries(pattern)[0] as [string, Schema];
        return fc.dictionary(fc.string({ maxLength: 8 }), valuesOf(item), { maxKeys: 4 });
      }
      const shape = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valuesOf(v)]));
      return fc.record(shape, { requiredKeys: [...required] });
    }
    case 'array':
      return fc.array(valuesOf((schema['items'] ?? {}) as Schema), { maxLength: 4 });
    case 'string': {
      const dates = fc.date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31T23:59:59Z') });
      if (schema['format'] === 'date-time') return dates.map((d) => d.toISOString());
      if (schema['format'] === 'date') return dates.map((d) => d.toISOString().slice(0, 10));
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    }
    case 'integer':
      return fc.integer({
        min: (schema['minimum'] as number | undefined) ?? -1e9,
        max: (schema['maximum'] as number | undefined) ?? 1e9,
      });
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: (schema['minimum'] as number | undefined) ?? -1e9,
        max: (schema['maximum'] as number | undefined) ?? 1e9,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

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
