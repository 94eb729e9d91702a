/**
 * Shapes shared by every route: the `{data, meta}` envelope (spec §2.1) and the error body
 * (spec §7). One definition each, used for serialization, OpenAPI and tests.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../core/errors.ts';

/** Schema keywords that hold values, not schemas: a walk over a schema copies them as they are. */
export const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['const', 'enum', 'default', 'examples']);

/**
 * The strings of a union of string literals (TypeBox writes one as `anyOf: [{const: 'a'}, …]`),
 * or null for any other schema: the OpenAPI document shows it as an `enum`, the serializer
 * writes it as a string.
 */
export function stringLiteralsOf(schema: Record<string, unknown>): string[] | null {
  const members = schema['anyOf'];
  if (!Array.isArray(members) || members.length === 0) return null;
  const out: string[] = [];
  for (const m of members) {
    const value = (m as { const?: unknown } | null)?.const;
    if (typeof value !== 'string') return null;
    out.push(value);
  }
  return out;
}

export const Meta = Type.Object(
  {
    processing_time_ms: Type.Integer({ description: 'Server time spent on the request, in milliseconds.' }),
    request_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'Also sent as the X-Request-ID header.' }),
    ),
    cache_status: Type.Optional(Type.Union([Type.Literal('HIT'), Type.Literal('MISS')])),
    dataset_version: Type.Optional(
      Type.Integer({ description: 'Version of the dataset that served the response.' }),
    ),
  },
  { additionalProperties: true, description: 'Response metadata.' },
);

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export const ErrorCodeSchema = Type.Unsafe<ErrorCode>({
  type: 'string',
  enum: ERROR_CODES,
  description:
    'A stable code from the error table (docs/api.md "Errors"); each operation lists the ones it can answer.',
});

export const ErrorData = Type.Object({
  error: Type.String({ description: 'A plain sentence saying what is wrong.' }),
  code: ErrorCodeSchema,
});

export const ErrorEnvelope = Type.Object(
  { data: ErrorData, meta: Meta },
  { $id: 'ErrorEnvelope', description: 'Every error response.' },
);

/**
 * What a handler returns: its data and any meta extras (dataset_version, cache_status). The
 * envelope hook (plugins/envelope.ts) adds processing_time_ms and request_id on the way out.
 */
export interface Replied<D> {
  data: D;
  meta?: Partial<Static<typeof Meta>>;
}

/** Where an envelope schema keeps the hand-written serializer of its data (serializer.ts). */
export const DATA_JSON = Symbol('netrep.dataJson');

/**
 * The success envelope around a route's data schema: on the wire (serialization, OpenAPI) `meta`
 * with all its fields; to the type provider, what the handler returns (`Replied`). `dataJson`
 * writes the data part instead of fast-json-stringify (for a hot answer; it must write the same
 * bytes as the schema's serializer, which its test shows).
 */
export function envelope<T extends TSchema>(data: T, dataJson?: (value: Static<T>) => string) {
  const schema = Type.Unsafe<Replied<Static<T>>>(Type.Object({ data, meta: Meta }));
  return dataJson ? Object.assign(schema, { [DATA_JSON]: dataJson }) : schema;
}

/** The schema /openapi.json shows in place of the one validating (see `documentedAs`). */
export const DOC_SCHEMA = Symbol('netrep.docSchema');

/**
 * A request part validated loosely but documented by its valid values: a feed name is checked
 * against the catalog by the handler, so an unknown one answers 404 NOT_FOUND like any unknown
 * resource, while the document lists the names.
 */
export function documentedAs<T extends TSchema>(runtime: T, doc: TSchema): T {
  const description = runtime.description;
  return { ...runtime, [DOC_SCHEMA]: description === undefined ? doc : { ...doc, description } };
}

/** The error codes a route's error response was declared with (read by openapi.ts). */
export const DECLARED_CODES = Symbol('netrep.declaredErrorCodes');

/**
 * The error responses of a route, by the codes its handler and domain can raise. The codes every
 * route of a kind shares (a key's 401/403, the limits' 429, a malformed body or parameter) are
 * added by openapi.ts from the route's access and schema, so a route lists only its own.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, unknown> {
  const out: Record<number, { $ref: string; [DECLARED_CODES]: ErrorCode[] }> = {};
  for (const code of codes) {
    const status = ERRORS[code].status;
    const entry = out[status] ?? { $ref: 'ErrorEnvelope', [DECLARED_CODES]: [] };
    entry[DECLARED_CODES].push(code);
    out[status] = entry;
  }
  return out;
}

export const IpParam = Type.Object({
  ip: Type.String({
    description: 'IPv4 or IPv6 address (normalized; see docs/api.md "IP address forms").',
    maxLength: 100,
  }),
});
export type IpParam = Static<typeof IpParam>;
