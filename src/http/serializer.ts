/**
 * Response serializers: fast-json-stringify over the route's response schema, rewritten first so
 * that the unions TypeBox writes as `anyOf` do not cost a validation per value. fast-json-stringify
 * picks an `anyOf` branch by running Ajv on each branch in turn, for every value it writes: a
 * reputation answer's 30 history levels, its factor names (13 literals) and its nullable /24 and
 * FCrDNS objects were about a tenth of the answer's CPU (issue 18). Two shapes are rewritten,
 * only for serializing (the OpenAPI document and request validation keep the schemas as written):
 *
 * - a union of string literals (`anyOf` of `{const: 'x'}`) → `{type: 'string'}`: written as the
 *   string it is;
 * - a union of one typed schema and null (`anyOf [X, {type: 'null'}]`) → `X` with
 *   `nullable: true`: fast-json-stringify writes `null` for null and X's serializer otherwise.
 *
 * Both write the same bytes as before for every value the schema admits (the fast-lookup and
 * OpenAPI client tests compare answers byte for byte and against the document); a value outside
 * the schema is no longer turned into a 500 by the serializer, which was never its job.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { DATA_JSON, Meta, stringLiteralsOf, VALUE_KEYWORDS } from './schemas.ts';

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function isNull(s: unknown): boolean {
  return (
    isObject(s) && s['type'] === 'null' && Object.keys(s).every((k) => k === 'type' || k === 'description')
  );
}

/** A serializable schema this module can mark nullable: a single type, no union of its own. */
function isPlainTyped(s: Schema): boolean {
  return (
    typeof s['type'] === 'string' &&
    s['type'] !== 'null' &&
    s['anyOf'] === undefined &&
    s['oneOf'] === undefined &&
    s['$ref'] === undefined &&
    s['const'] === undefined
  );
}

/** The schema with the two union shapes above rewritten, recursively; the input is not changed. */
export function serializableSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializableSchema);
  if (!isObject(schema)) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = VALUE_KEYWORDS.has(k) ? v : serializableSchema(v);
  }
  return withoutUnion(out);
}

/** A schema (its members already rewritten) with its `anyOf` rewritten when it is one of the two shapes above. */
function withoutUnion(out: Schema): Schema {
  const anyOf = out['anyOf'];
  if (!Array.isArray(anyOf) || anyOf.length === 0) return out;
  const { anyOf: _, ...rest } = out;
  if (stringLiteralsOf(out) !== null) return { ...rest, type: 'string' };
  if (anyOf.length !== 2) return out;
  const [a, b] = anyOf as unknown[];
  const typed = isNull(b) ? a : isNull(a) ? b : undefined;
  if (isObject(typed) && isPlainTyped(typed)) return { ...rest, ...typed, nullable: true };
  return out;
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;

type Serialize = (payload: unknown) => string;

/**
 * Fastify's default serializer factory, over rewritten schemas (for `schemaController`). An
 * envelope made with a data writer (`envelope(schema, dataJson)`) is written as
 * `{"data":…,"meta":…}` with that writer for the data and fast-json-stringify for the meta, the
 * order and bytes fast-json-stringify writes for the envelope; a payload that is not such an
 * envelope goes to the schema's own serializer.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const shared = serializableSchema(externalSchemas ?? {}) as Parameters<SerializerFactory>[0];
  const compile = SerializerSelector()(shared, options);
  return (route) => {
    const whole = compile({ ...route, schema: serializableSchema(route.schema) as typeof route.schema });
    const dataJson = (route.schema as { [DATA_JSON]?: Serialize } | undefined)?.[DATA_JSON];
    if (dataJson === undefined) return whole;
    const meta = compile({ ...route, schema: serializableSchema(Meta) as typeof route.schema }) as Serialize;
    return (payload: unknown) => {
      const p = payload as { data?: unknown; meta?: unknown } | null;
      if (p?.data === undefined || p.meta === undefined) return (whole as Serialize)(payload);
      return `{"data":${dataJson(p.data)},"meta":${meta(p.meta)}}`;
    };
  };
};
