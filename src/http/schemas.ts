/**
 * Shapes shared by every route: the `{data, meta}` envelope (spec §2.1) and the error body
 * (spec §7). One definition each, used for serialization, OpenAPI and tests.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

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

export const ErrorData = Type.Object({
  error: Type.String({ description: 'A plain sentence saying what is wrong.' }),
  code: Type.String({ description: 'A stable code from the error table (README, API docs).' }),
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

/**
 * The success envelope around a route's data schema: on the wire (serialization, OpenAPI) `meta`
 * with all its fields; to the type provider, what the handler returns (`Replied`).
 */
export function envelope<T extends TSchema>(data: T) {
  return Type.Unsafe<Replied<Static<T>>>(Type.Object({ data, meta: Meta }));
}

/** Standard error responses documented on a route. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const s of statuses) out[s] = Type.Ref('ErrorEnvelope');
  return out;
}

export const IpParam = Type.Object({
  ip: Type.String({
    description: 'IPv4 or IPv6 address (normalized; see README "IP address forms").',
    maxLength: 100,
  }),
});
export type IpParam = Static<typeof IpParam>;
