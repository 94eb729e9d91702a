/**
 * Random values a JSON schema admits (fast-check), for tests that compare serializers byte for
 * byte over answer schemas (src/http/serializer.test.ts, src/reputation/answer-json.test.ts).
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

/** An object schema's values: a record of its properties, or a dictionary for patternProperties. */
function objectValues(schema: Schema): fc.Arbitrary<unknown> {
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

/** A string schema's values: date-time or date formatted, or any text. */
function stringValues(schema: Schema): fc.Arbitrary<string> {
  const dates = fc.date({ noInvalidDate: true, min: new Date(0), max: new Date('9999-12-31T23:59:59Z') });
  if (schema['format'] === 'date-time') return dates.map((d) => d.toISOString());
  if (schema['format'] === 'date') return dates.map((d) => d.toISOString().slice(0, 10));
  // Text as people write it, and any code points (quotes, backslashes, controls, lone surrogates).
  return fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );
}

/**
 * Values a JSON schema admits, for the keywords the domains' answer schemas use (TypeBox's
 * output): objects (required and optional properties, records), arrays, strings (date-time
 * or date formatted, or any text), integers, numbers, booleans, null, const, enum, anyOf.
 */
export function valuesOf(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema['anyOf'])) return fc.oneof(...(schema['anyOf'] as Schema[]).map(valuesOf));
  if (schema['const'] !== undefined) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  switch (schema['type']) {
    case 'object':
      return objectValues(schema);
    case 'array':
      return fc.array(valuesOf((schema['items'] ?? {}) as Schema), { maxLength: 4 });
    case 'string':
      return stringValues(schema);
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
