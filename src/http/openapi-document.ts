/**
 * Finishes the document @fastify/swagger built from the route schemas: servers, the named
 * components, each operation's error responses by code (the envelope with the codes it can carry
 * and one example per code), the X-Request-ID / X-RateLimit-* / Retry-After headers on the
 * responses that send them, and the examples the routes gave.
 */
import { ERRORS, type ErrorCode } from '../core/errors.ts';
import type { Access } from './context.ts';
import type { SchemaNames } from './openapi-schemas.ts';
import { ErrorEnvelope } from './schemas.ts';

/** What a route's schema block may carry for the document besides Fastify's own keys. */
export interface OperationExamples {
  /** The request body (routes with a body). */
  request?: unknown;
  /** The 200 answer: its `data` for enveloped routes (the envelope is added), else the whole body. */
  response: unknown;
  /** Meta fields the route adds to the envelope (dataset_version, cache_status). */
  meta?: Record<string, unknown>;
  /** Answers that are not JSON (feed downloads), by media type. */
  byContentType?: Record<string, string>;
  /** The 200 answer with `extended=true` (issue 36): documented as a second named example. */
  extended?: { response: unknown; meta?: Record<string, unknown> };
}

declare module 'fastify' {
  interface FastifySchema {
    /** Examples for /openapi.json; checked against the schemas by test/http/openapi.test.ts. */
    examples?: OperationExamples;
  }
}

export interface DocumentedOperation {
  access: Access;
  envelope: boolean;
  codes: ErrorCode[];
  examples?: OperationExamples;
}

type Json = Record<string, unknown>;

const EXAMPLE_REQUEST_ID = '0b6f7d1e-4c2a-4f5e-9a37-2d8c51e0f6b4';

const HEADERS: Json = {
  'X-Request-ID': {
    description: 'The request id, also in meta.request_id; quote it when reporting a problem.',
    schema: { type: 'string', format: 'uuid' },
  },
  'X-RateLimit-Limit': {
    description:
      "Requests allowed in the current window: the key's daily quota, or the per-minute bucket of an anonymous route. Absent for keys without a limit.",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends, in Unix seconds.',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before the limit admits another request.',
    schema: { type: 'integer', minimum: 1 },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

function headersOf(access: Access, status: number): Json {
  const out: Json = { 'X-Request-ID': ref('X-Request-ID') };
  // The limit is counted after the key is accepted: 401 and 403 carry no limit state.
  const limited = access.kind === 'public' || (access.kind === 'key' && status !== 401 && status !== 403);
  if (limited) {
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) out[h] = ref(h);
  }
  if (status === 429) out['Retry-After'] = ref('Retry-After');
  return out;
}

function exampleMeta(extra: Record<string, unknown> = {}): Json {
  return { ...extra, processing_time_ms: 2, request_id: EXAMPLE_REQUEST_ID };
}

function errorResponse(names: SchemaNames, status: number, codes: ErrorCode[], access: Access): Json {
  const examples: Json = {};
  for (const code of codes) {
    examples[code] = {
      summary: ERRORS[code].message,
      value: { data: { error: ERRORS[code].message, code }, meta: exampleMeta() },
    };
  }
  return {
    description: codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join('; '),
    headers: headersOf(access, status),
    content: {
      'application/json': {
        schema: {
          allOf: [
            names.refTo(ErrorEnvelope, 'ErrorEnvelope'),
            {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  required: ['code'],
                  properties: { code: { type: 'string', enum: codes } },
                },
              },
            },
          ],
        },
        examples,
      },
    },
  };
}

function byStatus(codes: ErrorCode[]): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const code of [...codes].sort()) {
    const status = ERRORS[code].status;
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

function addExamples(op: Json, documented: DocumentedOperation): void {
  const examples = documented.examples;
  if (!examples) return;
  const body = (op.requestBody as { content?: Record<string, Json> } | undefined)?.content;
  if (body && examples.request !== undefined) {
    for (const media of Object.values(body)) media.example = examples.request;
  }
  const content = (op.responses as Record<string, { content?: Record<string, Json> }>)['200']?.content;
  if (!content) return;
  for (const [type, media] of Object.entries(content)) {
    const byType = examples.byContentType?.[type];
    if (byType !== undefined) media.example = byType;
    else if (type === 'application/json') {
      const wrap = (response: unknown, meta?: Record<string, unknown>) =>
        documented.envelope ? { data: response, meta: exampleMeta(meta) } : response;
      if (examples.extended)
        media.examples = {
          plain: { summary: 'The answer', value: wrap(examples.response, examples.meta) },
          extended: {
            summary: 'With extended=true',
            value: wrap(examples.extended.response, examples.extended.meta),
          },
        };
      else media.example = wrap(examples.response, examples.meta);
    }
  }
}

function completeOperation(names: SchemaNames, op: Json, documented: DocumentedOperation): void {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    response.headers = { ...headersOf(documented.access, Number(status)), ...(response.headers as Json) };
    if (response.description === 'Default Response') {
      response.description = documented.envelope ? 'OK: the answer in the `{data, meta}` envelope' : 'OK';
    }
  }
  for (const [status, codes] of byStatus(documented.codes)) {
    responses[String(status)] = errorResponse(names, status, codes, documented.access);
  }
  op.responses = responses;
  addExamples(op, documented);
}

export function completeDocument(
  doc: Json,
  context: { names: SchemaNames; operations: Map<string, DocumentedOperation>; serverUrl: string },
): Json {
  const { names, operations } = context;
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(item)) {
      const documented = operations.get(op.operationId as string);
      if (documented) completeOperation(names, op, documented);
    }
  }
  const components = (doc.components ?? {}) as Json;
  doc.components = {
    ...components,
    schemas: { ...(components.schemas as Json), ...names.components() },
    headers: HEADERS,
  };
  doc.servers = [{ url: context.serverUrl, description: 'This netrep instance' }];
  return doc;
}
