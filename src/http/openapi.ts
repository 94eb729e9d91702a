/**
 * /openapi.json as a product: every operation named (operationId, summary), its request and
 * answer shapes as named components, examples, the errors it can answer by code, and the headers
 * that come with them. Route files say what is particular to them (operationId, summary,
 * `examples`, the error codes of their domain); this file adds what follows from the route's
 * access and schema, and builds the document's frame (info, servers, components).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../config.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { Access } from './context.ts';
import { completeDocument, type DocumentedOperation, type OperationExamples } from './openapi-document.ts';
import { createSchemaNames, type SchemaNames } from './openapi-schemas.ts';
import { DECLARED_CODES } from './schemas.ts';

export type { OperationExamples } from './openapi-document.ts';

export interface OpenapiSettings {
  /** package.json's version. */
  version: string;
  /** The base URL callers use (NETREP_PUBLIC_URL, else the listen address). */
  serverUrl: () => string;
}

/** The version in package.json: the document's info.version. */
export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** NETREP_PUBLIC_URL when set, else the address the server is bound to (or will be). */
export function serverUrlOf(
  config: Pick<Config, 'publicUrl' | 'listen'>,
  bound: AddressInfo | string | null,
): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  if (bound !== null && typeof bound === 'object') {
    const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    return `http://${host}:${bound.port}`;
  }
  return `http://${config.listen}`;
}

const DESCRIPTION = `netrep: IP intelligence, a DNS blocklist, sending-IP reputation, email authentication checks,
header analysis and threat feeds.

Authenticate with the \`X-API-Key\` header (routes under \`/v1/public/\` need none). Every JSON answer
except the feed catalog is \`{data, meta}\`; every error is \`{data: {error, code}, meta}\` with a
\`code\` from a closed table, and each operation lists the codes it can answer. Limited routes send
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; a 429 adds \`Retry-After\`.`;

const TAGS = [
  { name: 'ip', description: 'IP intelligence from the loaded dataset.' },
  { name: 'asn', description: 'Autonomous systems: information, prefixes, search.' },
  { name: 'blocklist', description: "The service's own DNS blocklist." },
  { name: 'email', description: 'Sending-IP reputation, warm-up, telemetry and email authentication.' },
  { name: 'tools', description: 'Domain check and header analyzer.' },
  { name: 'feeds', description: 'Threat feed snapshots in several formats.' },
  { name: 'audit', description: 'Reproducible DNSBL and FCrDNS audit jobs over IPs, CIDRs and ASNs.' },
  { name: 'admin', description: 'Administration (keys with the admin permission).' },
  { name: 'public', description: 'Anonymous routes, limited per client IP.' },
  { name: 'health', description: 'Liveness and readiness.' },
];

/** Codes every route of a kind can answer, from its access and the parts it validates. */
function sharedCodes(access: Access, schema: Record<string, unknown>, takesBody: boolean): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (access.kind === 'key') {
    codes.push('UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED');
    if (access.missingKeyCode === 'AUTH_REQUIRED') codes.push('AUTH_REQUIRED');
    // The key is read from the store (a cached one is not): a store outage is 503 on every keyed route.
    codes.push('STORE_UNAVAILABLE');
  }
  if (access.kind === 'public') codes.push('RATE_LIMIT_EXCEEDED');
  // A POST or DELETE is parsed as JSON even without a body schema: a malformed one is INVALID_BODY.
  if (schema.body !== undefined || takesBody) codes.push('INVALID_BODY', 'PAYLOAD_TOO_LARGE');
  if (schema.params !== undefined || schema.querystring !== undefined) codes.push('INVALID_PARAMETER');
  return codes;
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

/** Splits a route's declared responses into its answers and the error codes it listed. */
function splitResponses(response: Record<string, unknown>): {
  answers: Record<string, unknown>;
  codes: ErrorCode[];
} {
  const answers: Record<string, unknown> = {};
  const codes: ErrorCode[] = [];
  for (const [status, schema] of Object.entries(response)) {
    const declared = (schema as { [DECLARED_CODES]?: ErrorCode[] })[DECLARED_CODES];
    if (Number(status) >= 400) codes.push(...(declared ?? []));
    else answers[status] = schema;
  }
  return { answers, codes };
}

function transformRoute(
  names: SchemaNames,
  operations: Map<string, DocumentedOperation>,
  schema: Record<string, unknown>,
  access: Access,
  envelope: boolean,
  takesBody = false,
): Record<string, unknown> {
  const s = { ...schema };
  const examples = s.examples as OperationExamples | undefined;
  delete s.examples;
  if (access.kind === 'key') s.security = [{ apiKey: [] }];
  const operationId = s.operationId as string | undefined;
  if (s.hide === true || operationId === undefined) return s;
  const { answers, codes } = splitResponses((s.response ?? {}) as Record<string, unknown>);
  const base = pascal(operationId);
  if (s.body !== undefined) s.body = names.refTo(s.body, `${base}Body`);
  for (const part of ['params', 'querystring'] as const) {
    if (s[part] !== undefined) s[part] = names.inline(s[part]);
  }
  const ok = answers['200'] as { properties?: { data?: unknown } } | undefined;
  if (ok !== undefined) {
    answers['200'] =
      envelope && ok.properties?.data !== undefined
        ? names.envelopeOf(ok, `${base}Data`)
        : names.refTo(ok, `${base}Answer`);
  }
  s.response = answers;
  operations.set(operationId, {
    access,
    envelope,
    codes: [...new Set([...sharedCodes(access, s, takesBody), ...codes])],
    ...(examples ? { examples } : {}),
  });
  return s;
}

export function swaggerOptions(settings: OpenapiSettings): SwaggerOptions {
  // Filled route by route while the document is built, then read once to finish it.
  let names = createSchemaNames();
  let operations = new Map<string, DocumentedOperation>();
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'netrep API', version: settings.version, description: DESCRIPTION },
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'An API key (`netrep keys create`); its permissions decide the routes it may call.',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const s = transformRoute(
        names,
        operations,
        (schema ?? {}) as Record<string, unknown>,
        route.config?.access ?? { kind: 'none' },
        route.config?.envelope !== false,
        [route.method].flat().some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH' || m === 'DELETE'),
      );
      return { schema: s as typeof schema, url };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const doc = completeDocument(documentObject.openapiObject as Record<string, unknown>, {
        names,
        operations,
        serverUrl: settings.serverUrl(),
      });
      names = createSchemaNames();
      operations = new Map();
      return doc as typeof documentObject.openapiObject;
    },
  };
}
